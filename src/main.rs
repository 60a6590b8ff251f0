//! The `hearth` binary: parse the command line, start logging, dispatch.

use clap::Parser;
use hearth::cli::Command;
use hearth::logs::{self, LogFormat};

/// jemalloc, configured in `.cargo/config.toml`: memory freed after a load goes back to
/// the system within a second or two (issue 17; `server::memory` empties SQLite's
/// caches once the load is over).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    let cli = hearth::cli::Cli::parse();
    // `serve` logs through a bounded queue in the format it was given; the other
    // commands write their few lines to stderr directly
    let guard = match &cli.command {
        Command::Serve(s) => logs::init(s.log_format, true),
        _ => logs::init(LogFormat::Text, false),
    };
    // output piped into a reader that stops early (`hearth pref list | head -3`): the
    // next `println!` panics on EPIPE (Rust ignores SIGPIPE). That panic is the quiet
    // end of the command, as for a program that SIGPIPE ends: no message, and the
    // unwinding closes the database as a return would
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !hearth::cli::is_closed_stdout(info.payload()) {
            default_hook(info);
        }
    }));
    let result =
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hearth::cli::run(cli))) {
            Ok(result) => result,
            Err(payload) if hearth::cli::is_closed_stdout(payload.as_ref()) => Ok(()),
            Err(payload) => std::panic::resume_unwind(payload),
        };
    // flush the queued lines before the error line, so it comes last
    drop(guard);
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
