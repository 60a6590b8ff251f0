//! AppState: what every handler shares. A clone is one `Arc`'s: every request holds
//! one, and a clone of twenty-odd `Arc`s was as many writes to words that every core
//! shares (issue 34).

use std::sync::Arc;

use arc_swap::ArcSwap;
use std::time::Duration;

use crate::clock::{Clock, Timestamp};
use crate::config::Config;
use crate::db::Db;
use crate::token::jwt::Key;

/// How often the JWT secrets are re-read from the database, so that `hearth jwt secret
/// --rotate` run beside a live server takes effect within a second.
pub const KEY_RELOAD: Duration = Duration::from_millis(500);

/// The JWT keys that verify tokens: the current one, and previous ones until their
/// grace end.
#[derive(Debug, Default)]
pub struct JwtKeys(Vec<(Key, Option<Timestamp>)>);

impl JwtKeys {
    /// Loads the keys valid at `now`.
    pub fn load(db: &Db, now: Timestamp) -> Result<JwtKeys, crate::db::DbError> {
        let rows = db.read_blocking(|c| {
            crate::db::jwt::active_secrets(c, now).map_err(crate::db::DbError::from)
        })?;
        Ok(JwtKeys(rows.into_iter().map(|r| (Key::new(&r.secret), r.grace_until)).collect()))
    }

    /// The keys that verify at `now`.
    pub fn accepted(&self, now: Timestamp) -> Vec<&Key> {
        self.0.iter().filter(|(_, until)| until.is_none_or(|u| now < u)).map(|(k, _)| k).collect()
    }
}

fn load_revoked(
    db: &Db,
    now: Timestamp,
) -> Result<std::collections::HashMap<String, Timestamp>, crate::db::DbError> {
    let rows = db.read_blocking(|c| {
        crate::db::jwt::revoked_list(c, now).map_err(crate::db::DbError::from)
    })?;
    Ok(rows.into_iter().collect())
}

/// Shared state (see [`Shared`]).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What every handler shares.
pub struct Shared {
    /// The database.
    pub db: Db,
    /// The clock.
    pub clock: Clock,
    /// Configuration.
    pub config: Arc<Config>,
    keys: ArcSwap<JwtKeys>,
    /// Revoked JWT ids until their expiry: the database's `revoked_jti`, held in memory
    /// so that `verify_token` needs no database call. Updated before a revocation is
    /// answered and merged with the database on every reload; entries are never
    /// removed before their expiry, so it is never behind this process's own writes.
    revoked: ArcSwap<std::collections::HashMap<String, Timestamp>>,
    /// At most one password hash per core at a time (SPEC §4).
    pub hashing: Arc<tokio::sync::Semaphore>,
    /// Brute-force limit on password checks (SPEC §4), per username and per address.
    pub login_limiter: Arc<crate::limits::login::Limiter>,
    /// Per-user write rate and daily bytes (issue 27, Medium 8).
    pub write_quota: Arc<crate::limits::writes::WriteQuota>,
    /// Request bodies and decoded images held in memory, across all requests (SPEC §3).
    pub body_budget: crate::limits::budget::Budget,
    stopping: std::sync::atomic::AtomicBool,
    /// Primary or read replica (SPEC §9): [`Shared::role`].
    role: std::sync::OnceLock<crate::role::Role>,
    /// The open live sockets (`/ws/notify`), which committed notifications reach.
    pub hub: Arc<crate::hub::Hub>,
    /// The members' data exports being built.
    pub exports: Arc<crate::jobs::Exports>,
    /// The SMTP relay's queue (`serve --smtp-url`; None: no mail, no sign-up).
    pub mailer: Option<Arc<crate::mail::Mailer>>,
    /// Mails caused per client address and per mail address (`serve --mail-rate`).
    pub mail_limiter: Arc<crate::limits::login::Limiter>,
    /// The nine preferences `/user/me/`'s `permission` reads (`api::user_facts`), as
    /// last read, with the preferences' version they were read at.
    pub permission_prefs: Arc<crate::db::preferences::Latest<9>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("db", &self.db)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Builds the state and loads the JWT keys.
    pub fn new(db: Db, clock: Clock, config: Config) -> Result<AppState, crate::db::DbError> {
        let keys = JwtKeys::load(&db, clock.now())?;
        let revoked = load_revoked(&db, clock.now())?;
        let cores = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
        let window = i64::try_from(config.login_window.as_micros()).unwrap_or(i64::MAX);
        let login_limiter =
            Arc::new(crate::limits::login::Limiter::new(config.login_max_failures, window));
        let write_quota = Arc::new(crate::limits::writes::WriteQuota::new(
            crate::limits::writes::Quota {
                rate: config.user_write_rate,
                burst: config.user_write_burst,
                daily_bytes: config.user_daily_bytes,
            },
            crate::config::WRITE_QUOTA_USERS,
        ));
        let mailer = match &config.smtp_url {
            Some(url) => Some(Arc::new(
                crate::mail::Mailer::start(url, &config.mail_from())
                    .map_err(crate::db::DbError::Task)?,
            )),
            None => None,
        };
        let mail_limiter = Arc::new(crate::limits::login::Limiter::new(
            config.mail_rate,
            3600 * crate::clock::SECOND,
        ));
        let hub = Arc::new(crate::hub::Hub::default());
        let to = Arc::clone(&hub);
        db.set_push_sink(Box::new(move |pushed| to.publish(pushed)));
        Ok(AppState(Arc::new(Shared {
            hub,
            exports: Arc::default(),
            mailer,
            mail_limiter,
            login_limiter,
            write_quota,
            body_budget: crate::limits::budget::Budget::new(config.max_body_memory),
            stopping: std::sync::atomic::AtomicBool::new(false),
            db,
            clock,
            config: Arc::new(config),
            keys: ArcSwap::from_pointee(keys),
            revoked: ArcSwap::from_pointee(revoked),
            hashing: Arc::new(tokio::sync::Semaphore::new(cores)),
            role: std::sync::OnceLock::new(),
            permission_prefs: Arc::default(),
        })))
    }

    /// This state as a read replica's (SPEC §9); a state's role is set once.
    #[must_use]
    pub fn as_replica(self, status: Arc<crate::role::ReplicaStatus>) -> Self {
        if self.role.set(crate::role::Role::Replica(status)).is_err() {
            tracing::error!("this state's role was set already");
        }
        self
    }

    /// Background task: reload the JWT keys every [`KEY_RELOAD`].
    pub fn spawn_key_reloader(&self) -> tokio::task::JoinHandle<()> {
        let state = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(KEY_RELOAD);
            loop {
                tick.tick().await;
                let s = state.clone();
                match tokio::task::spawn_blocking(move || s.reload_keys()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!(error = %e, "reloading JWT keys failed"),
                    Err(e) => tracing::warn!(error = %e, "reloading JWT keys failed"),
                }
            }
        })
    }
}

impl Shared {
    /// Primary (the default) or read replica.
    pub fn role(&self) -> &crate::role::Role {
        static PRIMARY: crate::role::Role = crate::role::Role::Primary;
        self.role.get().unwrap_or(&PRIMARY)
    }

    /// Whether the server is shutting down (`/readyz` then answers 503).
    pub fn stopping(&self) -> bool {
        self.stopping.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Marks the server as shutting down.
    pub fn set_stopping(&self) {
        self.stopping.store(true, std::sync::atomic::Ordering::Release);
    }

    /// The current JWT keys.
    pub fn jwt_keys(&self) -> arc_swap::Guard<Arc<JwtKeys>> {
        self.keys.load()
    }

    /// Re-reads the JWT keys and revoked JWT ids from the database now.
    pub fn reload_keys(&self) -> Result<(), crate::db::DbError> {
        let now = self.clock.now();
        self.keys.store(Arc::new(JwtKeys::load(&self.db, now)?));
        let stored = load_revoked(&self.db, now)?;
        self.revoked.rcu(|held| {
            let mut r: std::collections::HashMap<String, Timestamp> = held
                .iter()
                .filter(|(_, until)| **until > now)
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            r.extend(stored.iter().map(|(k, v)| (k.clone(), *v)));
            r
        });
        Ok(())
    }

    /// Whether a JWT id is revoked (and not yet expired) at `now`.
    pub fn jti_revoked(&self, jti: &str, now: Timestamp) -> bool {
        self.revoked.load().get(jti).is_some_and(|until| *until > now)
    }

    /// Records a revocation this process has just committed.
    pub fn note_revoked(&self, jti: String, until: Timestamp) {
        self.revoked.rcu(|held| {
            let mut r = std::collections::HashMap::clone(held);
            r.insert(jti.clone(), until);
            r
        });
    }

    /// Runs a password check (or hash) off the async workers, at most one per core at a
    /// time.
    pub async fn hash_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.hashing.acquire().await.ok()?;
        tokio::task::spawn_blocking(f).await.ok()
    }
}
