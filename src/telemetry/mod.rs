//! What hearth tells an operator about itself (SPEC §7 "Logs" and "Metrics"): the
//! metric names and the functions that record them, and the security events, each a
//! WARN line of its own with an `event` and the client address.
//!
//! At the bottom of the layers (it imports nothing of the crate), so that the database,
//! the limits and the OAuth handlers record where things happen without a registry
//! handed down to them: metrics go through the `metrics` facade, which does nothing
//! until `serve --metrics-listen` installs the Prometheus recorder
//! (`crate::server::metrics`). Labels only ever take values from small fixed sets
//! (route templates, known methods, status codes, grant names), so the number of
//! series stays bounded whatever clients send.

pub mod tally;

use std::net::IpAddr;
use std::time::Duration;

use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram};

/// Requests answered, by `route` (template), `method` and `status`.
pub const HTTP_REQUESTS: &str = "hearth_http_requests_total";
/// Time from a request's headers to its response's headers, by `route` and `method`.
pub const HTTP_DURATION: &str = "hearth_http_request_duration_seconds";
/// Connections open on the public listener.
pub const HTTP_CONNECTIONS: &str = "hearth_http_connections_open";
/// Gauge: live sockets (`/ws/notify`) open.
pub const LIVE_SOCKETS: &str = "hearth_live_sockets_open";
/// Wait for a reader connection.
pub const DB_READ_WAIT: &str = "hearth_db_read_wait_seconds";
/// Wait for the writer connection.
pub const DB_WRITE_WAIT: &str = "hearth_db_write_wait_seconds";
/// Size of the database file.
pub const DB_SIZE: &str = "hearth_db_size_bytes";
/// Size of its write-ahead log.
pub const DB_WAL: &str = "hearth_db_wal_bytes";
/// Password checks, by `result` (`ok`, `wrong`).
pub const PASSWORD_CHECKS: &str = "hearth_password_checks_total";
/// Password checks refused by the brute-force limit.
pub const THROTTLED: &str = "hearth_throttled_total";
/// API writes refused by the per-user write quota, by `limit` (`rate`, `daily_bytes`,
/// `tracking`).
pub const WRITES_THROTTLED: &str = "hearth_writes_throttled_total";
/// Access tokens issued, by `grant`.
pub const TOKENS_ISSUED: &str = "hearth_tokens_issued_total";
/// Counter: mail for the relay, by outcome (`sent`, `refused`, `timeout`, `queue_full`).
pub const MAIL: &str = "hearth_mail_total";
/// Request bodies, decoded images and unsent large responses held in memory.
pub const BODY_MEMORY: &str = "hearth_body_memory_bytes";
/// The limit of [`BODY_MEMORY`] (`serve --max-body-memory`).
pub const BODY_MEMORY_LIMIT: &str = "hearth_body_memory_limit_bytes";
/// Security events, by `event`.
pub const SECURITY_EVENTS: &str = "hearth_security_events_total";
/// Log lines dropped because the log writer could not keep up.
pub const LOG_DROPPED: &str = "hearth_log_lines_dropped_total";
/// Counter: quiet spells after a load in which caches were emptied (`server::memory`).
pub const MEMORY_RELEASES: &str = "hearth_memory_releases_total";

/// Gauge: how long the oldest write Litestream has not copied has waited (SPEC §9).
pub const REPLICATION_LAG: &str = "hearth_replication_lag_seconds";
/// Gauge: 1 while writes are refused because Litestream is behind or gone, else 0.
pub const REPLICATION_HELD: &str = "hearth_replication_writes_held";

/// The `route` label of a request no endpoint template matched (404, 405 on an
/// unknown path, and routes not yet declared as endpoints).
pub const UNMATCHED: &str = "unmatched";

/// Histogram buckets of request durations, in seconds.
pub const DURATION_BUCKETS: [f64; 14] =
    [0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];
/// Histogram buckets of waits for a database connection, in seconds.
pub const WAIT_BUCKETS: [f64; 14] = [
    0.000_01, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.1, 0.5,
    1.0, 5.0,
];

/// Registers every metric's help text and unit with the installed recorder.
pub fn describe() {
    describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by route template, method and status."
    );
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "Time from a request's headers to its response's headers, by route template and method."
    );
    describe_gauge!(HTTP_CONNECTIONS, "Connections open on the public listener.");
    describe_gauge!(LIVE_SOCKETS, "Live sockets (/ws/notify) open.");
    describe_histogram!(DB_READ_WAIT, Unit::Seconds, "Wait for a database reader connection.");
    describe_histogram!(DB_WRITE_WAIT, Unit::Seconds, "Wait for the database writer connection.");
    describe_gauge!(DB_SIZE, Unit::Bytes, "Size of the database file.");
    describe_gauge!(
        REPLICATION_LAG,
        Unit::Seconds,
        "How long the oldest write Litestream has not copied yet has waited (0: it has them all)."
    );
    describe_gauge!(
        REPLICATION_HELD,
        "1 while writes are refused because Litestream is behind the lag limit or gone."
    );
    describe_gauge!(DB_WAL, Unit::Bytes, "Size of the database's write-ahead log (-wal file).");
    describe_counter!(
        PASSWORD_CHECKS,
        "Password checks (login form and password grant), by result."
    );
    describe_counter!(THROTTLED, "Password checks refused by the brute-force limit (429).");
    describe_counter!(
        WRITES_THROTTLED,
        "API writes refused by the per-user write quota (429), by limit."
    );
    describe_counter!(TOKENS_ISSUED, "Access tokens issued, by grant.");
    describe_counter!(MAIL, "Mail for the SMTP relay, by outcome.");
    describe_gauge!(
        BODY_MEMORY,
        Unit::Bytes,
        "Request bodies, decoded images and unsent large responses held in memory."
    );
    describe_gauge!(BODY_MEMORY_LIMIT, Unit::Bytes, "The limit on request bodies held in memory.");
    describe_counter!(SECURITY_EVENTS, "Security events (also logged at WARN), by event.");
    describe_counter!(LOG_DROPPED, "Log lines dropped because stderr did not keep up.");
    describe_counter!(
        MEMORY_RELEASES,
        "Quiet spells after a load in which page caches were emptied and memory returned."
    );
}

/// The `method` label: the standard methods, every other one as `other` (clients can
/// send any token as a method; each must not become a series).
pub fn method_label(m: &str) -> &'static str {
    match m {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

/// Records one answered request (its count and duration, by route, method and status).
pub fn http_request(route: &'static str, method: &'static str, status: u16, took: Duration) {
    tally::sample(tally::Key::Request(route, method, status), took);
}

/// Records how many live sockets are open.
pub fn live_sockets(open: usize) {
    metrics::gauge!(LIVE_SOCKETS).set(open as f64);
}

/// Records how long a read waited for its connection.
pub fn db_read_wait(waited: Duration) {
    tally::sample(tally::Key::ReadWait, waited);
}

/// Records how long a write waited for the writer.
pub fn db_write_wait(waited: Duration) {
    tally::sample(tally::Key::WriteWait, waited);
}

/// Records what became of a mail (`sent`, `refused`, `timeout`, `queue_full`).
pub fn mail(outcome: &'static str) {
    counter!(MAIL, "outcome" => outcome).increment(1);
}

/// Records a password check's result.
pub fn password_check(ok: bool) {
    counter!(PASSWORD_CHECKS, "result" => if ok { "ok" } else { "wrong" }).increment(1);
}

/// The grants that issue access tokens (the `grant` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// `authorization_code` at the token endpoint.
    AuthorizationCode,
    /// `password` at the token endpoint.
    Password,
    /// `refresh_token` at the token endpoint.
    RefreshToken,
    /// `response_type=token` at the authorization endpoint.
    Implicit,
}

impl Grant {
    /// The label value (the RFC 6749 grant name).
    pub fn as_str(self) -> &'static str {
        match self {
            Grant::AuthorizationCode => "authorization_code",
            Grant::Password => "password",
            Grant::RefreshToken => "refresh_token",
            Grant::Implicit => "implicit",
        }
    }
}

/// Records an access token issued.
pub fn token_issued(grant: Grant) {
    counter!(TOKENS_ISSUED, "grant" => grant.as_str()).increment(1);
}

/// Security events (SPEC §7): one WARN line each, with target `hearth::security`,
/// `event` and `client` first (so a fail2ban pattern anchors on
/// `event=NAME client=<HOST>` and nothing a client sends can stand before them), then
/// what was tried. Secrets never appear: no password, token, code or client secret is
/// a parameter of these functions.
pub mod security {
    use super::{IpAddr, SECURITY_EVENTS, THROTTLED, WRITES_THROTTLED, counter};

    /// At most this many characters of a name a client sent are logged.
    pub const MAX_LOGGED: usize = 150;

    /// A client-chosen name as logged: cut to [`MAX_LOGGED`] characters (a megabyte of
    /// username must not become a megabyte of log), and every character that is not a
    /// letter, a digit or one of `@.+-_` (all a username may hold, SPEC §4) written as
    /// `%XX` (its UTF-8 bytes). So no name can carry a space, `=`, `:`, a quote or a
    /// line break into a log line: it cannot spell `hearth::security: ... client=ADDR`
    /// and steer a log watcher (fail2ban) at someone else's address (issue 27, High 3).
    pub fn shown(s: &str) -> std::borrow::Cow<'_, str> {
        let cut = match s.char_indices().nth(MAX_LOGGED) {
            Some((i, _)) => &s[..i],
            None => s,
        };
        let plain = |c: char| c.is_alphanumeric() || matches!(c, '@' | '.' | '+' | '-' | '_');
        if cut.chars().all(plain) {
            return std::borrow::Cow::Borrowed(cut);
        }
        let mut out = String::with_capacity(cut.len() + 16);
        for c in cut.chars() {
            if plain(c) {
                out.push(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
        std::borrow::Cow::Owned(out)
    }

    fn count(event: &'static str) {
        counter!(SECURITY_EVENTS, "event" => event).increment(1);
    }

    /// A password check failed (wrong password, unknown user, or a user without one).
    pub fn login_failed(client: IpAddr, username: &str) {
        count("login_failed");
        let username = shown(username);
        tracing::warn!(target: "hearth::security", event = %"login_failed", client = %client, username = &*username, "security event");
    }

    /// A password check was refused by the brute-force limit.
    pub fn throttled(client: IpAddr, username: &str) {
        count("throttled");
        counter!(THROTTLED).increment(1);
        let username = shown(username);
        tracing::warn!(target: "hearth::security", event = %"throttled", client = %client, username = &*username, "security event");
    }

    /// An API write was refused by the per-user write quota (`limit`: `rate`,
    /// `daily_bytes`, `tracking`). Counted every time; logged when `log` (the quota
    /// logs a user at most once a minute, so a flood of refused writes is not a flood
    /// of lines). Not in the fail2ban filter: the writer is a known account, which a
    /// ban of its address would not stop (docs/operations.md).
    pub fn write_throttled(client: IpAddr, user_id: i64, limit: &'static str, log: bool) {
        counter!(WRITES_THROTTLED, "limit" => limit).increment(1);
        if log {
            count("write_throttled");
            tracing::warn!(target: "hearth::security", event = %"write_throttled", client = %client, user_id, limit, "security event");
        }
    }

    /// An authorization code was presented again (its tokens are revoked).
    pub fn code_reused(client: IpAddr) {
        count("code_reused");
        tracing::warn!(target: "hearth::security", event = %"code_reused", client = %client, "security event");
    }

    /// A rotated refresh token was presented again (its grant is revoked).
    pub fn refresh_reused(client: IpAddr) {
        count("refresh_reused");
        tracing::warn!(target: "hearth::security", event = %"refresh_reused", client = %client, "security event");
    }

    /// A form post of the browser pages carried no or the wrong CSRF token.
    pub fn csrf_rejected(client: IpAddr) {
        count("csrf_rejected");
        tracing::warn!(target: "hearth::security", event = %"csrf_rejected", client = %client, "security event");
    }

    /// A client failed to authenticate at the token or revocation endpoint.
    pub fn client_auth_failed(client: IpAddr, client_id: Option<&str>) {
        count("client_auth_failed");
        tracing::warn!(target: "hearth::security", event = %"client_auth_failed", client = %client, client_id = client_id.map(shown).as_deref(), "security event");
    }
}

/// A duration in milliseconds rounded to three decimals, as a number (so a log shows
/// `0.132`, not `0.13211799999999999`).
pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// Records a look at Litestream's progress (`crate::litestream`).
pub fn replication(lag: Duration, held: bool) {
    metrics::gauge!(REPLICATION_LAG).set(lag.as_secs_f64());
    metrics::gauge!(REPLICATION_HELD).set(if held { 1.0 } else { 0.0 });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_have_three_decimals() {
        assert_eq!(millis(Duration::from_nanos(132_117_999)).to_string(), "132.118");
        assert_eq!(millis(Duration::from_nanos(132_118)).to_string(), "0.132");
        assert_eq!(millis(Duration::from_nanos(499)).to_string(), "0");
        assert_eq!(
            serde_json::to_string(&millis(Duration::from_nanos(1_005_000))).ok(),
            Some("1.005".into())
        );
    }

    #[test]
    fn only_standard_methods_are_labels() {
        assert_eq!(method_label("GET"), "GET");
        assert_eq!(method_label("PURGE"), "other");
        assert_eq!(method_label("get"), "other");
    }

    #[test]
    fn client_names_are_cut() {
        let long = "é".repeat(1000);
        assert_eq!(security::shown(&long).chars().count(), security::MAX_LOGGED);
        assert_eq!(security::shown("bob"), "bob");
        assert_eq!(security::shown("ann.b+c@x-y_z"), "ann.b+c@x-y_z");
        assert_eq!(security::shown("Zoë"), "Zoë");
    }

    /// What fail2ban reads cannot be forged from a name: no space, `=`, `:`, quote or
    /// line break survives.
    #[test]
    fn client_names_cannot_spell_a_field() {
        let forged = "x hearth::security: security event event=login_failed client=203.0.113.77";
        assert_eq!(
            security::shown(forged),
            "x%20hearth%3A%3Asecurity%3A%20security%20event%20event%3Dlogin_failed%20client%3D203.0.113.77"
        );
        assert_eq!(security::shown("a\"b\nc"), "a%22b%0Ac");
    }
}
