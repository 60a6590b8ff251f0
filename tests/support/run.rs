//! Running the `hearth` binary as a process, shared by the test crates that do
//! (`tests/cli`, `tests/litestream`), each of which includes this file with `#[path]`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs the binary on `db` with `args`, `stdin` written to it, and waits.
pub fn hearth(db: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("HEARTH_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        // a command that refuses before it reads stdin closes the pipe: that is an
        // outcome for the test to judge, not a failure of the harness
        if let Err(e) = input.write_all(s.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    drop(input);
    child.wait_with_output().unwrap()
}

/// Whether `name` is an executable file in one of `PATH`'s directories.
pub fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(name))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Whether a test that needs `what` (a tool, the git history) can go on: `available`
/// says whether it is here. When it is not, under `HEARTH_FULL_TESTS=1` (scripts/test,
/// which installs every tool first) the test fails with `fix`; under a plain
/// `cargo test` (a fresh clone without the tools) it prints one SKIPPED line past
/// libtest's output capture and returns false, and the test returns early.
pub fn needs(what: &str, available: bool, fix: &str) -> bool {
    needs_for(None, what, available, fix)
}

/// [`needs`] for one `step` of a test whose other checks run without `what`.
pub fn needs_for(step: Option<&str>, what: &str, available: bool, fix: &str) -> bool {
    if available {
        return true;
    }
    assert!(
        std::env::var_os("HEARTH_FULL_TESTS").is_none_or(|v| v != "1"),
        "{what} is missing (HEARTH_FULL_TESTS=1: scripts/test runs every test); fix: {fix}"
    );
    let current = std::thread::current();
    let test = current.name().filter(|n| *n != "main").unwrap_or("a test");
    let skipped = step.map_or_else(|| test.to_owned(), |s| format!("{s} of {test}"));
    // straight to the stream: eprintln! is captured, and this line must be seen
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {skipped}: {what} missing; scripts/test installs it: {fix}"
    );
    false
}
