//! `hearth completions SHELL` and `hearth man`: generated from the clap definitions
//! (clap_complete, clap_mangen), so they never drift from `--help`.
//!
//! Man pages come one per command, as git's do: `hearth(1)` lists the commands and names
//! their pages (`hearth-serve(1)`, `hearth-app-create(1)`, ...). Without `--dir`, `hearth
//! man` prints `hearth(1)` alone; with `--dir` it writes every page of the tree.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

use super::{Cli, CliError, CliResult};

/// The command tree as the generators see it (`help` is no command of its own).
fn command() -> clap::Command {
    Cli::command().disable_help_subcommand(true)
}

/// Writes the completion script for `shell` to stdout, or into `dir` (made if missing)
/// under the name that shell looks for (`hearth.bash`, `_hearth`, `hearth.fish`, ...).
pub fn completions(shell: Shell, dir: Option<&Path>) -> CliResult {
    let mut cmd = command();
    match dir {
        Some(dir) => {
            let path = std::fs::create_dir_all(dir)
                .and_then(|()| clap_complete::generate_to(shell, &mut cmd, "hearth", dir))
                .map_err(|e| CliError(format!("cannot write into {}: {e}", dir.display())))?;
            println!("wrote {}", path.display());
        }
        None => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, "hearth", &mut out);
            std::io::stdout().lock().write_all(&out)?;
        }
    }
    Ok(())
}

/// Writes `hearth(1)` to stdout, or every page of the command tree into `dir` (made if
/// missing).
pub fn man(dir: Option<&Path>) -> CliResult {
    match dir {
        Some(dir) => {
            let written = std::fs::create_dir_all(dir)
                .and_then(|()| man_pages_to(dir))
                .map_err(|e| CliError(format!("cannot write into {}: {e}", dir.display())))?;
            println!("wrote {} man pages into {}", written.len(), dir.display());
        }
        None => {
            let mut out = Vec::new();
            page(command()).render(&mut out)?;
            std::io::stdout().lock().write_all(&out)?;
        }
    }
    Ok(())
}

/// One command's page, every page naming this hearth's version as its source.
fn page(cmd: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd)
        .source(concat!("hearth ", env!("CARGO_PKG_VERSION")))
        .manual("hearth manual")
}

/// Writes one page per command, recursively; returns their paths.
fn man_pages_to(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(cmd: &clap::Command, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        out.push(page(cmd.clone()).generate_to(dir)?);
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, dir, out)?;
        }
        Ok(())
    }
    let mut cmd = command();
    // names each subcommand `hearth-app-create`, as the pages refer to each other
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, dir, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn every_command_gets_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let pages = man_pages_to(dir.path()).unwrap();
        let names: Vec<String> =
            pages.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        for page in [
            "hearth.1",
            "hearth-serve.1",
            "hearth-probe.1",
            "hearth-app.1",
            "hearth-app-create.1",
            "hearth-backup.1",
        ] {
            assert!(names.iter().any(|n| n == page), "{page} missing: {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
        let serve = std::fs::read_to_string(dir.path().join("hearth-serve.1")).unwrap();
        assert!(serve.contains("trusted\\-proxy"), "{serve}");
        assert!(serve.contains("HEARTH_LISTEN"), "{serve}");
    }
}
