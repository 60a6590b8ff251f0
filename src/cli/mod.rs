//! The command line (SPEC §2): clap definitions and one module per command group.

pub mod adv;
pub mod app;
pub mod backup;
pub mod banner;
pub mod category;
pub mod contact;
pub mod docs;
pub mod flag;
pub mod import;
pub mod init;
pub mod jwt;
pub mod legal;
pub mod maint;
pub mod menu;
pub mod page;
pub mod pref;
pub mod probe;
pub mod reaction;
pub mod restore;
pub mod serve;
pub mod tag;
pub mod user;
pub mod verify_replica;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::clock::Clock;
use crate::db::{Db, DbError};

/// hearth: a self-hosted community-platform API server (one binary, one SQLite file).
#[derive(Debug, Parser)]
#[command(name = "hearth", version, about)]
pub struct Cli {
    /// The database file.
    #[arg(long, global = true, env = "HEARTH_DB", default_value = "./hearth.db")]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the database: schema, JWT secret, default reactions and preferences.
    Init,
    /// Run the server (creates and initialises a missing database).
    Serve(Box<serve::ServeArgs>),
    /// Manage OAuth applications.
    #[command(subcommand)]
    App(app::AppCommand),
    /// Manage users.
    #[command(subcommand)]
    User(user::UserCommand),
    /// The JWT shared secret and test tokens.
    #[command(subcommand)]
    Jwt(jwt::JwtCommand),
    /// Dynamic preferences.
    #[command(subcommand)]
    Pref(pref::PrefCommand),
    /// Reactions.
    #[command(subcommand)]
    Reaction(reaction::ReactionCommand),
    /// Categories.
    #[command(subcommand)]
    Category(category::CategoryCommand),
    /// The links of the footer menus the UI kit shows.
    #[command(subcommand)]
    Menu(menu::MenuCommand),
    /// The advs the UI kit's CustomAdv slots show.
    #[command(subcommand)]
    Adv(adv::AdvCommand),
    /// The community's own pages (about us, rules...), read as custom pages.
    #[command(subcommand)]
    Page(page::PageCommand),
    /// The contact requests members sent staff.
    #[command(subcommand)]
    Contact(contact::ContactCommand),
    /// Broadcast banners: staff's messages to every member.
    #[command(subcommand)]
    Banner(banner::BannerCommand),
    /// Legal pages: the terms and the privacy policy members accept.
    #[command(subcommand)]
    Legal(legal::LegalCommand),
    /// The moderation queue: the contributions members flagged.
    #[command(subcommand)]
    Flag(flag::FlagCommand),
    /// User tags: staff's labels on members (profiles show the visible ones).
    #[command(subcommand)]
    Tag(tag::TagCommand),
    /// Load an NDJSON export (`-` reads stdin) in batched transactions.
    Import {
        /// The file (one JSON object per line, its kind under "record"); `-` reads stdin.
        file: PathBuf,
        /// Lines per transaction: a bad line rolls back only its batch.
        #[arg(long, default_value_t = import::BATCH_LINES, value_parser = clap::value_parser!(u64).range(1..))]
        batch_lines: u64,
    },
    /// Consistent online copy of the database (safe while the server runs).
    Backup {
        /// Where to write the copy: a new file, or an existing directory, where the copy
        /// is named <db name>-<UTC time>.db (e.g. hearth-20261123T150102Z.db).
        dest: PathBuf,
        /// With a directory DEST: after the copy, remove the oldest dated copies of this
        /// database there so that N remain (the new one always stays).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        keep: Option<u64>,
    },
    /// Put a backup in place of the database (refused while any hearth process has
    /// it open). The backup is checked and migrated on a copy, never changed; the
    /// replaced database is kept as <db>.replaced-<UTC time>.
    Restore {
        /// The backup (a hearth database file, e.g. made by `hearth backup`).
        src: PathBuf,
        /// Do not keep the replaced database.
        #[arg(long)]
        discard_current: bool,
    },
    /// Integrity check plus hearth's own invariants; exit 1 on any problem.
    Check {
        /// Machine-readable output: a list of {"check", "problem", "count"}.
        #[arg(long)]
        json: bool,
    },
    /// Restore drill: restore the latest Litestream replica of the database to a
    /// temporary file, run `hearth check` on it and compare its replication position
    /// with the live file's; exit 1 with a one-line reason when any of it fails.
    VerifyReplica(verify_replica::VerifyArgs),
    /// Whether a running server is ready: GET /readyz; exit 0 on 200, 1 otherwise
    /// (refused, another status, or no answer within 5 s).
    Probe(probe::ProbeArgs),
    /// Shell completions (bash, zsh, fish, elvish, powershell) on stdout or into a
    /// directory.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
        /// Write the file into this directory (under the name the shell looks for)
        /// instead of stdout.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// The man pages: hearth(1) on stdout, or one page per command into a directory.
    Man {
        /// Write every page (hearth.1, hearth-serve.1, hearth-app-create.1, ...) into
        /// this directory instead of hearth(1) on stdout.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// A command failure: one line for the user.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<DbError> for CliError {
    fn from(e: DbError) -> Self {
        CliError(e.to_string())
    }
}

impl From<rusqlite::Error> for CliError {
    fn from(e: rusqlite::Error) -> Self {
        CliError(format!("database: {e}"))
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError(e.to_string())
    }
}

impl crate::db::Fault for CliError {
    /// A command reports every failure itself; nothing watches its writer's health.
    fn is_storage_fault(&self) -> bool {
        false
    }
}

/// Shorthand for command results.
pub type CliResult<T = ()> = Result<T, CliError>;

/// Opens an existing database for a management command (a missing file is an error
/// that says how to create one). A database Litestream replicates (its
/// `.<name>-litestream` directory is beside it) is never checkpointed by the command.
pub fn open_existing(path: &Path) -> CliResult<Db> {
    if !path.exists() {
        // (with HEARTH_DB set, `--db` on the command line still names the same file)
        let init = format!("`hearth --db {} init`", path.display());
        let dir = crate::db::location::directory(path);
        return Err(CliError(match crate::db::location::missing_directory(path) {
            Some(_) if !dir.exists() => format!(
                "no database at {}: the directory {} does not exist (create it with `mkdir -p {}`, then run {init})",
                path.display(),
                dir.display(),
                dir.display()
            ),
            Some(why) => format!("no database at {}: {why}", path.display()),
            None => format!("no database at {} (run {init} first)", path.display()),
        }));
    }
    let db = Db::open(path)?;
    // Litestream's directory beside the file: it replicates this database, and a
    // command run beside it (or beside its -exec hearth) must not checkpoint either
    // (SPEC §9, issue 28)
    if crate::litestream::metadata_dir(path).is_dir() {
        db.set_replicated()?;
    }
    Ok(db)
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CliResult {
    let clock = Clock::system();
    match cli.command {
        Command::Init => init::run(&cli.db, &clock),
        Command::Serve(args) => serve::run(&cli.db, *args, clock),
        Command::App(c) => app::run(&open_existing(&cli.db)?, c, &clock),
        Command::User(c) => user::run(&open_existing(&cli.db)?, c, &clock),
        Command::Jwt(c) => jwt::run(&open_existing(&cli.db)?, c, &clock),
        Command::Pref(c) => pref::run(&open_existing(&cli.db)?, c),
        Command::Reaction(c) => reaction::run(&open_existing(&cli.db)?, c),
        Command::Category(c) => category::run(&open_existing(&cli.db)?, c, &clock),
        Command::Menu(c) => menu::run(&open_existing(&cli.db)?, c, &clock),
        Command::Adv(c) => adv::run(&open_existing(&cli.db)?, c, &clock),
        Command::Page(c) => page::run(&open_existing(&cli.db)?, c, &clock),
        Command::Contact(c) => contact::run(&open_existing(&cli.db)?, c),
        Command::Banner(c) => banner::run(&open_existing(&cli.db)?, c, &clock),
        Command::Legal(c) => legal::run(&open_existing(&cli.db)?, c, &clock),
        Command::Flag(c) => flag::run(&open_existing(&cli.db)?, c),
        Command::Tag(c) => tag::run(&open_existing(&cli.db)?, c, &clock),
        Command::Import { file, batch_lines } => {
            import::run(&open_existing(&cli.db)?, &file, batch_lines, &clock)
        }
        Command::Backup { dest, keep } => {
            let keep = keep.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            backup::run(&open_existing(&cli.db)?, &dest, keep, &clock)
        }
        // never `open_existing`: that would hold the database open (and locked)
        Command::Restore { src, discard_current } => {
            restore::run(&cli.db, &src, discard_current, &clock)
        }
        Command::Check { json } => maint::check(&open_existing(&cli.db)?, json),
        // never `open_existing`: the live file is only read, through a read-only connection
        Command::VerifyReplica(args) => verify_replica::run(&cli.db, &args, &clock),
        Command::Probe(args) => probe::run(&args),
        Command::Completions { shell, dir } => docs::completions(shell, dir.as_deref()),
        Command::Man { dir } => docs::man(dir.as_deref()),
    }
}

/// `text` is 1 to `max` characters and not blank, or the one-line error naming `what`.
pub fn check_length(what: &str, text: &str, max: usize) -> CliResult {
    if text.trim().is_empty() || text.chars().count() > max {
        return Err(CliError(format!("{what} must be 1 to {max} characters")));
    }
    Ok(())
}

/// Whether a panic's payload is `println!`'s on a closed stdout ("failed printing to
/// stdout: Broken pipe (os error 32)"): the reader of the command's output is gone.
pub fn is_closed_stdout(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    text.is_some_and(|t| {
        t.starts_with("failed printing to stdout") && t.contains(&format!("(os error {EPIPE})"))
    })
}

/// `EPIPE` on Linux (and every Unix hearth builds on).
const EPIPE: i32 = 32;

/// `n` and the noun that agrees with it: "1 line", "2 lines".
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints a JSON value on one line.
pub fn print_json(v: &serde_json::Value) {
    println!("{v}");
}

/// Prints a list: with `--json` one JSON array of `to_json(item)`, else `line(item)` for
/// each item.
pub fn print_list<T>(
    list: &[T],
    json: bool,
    to_json: impl Fn(&T) -> serde_json::Value,
    line: impl Fn(&T),
) {
    if json {
        print_json(&serde_json::Value::Array(list.iter().map(to_json).collect()));
    } else {
        list.iter().for_each(line);
    }
}

/// Runs a write transaction with CLI errors.
pub fn write<T>(
    db: &Db,
    f: impl FnOnce(&rusqlite::Transaction<'_>) -> CliResult<T>,
) -> CliResult<T> {
    db.write_blocking(f).map_err(|e| {
        // SQLite opens a file this user may not write read-only, and says only this
        // (SQLITE_READONLY) at the first write: name the file and the fix
        if e.0.contains("attempt to write a readonly database") {
            let e = crate::db::location::explain(db.path(), DbError::NotHearth(e.0), false);
            CliError(e.to_string())
        } else {
            e
        }
    })
}

/// Runs a read with CLI errors.
pub fn read<T>(db: &Db, f: impl FnOnce(&rusqlite::Connection) -> CliResult<T>) -> CliResult<T> {
    db.read_blocking(f)
}
