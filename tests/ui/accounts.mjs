// The sign-up and recovery views of the UI suite (issue 32), run by run.mjs after the
// people views. hearth sends its mail to the suite's SMTP sink (smtp-sink.mjs).
//
// Sign-up: nora signs up as a site's sign-up form does (POST /api/v2/account/create/: the
// kit has no form of its own for it); the sink receives her code; the kit's AccountVerify,
// given the code as a site's verify page is, makes her account, and she signs in with her
// password (the OAuth password grant).
//
// Recovery: nora forgot her password. The kit's AccountRecover sends her address; the
// sink receives a recovery code; the kit's AccountReset, given it, checks it with hearth
// and takes her new password. The old password no longer signs her in; the new one does.
import { codeIn } from './smtp-sink.mjs';

export async function accountViews(t) {
  const { visit, check, hearth, page, portal, must, WAIT_MS, viewTokens, setIds, sink } = t;
  const nora = { username: 'nora', email: 'nora@example.org', password: 'first password 1' };
  const fresh = 'second password 2';
  let client = null;
  let resetCode = null;
  const post = async (p, body) => {
    const r = await fetch(portal + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null };
  };
  const signIn = async (password) => {
    const r = await fetch(`${portal}/oauth/token/`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: client, username: nora.username, password }) });
    return { status: r.status, json: await r.json() };
  };

  await check("sign-up: nora signs up (POST /api/v2/account/create/ as a site's form does): 201, and her code reaches the SMTP sink; she cannot sign in before using it", async () => {
    client = JSON.parse(hearth('app', 'create', '--name', 'Sign-in test', '--grant', 'password', '--json')).client_id;
    const before = sink.mails.length;
    const r = await post('/api/v2/account/create/', nora);
    must(r.status === 201, `create answered ${r.status}: ${JSON.stringify(r.json)}`);
    const mail = (await sink.waitFor(before + 1, WAIT_MS)).at(-1);
    must(mail.to.join() === nora.email, `the mail went to ${mail.to}`);
    const code = codeIn(mail);
    must(code && code.length >= 20, `no code in the mail: ${mail.text}`);
    must((await signIn(nora.password)).status === 400, 'she signed in before verifying');
    Object.assign(viewTokens, { 'sign-up': '', recover: '', reset: '' });
    setIds({ signupCode: code });
  });
  await visit('sign-up', async () => {
    await check("sign-up: the kit's AccountVerify, given nora's code, makes her account (its success alert shows); she then signs in with her password and /user/me/ is hers", async () => {
      await page.locator('.SCAccountVerify-success').waitFor({ timeout: WAIT_MS });
      const g = await signIn(nora.password);
      must(g.status === 200, `the password grant answered ${g.status}: ${JSON.stringify(g.json)}`);
      const me = await (await fetch(`${portal}/api/v2/user/me/`, { headers: { authorization: `Bearer ${g.json.access_token}` } })).json();
      must(me.username === nora.username && me.email === nora.email, `/user/me/: ${JSON.stringify(me).slice(0, 200)}`);
    });
  }, { fullPage: false });

  await visit('recover', async () => {
    await check("recover: nora types her address in the kit's AccountRecover and submits: hearth answers 204, the kit shows its success alert, and her recovery code reaches the sink", async () => {
      const before = sink.mails.length;
      await page.locator('.SCAccountRecover-email input').fill(nora.email);
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/account/recover/`, { timeout: WAIT_MS }),
        page.locator('.SCAccountRecover-root button[type=submit]').click(),
      ]);
      must(resp.status() === 204, `recover answered ${resp.status()}`);
      await page.locator('.SCAccountRecover-success').waitFor({ timeout: WAIT_MS });
      const mail = (await sink.waitFor(before + 1, WAIT_MS)).at(-1);
      const code = codeIn(mail);
      must(mail.to.join() === nora.email && code, `the mail: ${JSON.stringify(mail).slice(0, 300)}`);
      resetCode = code;
      setIds({ resetCode: code });
    });
  }, { fullPage: false });

  await visit('reset', async () => {
    await check("reset: the kit's AccountReset checks nora's code with hearth (is_valid), takes her new password, shows its success alert; the old password fails, the new one signs her in, and the code is spent", async () => {
      const input = page.locator('.SCAccountReset-password input');
      await input.waitFor({ timeout: WAIT_MS });
      await input.fill(fresh);
      const [resp] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${portal}/api/v2/account/reset/`, { timeout: WAIT_MS }),
        page.locator('.SCAccountReset-root button[type=submit]').click(),
      ]);
      must(resp.status() === 204, `reset answered ${resp.status()}`);
      await page.locator('.SCAccountReset-success').waitFor({ timeout: WAIT_MS });
      must((await signIn(nora.password)).status === 400, 'the old password still signs in');
      must((await signIn(fresh)).status === 200, 'the new password does not sign in');
      const again = await post('/api/v2/account/verify/validation_code/', { validation_code: resetCode });
      must(again.status === 200 && again.json.is_valid === false, `the code still works: ${JSON.stringify(again.json)}`);
    });
  }, { fullPage: false });
}
