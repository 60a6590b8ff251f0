//! hearth's fail2ban filter run by the real `fail2ban-regex` (scripts/test installs
//! fail2ban and fails these tests without it; a plain `cargo test` skips them with a
//! SKIPPED line: `crate::run::needs`).

use std::process::Command;

/// The one-line fix when the tool is missing.
const FIX: &str = "apt-get install fail2ban";

/// Whether `fail2ban-regex` is here (else the test skips or fails: `crate::run::needs`).
pub fn present() -> bool {
    crate::run::needs("fail2ban-regex", crate::run::on_path("fail2ban-regex"), FIX)
}

/// [`present`] for the fail2ban step of a test whose other checks run without it.
pub fn present_for_step() -> bool {
    crate::run::needs_for(
        Some("the fail2ban step"),
        "fail2ban-regex",
        crate::run::on_path("fail2ban-regex"),
        FIX,
    )
}

/// The addresses `fail2ban-regex` finds in `lines` with hearth's filter
/// (`docs/fail2ban/filter.d/hearth.conf`), in order.
pub fn hosts(lines: &[String]) -> Vec<String> {
    let filter = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fail2ban/filter.d/hearth.conf");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hearth.log");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let out = Command::new("fail2ban-regex")
        .args(["-o", "ip"])
        .arg(&log)
        .arg(filter)
        .output()
        .unwrap_or_else(|e| panic!("fail2ban-regex does not run ({e}); fix: {FIX}"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

const VICTIM: &str = "203.0.113.77";

/// Usernames that try to write a second event, naming the victim, into the line.
fn forged_names() -> Vec<String> {
    vec![
        format!("x hearth::security: security event event=login_failed client={VICTIM}"),
        format!("x\" hearth::security: security event event=login_failed client={VICTIM}"),
        format!(
            "x\",\"message\":\"security event\",\"event\":\"login_failed\",\"client\":\"{VICTIM}"
        ),
        format!("x\nevent=login_failed client={VICTIM}"),
        format!("  WARN hearth::security: security event event=login_failed client={VICTIM} "),
        format!(
            "{{\"level\":\"WARN\",\"message\":\"security event\",\"event\":\"throttled\",\"client\":\"{VICTIM}\""
        ),
    ]
}

/// A line as hearth wrote it before usernames were escaped (issue 27, High 3): the
/// filter alone must hold against them, whatever the name holds.
fn raw_line(json: bool, i: usize, name: &str) -> String {
    let ts = format!("2026-11-27T02:20:0{i}.620758Z");
    if json {
        let name = serde_json::to_string(name).unwrap();
        format!(
            r#"{{"timestamp":"{ts}","level":"WARN","message":"security event","event":"login_failed","client":"127.0.0.1","username":{name},"target":"hearth::security","span":{{"request_id":"forged-{i}","name":"request"}}}}"#
        )
    } else {
        format!(
            r#"{ts}  WARN request{{request_id="forged-{i}"}}: hearth::security: security event event=login_failed client=127.0.0.1 username={name:?}"#
        )
    }
}

/// The documented filter takes the address from each format's own field, never from a
/// username, for both formats; today's text lines and JSON lines both still match.
/// (The filter of main matched the text pattern inside a JSON line's username and
/// banned 203.0.113.77.)
#[test]
fn forged_usernames_cannot_steer_the_filter() {
    if !present() {
        return;
    }
    for json in [true, false] {
        let lines: Vec<String> =
            forged_names().iter().enumerate().map(|(i, n)| raw_line(json, i, n)).collect();
        let found = hosts(&lines);
        assert_eq!(found, vec!["127.0.0.1".to_owned(); lines.len()], "json={json}: {lines:#?}");
    }
}

/// The lines of hearth's own username escaping (telemetry::security::shown): the
/// forged text cannot even be spelt, and the filter still finds the real address.
#[test]
fn escaped_usernames_are_matched_by_their_real_address() {
    if !present() {
        return;
    }
    for json in [true, false] {
        let lines: Vec<String> = forged_names()
            .iter()
            .enumerate()
            .map(|(i, n)| raw_line(json, i, &hearth::telemetry::security::shown(n)))
            .collect();
        for l in &lines {
            let fields = l.matches("client=").count() + l.matches("\"client\":").count();
            assert_eq!(fields, 1, "{l}");
        }
        assert_eq!(hosts(&lines), vec!["127.0.0.1".to_owned(); lines.len()], "json={json}");
    }
}

/// A client's `X-Request-Id` (any printable ASCII without spaces) is written escaped
/// in the text span: quotes, backslashes and braces in it hide no event.
#[test]
fn request_ids_cannot_hide_an_event() {
    if !present() {
        return;
    }
    let lines: Vec<String> = [r#"a\"b"#, r#"a\\\"}:"#, "x}:", r#"\"}:hearth::security:"#]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            format!(
                r#"2026-11-27T02:47:1{i}.5Z  WARN request{{request_id="{id}"}}: hearth::security: security event event=login_failed client=198.51.100.{i} username="u""#
            )
        })
        .collect();
    let want: Vec<String> = (0..4).map(|i| format!("198.51.100.{i}")).collect();
    assert_eq!(hosts(&lines), want, "{lines:#?}");
}

/// Lines of other levels, targets and events are never matched.
#[test]
fn only_banned_events_match() {
    if !present() {
        return;
    }
    let lines = vec![
        r#"2026-11-27T02:20:01.1Z  INFO request{request_id="a"}: hearth::access: request method=POST route="/oauth/token/" status=400 client=198.51.100.1"#.to_owned(),
        r#"2026-11-27T02:20:02.1Z  WARN request{request_id="b"}: hearth::security: security event event=csrf_rejected client=198.51.100.2"#.to_owned(),
        r#"{"timestamp":"2026-11-27T02:20:03.1Z","level":"INFO","message":"security event","event":"login_failed","client":"198.51.100.3"}"#.to_owned(),
        r#"2026-11-27T02:20:04.1Z  WARN request{request_id="c"}: hearth::security: security event event=throttled client=198.51.100.4 username="bob""#.to_owned(),
        r#"{"timestamp":"2026-11-27T02:20:05.1Z","level":"WARN","message":"security event","event":"client_auth_failed","client":"2001:db8::5","client_id":"x"}"#.to_owned(),
        // the write quota's refusals: a known account, not an address to ban
        r#"2026-11-27T02:20:06.1Z  WARN request{request_id="d"}: hearth::security: security event event=write_throttled client=198.51.100.6 user_id=7 limit="rate""#.to_owned(),
        r#"{"timestamp":"2026-11-27T02:20:07.1Z","level":"WARN","message":"security event","event":"write_throttled","client":"198.51.100.7","user_id":7,"limit":"daily_bytes"}"#.to_owned(),
    ];
    assert_eq!(hosts(&lines), vec!["198.51.100.4".to_owned(), "2001:db8::5".to_owned()]);
}
