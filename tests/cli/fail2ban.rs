//! hearth's fail2ban filter run by the real `fail2ban-regex` (when installed).

use std::process::Command;

/// The addresses `fail2ban-regex` finds in `lines` with hearth's filter
/// (`docs/fail2ban/filter.d/hearth.conf`), or `None` when fail2ban is not installed.
pub fn hosts(lines: &[String]) -> Option<Vec<String>> {
    let filter = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fail2ban/filter.d/hearth.conf");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hearth.log");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let out =
        Command::new("fail2ban-regex").args(["-o", "ip"]).arg(&log).arg(filter).output().ok()?;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect())
}
