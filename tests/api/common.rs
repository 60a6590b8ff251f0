//! The test server and helpers shared by every area.

#![allow(dead_code, reason = "each test module uses a different subset")]
use hearth::clock::{Clock, SECOND};
use hearth::config::Config;
use hearth::db::Db;
use hearth::state::AppState;
use hearth::token::{self, jwt, password};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tokio::sync::oneshot;

/// Iterations for test users' passwords: hashes with other counts verify, and this
/// keeps the tests fast.
pub const TEST_ITERATIONS: u32 = 1000;

/// Page parameters every paginated list refuses (400 `invalid`), and the field each
/// error names.
pub const BAD_PAGES: [(&str, &str); 9] = [
    ("limit=0", "limit"),
    ("limit=-1", "limit"),
    ("limit=abc", "limit"),
    ("limit=x", "limit"),
    ("limit=", "limit"),
    ("limit=1.5", "limit"),
    ("offset=-1", "offset"),
    ("offset=", "offset"),
    ("offset=x", "offset"),
];

/// Values a boolean query parameter refuses (it takes true/false/1/0 in any case).
pub const BAD_BOOLEANS: [&str; 6] = ["yes", "", "2", "t", "tru", "on"];

/// The keys of Category JSON, wherever it appears.
pub const CATEGORY_KEYS: [&str; 7] =
    ["id", "name", "slug", "active", "deleted", "order", "image_medium"];

/// The ids of a list's results (or of a plain array).
pub fn ids(v: &Value) -> Vec<i64> {
    map_list(v, |x| x["id"].as_i64().unwrap())
}

/// The `key` text of each of a list's results (or of a plain array's elements).
/// The item ids of a page of feed units.
pub fn unit_ids(page: &Value) -> Vec<i64> {
    page["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u[u["type"].as_str().unwrap()]["id"].as_i64().unwrap())
        .collect()
}

pub fn texts(v: &Value, key: &str) -> Vec<String> {
    map_list(v, |x| x[key].as_str().unwrap().to_owned())
}

fn map_list<T>(v: &Value, f: impl Fn(&Value) -> T) -> Vec<T> {
    let list = v.get("results").unwrap_or(v);
    list.as_array().unwrap_or_else(|| panic!("not a list: {v}")).iter().map(f).collect()
}

/// A running server on a temp database.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// The server's state (database, clock, config).
    pub state: AppState,
    /// The manual clock the server reads.
    pub clock: Clock,
    /// A client that keeps cookies and does not follow redirects.
    pub client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Resp {
    /// The body as JSON (Null when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The ids of a list's results (or of a plain array).
    pub fn ids(&self) -> Vec<i64> {
        ids(&self.json())
    }

    /// Asserts `status` and the error code of an API error body (`""` for none).
    pub fn assert_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.error_code(), code, "{}", self.text);
    }

    /// Asserts a 400 whose first error names `field` with `code`.
    pub fn assert_field_error(&self, field: &str, code: &str) {
        self.assert_error(StatusCode::BAD_REQUEST, code);
        assert_eq!(self.json()["errors"][0]["field"], field, "{}", self.text);
    }

    /// The first error code of an API error body.
    pub fn error_code(&self) -> String {
        let j = self.json();
        j["errors"][0]["code"]
            .as_str()
            .or_else(|| j["errors"][0]["messages"][0]["code"].as_str())
            .unwrap_or("")
            .to_owned()
    }
}

impl TestServer {
    /// Starts a server with the default configuration.
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    /// Starts a server after `tweak` adjusts its configuration.
    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hearth.db");
        let clock = Clock::manual(Clock::system().now());
        let (db, created) = Db::open_or_create(&path, clock.now()).unwrap();
        assert!(created);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut config = Config::for_addr(addr);
        // the tests' clock stands still and they create data as fast as they can: no
        // rate of writes per user (the daily byte budget stays on). The quota's own
        // tests (hardening/writes.rs) turn the rate on.
        config.user_write_rate = 0;
        tweak(&mut config);
        let state = AppState::new(db, clock.clone(), config).unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(hearth::server::serve_on(listener, state.clone(), async move {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        TestServer {
            url: format!("http://{addr}"),
            state,
            clock,
            client,
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    /// Stops the server and waits for it (graceful shutdown).
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }

    /// Sends a request; `token` goes in `Authorization: Bearer`; `body` as JSON.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut rb = self.request(method.clone(), path, token);
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        Self::read_checked(Some(method.as_str()), rb.send().await.unwrap()).await
    }

    /// A request to `path` with `token` in `Authorization: Bearer`.
    fn request(&self, method: Method, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        let rb = self.client.request(method, format!("{}{}", self.url, path));
        match token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    /// Reads a response, checked against the OpenAPI document
    /// ([`crate::conformance`]; the method is inferred from the path).
    pub async fn read(r: reqwest::Response) -> Resp {
        Self::read_checked(None, r).await
    }

    async fn read_checked(method: Option<&str>, r: reqwest::Response) -> Resp {
        let status = r.status();
        let headers = r.headers().clone();
        let path = r.url().path().to_owned();
        let text = r.text().await.unwrap();
        let content_type = headers.get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        crate::conformance::check(method, &path, status.as_u16(), content_type, &text);
        Resp { status, headers, text }
    }

    /// GET.
    pub async fn get(&self, path: &str, token: Option<&str>) -> Resp {
        self.call(Method::GET, path, token, None).await
    }

    /// The status of a GET.
    pub async fn status(&self, path: &str, token: Option<&str>) -> StatusCode {
        self.get(path, token).await.status
    }

    /// Asserts that a GET of `path` needs a caller: 401 `not_authenticated` without a
    /// token, 401 `authentication_failed` with `bad` (a token that is not one).
    pub async fn assert_needs_caller(&self, path: &str, bad: &str) {
        let r = self.get(path, None).await;
        r.assert_error(StatusCode::UNAUTHORIZED, "not_authenticated");
        let r = self.get(path, Some(bad)).await;
        r.assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
    }

    /// The ids of the list a GET answers.
    pub async fn list_ids(&self, path: &str, token: Option<&str>) -> Vec<i64> {
        self.get(path, token).await.ids()
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Resp {
        self.call(Method::POST, path, token, Some(body)).await
    }

    /// DELETE with no body.
    pub async fn delete(&self, path: &str, token: Option<&str>) -> Resp {
        self.call(Method::DELETE, path, token, None).await
    }

    /// PATCH with a JSON body.
    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> Resp {
        self.call(Method::PATCH, path, token, Some(body)).await
    }

    /// PUT with a JSON body.
    pub async fn put(&self, path: &str, token: Option<&str>, body: Value) -> Resp {
        self.call(Method::PUT, path, token, Some(body)).await
    }

    /// A request with a raw body (none: no body at all) and an optional content type;
    /// its answer is checked against the operations of every method of the path.
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Resp {
        let mut rb = self.request(method, path, token);
        if let Some(ct) = content_type {
            rb = rb.header("content-type", ct);
        }
        if let Some(b) = body {
            rb = rb.body(b);
        }
        Self::read(rb.send().await.unwrap()).await
    }

    /// POSTs `body` to `path`, asserts a 201, and returns the record made.
    pub async fn create(&self, path: &str, token: &str, body: Value) -> Value {
        let r = self.post(path, Some(token), body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{path}: {}", r.text);
        r.json()
    }

    /// [`Self::create`], returning the id of the record made.
    pub async fn create_id(&self, path: &str, token: &str, body: Value) -> i64 {
        self.create(path, token, body).await["id"].as_i64().unwrap()
    }

    /// A self-paced course named `name` with `privacy`, made by `token`'s user; its id.
    pub async fn course(&self, token: &str, name: &str, privacy: &str) -> i64 {
        let body = serde_json::json!({"name": name, "type": "self-paced", "privacy": privacy});
        self.create_id("/api/v2/course/", token, body).await
    }

    /// POST with no body at all and a JSON content type: what the platform's SDKs send.
    pub async fn post_empty(&self, path: &str, token: Option<&str>) -> Resp {
        self.raw(Method::POST, path, token, Some("application/json"), None).await
    }

    /// Asserts that `hearth check` finds nothing wrong with the server's database.
    pub fn assert_consistent(&self) {
        let problems = self
            .state
            .db
            .read_blocking(|c| hearth::db::check::run(c).map_err(hearth::db::DbError::from))
            .unwrap();
        assert!(problems.is_empty(), "hearth check: {problems:?}");
    }

    /// Soft-deletes a user directly in the database.
    pub fn soft_delete_user(&self, id: i64) {
        self.state
            .db
            .write_blocking(|tx| {
                hearth::db::users::soft_delete(tx, id).map_err(hearth::db::DbError::from)
            })
            .unwrap();
    }

    /// Runs `f` in one write transaction, directly on the database.
    pub fn db_write<T>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> T {
        self.state.db.write_blocking(|tx| f(tx).map_err(hearth::db::DbError::from)).unwrap()
    }

    /// Runs `f` on a reader connection, directly.
    pub fn db_read<T>(&self, f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>) -> T {
        self.state.db.read_blocking(|c| f(c).map_err(hearth::db::DbError::from)).unwrap()
    }

    /// Users without passwords; their ids.
    pub fn users<const N: usize>(&self, names: [&str; N]) -> [i64; N] {
        names.map(|n| self.user(n, None, false))
    }

    /// Categories; their ids.
    pub fn categories<const N: usize>(&self, names: [&str; N]) -> [i64; N] {
        names.map(|n| self.category(n))
    }

    /// A user (no password) and a JWT for it.
    pub fn login(&self, username: &str) -> (i64, String) {
        let id = self.user(username, None, false);
        (id, self.jwt(id))
    }

    /// A user with an optional password (hashed with [`TEST_ITERATIONS`]); returns its id.
    pub fn user(&self, username: &str, pw: Option<&str>, staff: bool) -> i64 {
        let now = self.clock.now();
        let new = hearth::db::users::NewUser {
            username: username.into(),
            email: Some(format!("{username}@example.org")),
            password_hash: pw.map(|p| password::hash(p, TEST_ITERATIONS)),
            is_staff: staff,
            date_joined: now,
            ..Default::default()
        };
        self.state
            .db
            .write_blocking(|tx| {
                hearth::db::users::insert(tx, &new).map_err(hearth::db::DbError::from)
            })
            .unwrap()
    }

    /// The current JWT secret.
    pub fn jwt_secret(&self) -> String {
        self.state
            .db
            .read_blocking(|c| {
                hearth::db::jwt::current_secret(c).map_err(hearth::db::DbError::from)
            })
            .unwrap()
            .unwrap()
    }

    /// A valid JWT access token for a user (one hour).
    pub fn jwt(&self, user_id: i64) -> String {
        let now = self.clock.now_secs();
        let claims = jwt::AccessClaims {
            user_id,
            token_type: "access".into(),
            exp: now + 3600,
            iat: now,
            jti: token::random_string(9),
            ext_id: None,
        };
        jwt::encode(&claims, &jwt::Key::new(&self.jwt_secret()))
    }

    /// An OAuth access token with `scope` for a user, issued directly in the database
    /// (for scope tests; the token endpoint has its own tests).
    pub fn oauth_token(&self, user_id: i64, scope: &str) -> String {
        let now = self.clock.now();
        let t = token::new_token();
        let hash = token::storage_hash(&t);
        let scope = scope.to_owned();
        self.state
            .db
            .write_blocking(|tx| -> Result<(), hearth::db::DbError> {
                let app = hearth::model::app::App {
                    id: 0,
                    client_id: token::random_string(12),
                    secret_hash: vec![0; 32],
                    name: "test".into(),
                    description: String::new(),
                    image: String::new(),
                    grant: hearth::model::app::AppGrant::Password,
                    confidential: false,
                    skip_consent: false,
                    redirect_uris: vec![],
                    created_at: now,
                };
                let app_id = hearth::db::apps::insert(tx, &app)?;
                let grant = hearth::db::tokens::insert_grant(tx, app_id, user_id, &scope, now)?;
                hearth::db::tokens::insert_access(
                    tx,
                    &hash,
                    grant,
                    &scope,
                    now + 3600 * SECOND,
                    now,
                )?;
                Ok(())
            })
            .unwrap();
        t
    }

    /// Sets a preference directly.
    pub fn set_pref(&self, section: &str, name: &str, value: Value) {
        let (s, n) = (section.to_owned(), name.to_owned());
        self.state
            .db
            .write_blocking(move |tx| -> Result<(), hearth::db::DbError> {
                let p = hearth::db::preferences::get(tx, &s, &n)?.unwrap();
                hearth::db::preferences::set(tx, p.id, &value)?;
                Ok(())
            })
            .unwrap();
    }

    /// Creates a category; returns its id.
    pub fn category(&self, name: &str) -> i64 {
        let now = self.clock.now();
        let slug = hearth::model::slug::slugify(name, "category");
        self.state
            .db
            .write_blocking(|tx| {
                hearth::db::categories::insert(tx, None, name, &slug, now)
                    .map_err(hearth::db::DbError::from)
            })
            .unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// An absent, malformed, unknown, expired, revoked (opaque and JWT) and deleted-user
/// token (user 1 must exist): what `every protected route rejects bad tokens` walks.
pub async fn bad_tokens(s: &TestServer) -> Vec<(&'static str, Option<String>)> {
    let gone = s.user(
        &format!("gone{}", token::random_string(4).to_lowercase().replace(['-', '_'], "")),
        None,
        false,
    );
    let gone_token = s.jwt(gone);
    s.soft_delete_user(gone);
    let now = s.clock.now_secs();
    let expired = jwt::encode(
        &jwt::AccessClaims {
            user_id: 1,
            token_type: "access".into(),
            exp: now - 1,
            iat: now - 100,
            jti: "expired".into(),
            ext_id: None,
        },
        &jwt::Key::new(&s.jwt_secret()),
    );
    // a live user's tokens, revoked: an opaque one and a JWT (by its jti)
    let revoked_opaque = s.oauth_token(1, "read write");
    let revoked_jwt = s.jwt(1);
    let jti =
        jwt::verify_access(&revoked_jwt, &[&jwt::Key::new(&s.jwt_secret())], s.clock.now_secs())
            .unwrap()
            .jti;
    let (hash, now_ts) = (token::storage_hash(&revoked_opaque), s.clock.now());
    s.state
        .db
        .write_blocking(move |tx| -> Result<(), hearth::db::DbError> {
            hearth::db::tokens::revoke_access(tx, &hash)?;
            hearth::db::jwt::revoke(tx, &jti, now_ts + 3600 * SECOND, now_ts)?;
            Ok(())
        })
        .unwrap();
    vec![
        ("no token", None),
        ("revoked opaque token", Some(revoked_opaque)),
        ("revoked JWT", Some(revoked_jwt)),
        ("malformed token", Some("not-a-token.at.all".into())),
        ("unknown opaque token", Some(token::new_token())),
        ("expired token", Some(expired)),
        ("deleted user's token", Some(gone_token)),
    ]
}

/// A PNG of `w`×`h` pixels (a gradient).
pub fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    }));
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Png).unwrap();
    buf.into_inner()
}

/// Sends a multipart form with a bearer token.
pub async fn multipart(
    s: &TestServer,
    method: Method,
    path: &str,
    tok: &str,
    form: reqwest::multipart::Form,
) -> Resp {
    let r = s
        .client
        .request(method, format!("{}{}", s.url, path))
        .bearer_auth(tok)
        .multipart(form)
        .send()
        .await
        .unwrap();
    TestServer::read(r).await
}

/// A file part of a multipart form.
pub fn image_part(bytes: Vec<u8>, name: &str, mime: &str) -> reqwest::multipart::Part {
    reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned()).mime_str(mime).unwrap()
}
