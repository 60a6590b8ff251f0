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
