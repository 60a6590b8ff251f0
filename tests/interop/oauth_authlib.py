#!/usr/bin/env python3
"""Interop check of hearth's OAuth 2.0 server with a standard client (Authlib).

Run by scripts/test (and so by CI). It starts a debug hearth on a temporary database,
registers apps and a user with the CLI, then with Authlib's requests client:

  1. authorization code flow with PKCE (S256), client_secret_basic; the browser part
     (login form, consent form) is driven with `requests`, parsing the HTML forms;
  2. calls GET /api/v2/user/me/ with the access token;
  3. refreshes (rotation) and checks the old access token stopped working;
  4. revokes the refresh token (RFC 7009) and checks the refresh fails;
  5. password grant for a public client, then revokes its access token;
  6. verify_token with a JWT minted by the CLI.

Usage (scripts/test does this with the venv it keeps in ~/.cache/hearth-test):
  python3 -m venv /tmp/v && /tmp/v/bin/pip install -r tests/interop/requirements.txt
  cargo build && /tmp/v/bin/python tests/interop/oauth_authlib.py [path/to/hearth]
"""

import html
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # hearth on plain http locally

import requests  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402

HEARTH = sys.argv[1] if len(sys.argv) > 1 else "target/debug/hearth"
REDIRECT = "https://client.example/cb?keep=1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(db, *args, stdin=None):
    out = subprocess.run(
        [HEARTH, "--db", db, *args], input=stdin, capture_output=True, text=True, check=True
    )
    return out.stdout


def hidden_fields(page):
    return {
        html.unescape(n): html.unescape(v)
        for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page)
    }


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        sys.exit(1)


def main():
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "hearth.db")
    cli(db, "init")
    code_app = json.loads(cli(db, "app", "create", "--name", "Authlib demo", "--grant",
                              "authorization-code", "--redirect-uri", REDIRECT,
                              "--description", "Interop check", "--json"))
    pw_app = json.loads(cli(db, "app", "create", "--name", "Password app", "--grant",
                            "password", "--json"))
    cli(db, "user", "create", "--username", "ann", "--password-stdin", stdin="s3cret-pw\n")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([HEARTH, "--db", db, "serve", "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                requests.get(base + "/healthz", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        run(base, code_app, pw_app, db)
    finally:
        server.terminate()
        server.wait(timeout=15)


def run(base, code_app, pw_app, db):
    token_url = base + "/oauth/token/"
    revoke_url = base + "/oauth/revoke_token/"

    # 1. authorization code + PKCE
    client = OAuth2Session(code_app["client_id"], code_app["secret_key"], scope="read write",
                           redirect_uri=REDIRECT, code_challenge_method="S256",
                           token_endpoint_auth_method="client_secret_basic")
    verifier = generate_token(64)
    url, state = client.create_authorization_url(base + "/oauth/authorize/",
                                                 code_verifier=verifier)
    browser = requests.Session()
    r = browser.get(url, allow_redirects=False)
    check(r.status_code == 302 and r.headers["Location"].startswith("/accounts/login/?next="),
          "unauthenticated authorize redirects to the login form")
    login = browser.get(base + r.headers["Location"])
    fields = hidden_fields(login.text)
    fields.update(username="ann", password="s3cret-pw")
    r = browser.post(base + "/accounts/login/", data=fields, allow_redirects=False)
    check(r.status_code == 303, "login form accepted")
    consent = browser.get(base + r.headers["Location"], allow_redirects=False)
    check(consent.status_code == 200 and "Authlib demo" in consent.text, "consent page shown")
    check(consent.headers.get("X-Frame-Options") == "DENY", "consent page not framable")
    fields = hidden_fields(consent.text)
    fields["allow"] = "Authorize"
    r = browser.post(base + "/oauth/authorize/", data=fields, allow_redirects=False)
    callback = r.headers["Location"]
    check(r.status_code == 302 and callback.startswith(REDIRECT + "&code="),
          "redirect to the client with code, registered query kept")
    token = client.fetch_token(token_url, authorization_response=callback,
                               code_verifier=verifier)
    check(token["token_type"] == "Bearer" and token["scope"] == "read write"
          and "refresh_token" in token, "code exchanged for tokens (Authlib checked state)")

    # 2. the token works
    me = client.get(base + "/api/v2/user/me/")
    check(me.status_code == 200 and me.json()["username"] == "ann", "GET /api/v2/user/me/")

    # 3. refresh with rotation
    old_access = token["access_token"]
    new = client.refresh_token(token_url)
    check(new["access_token"] != old_access and new["refresh_token"] != token["refresh_token"],
          "refresh rotated both tokens")
    r = requests.get(base + "/api/v2/user/me/", headers={"Authorization": "Bearer " + old_access})
    check(r.status_code == 401, "old access token refused after rotation")

    # 4. revoke the refresh token
    r = client.revoke_token(revoke_url, token=new["refresh_token"],
                            token_type_hint="refresh_token")
    check(r.status_code == 200, "refresh token revoked (RFC 7009)")
    r = requests.get(base + "/api/v2/user/me/",
                     headers={"Authorization": "Bearer " + new["access_token"]})
    check(r.status_code == 401, "its access token went with it")
    try:
        client.refresh_token(token_url, refresh_token=new["refresh_token"])
        check(False, "revoked refresh token refused")
    except Exception as e:  # authlib raises OAuthError
        check("invalid_grant" in str(e), "revoked refresh token refused: invalid_grant")

    # 5. password grant (public client: no secret)
    pw = OAuth2Session(pw_app["client_id"], token_endpoint_auth_method="none")
    t = pw.fetch_token(token_url, username="ann", password="s3cret-pw")
    check(t["expires_in"] == 36000, "password grant")
    r = pw.revoke_token(revoke_url, token=t["access_token"], token_type_hint="access_token")
    check(r.status_code == 200, "access token revoked")
    r = requests.get(base + "/api/v2/user/me/",
                     headers={"Authorization": "Bearer " + t["access_token"]})
    check(r.status_code == 401, "revoked access token refused")

    # 6. a JWT minted by the CLI verifies
    jwt = cli(db, "jwt", "mint", "--user-id", "1").strip()
    r = requests.post(base + "/api/v2/jwt/verify_token/", json={"token": jwt})
    check(r.status_code == 200 and r.content == b"", "verify_token accepts a CLI-minted JWT")
    print("all interop checks passed")


if __name__ == "__main__":
    main()
