//! packaging/ kept in step with the code: every setting hearth reads is in the default
//! file, and every hearth command the units and the image run parses with this CLI.
//! (`scripts/test` checks the rest for real: `systemd-analyze verify`, hadolint, and the
//! Debian package built, listed, extracted and run.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use hearth::cli::Cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `env` of every option in the command tree.
fn clap_envs(cmd: &clap::Command, out: &mut BTreeSet<String>) {
    for arg in cmd.get_arguments() {
        if let Some(env) = arg.get_env() {
            out.insert(env.to_string_lossy().into_owned());
        }
    }
    for sub in cmd.get_subcommands() {
        clap_envs(sub, out);
    }
}

/// Every `HEARTH_…` name written in a Rust file under `dir`.
fn source_envs(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_envs(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, _) in text.match_indices("\"HEARTH_") {
                let name: String = text[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
}

/// The `NAME` of every `NAME=value` line of the default file, commented or not.
fn documented(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches('#').trim();
            let (name, _) = l.split_once('=')?;
            (name.starts_with("HEARTH_") || name == "RUST_LOG").then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn every_setting_hearth_reads_is_in_the_default_file() {
    let mut read_by_hearth = BTreeSet::new();
    clap_envs(&Cli::command(), &mut read_by_hearth);
    let mut in_source = BTreeSet::new();
    source_envs(&root().join("src"), &mut in_source);
    // the scan and clap agree, so neither can miss one
    assert_eq!(read_by_hearth, in_source, "clap envs vs \"HEARTH_\" in src/");
    assert!(read_by_hearth.contains("HEARTH_LISTEN"));
    assert!(read_by_hearth.len() >= 13, "{read_by_hearth:?}");

    let file = documented(&read("packaging/hearth.default"));
    let missing: Vec<&String> = read_by_hearth.difference(&file).collect();
    assert!(
        missing.is_empty(),
        "packaging/hearth.default does not document {missing:?}: add a commented line for each"
    );
    let unknown: Vec<&String> =
        file.iter().filter(|n| *n != "RUST_LOG" && !read_by_hearth.contains(*n)).collect();
    assert!(
        unknown.is_empty(),
        "packaging/hearth.default lists {unknown:?}, which hearth does not read"
    );
}

/// The words of a command line as the units write it (no quoting is used there).
fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

/// Parses a hearth command line with this CLI: the units and the image must not call
/// options that do not exist.
fn parses(argv: &[String]) {
    assert!(argv[0].ends_with("hearth"), "{argv:?}");
    if let Err(e) = Cli::try_parse_from(argv) {
        panic!("{argv:?} does not parse: {e}");
    }
}

#[test]
fn the_units_run_commands_this_hearth_has() {
    let mut seen = 0;
    for unit in ["hearth.service", "hearth-backup.service", "hearth-verify-replica.service"] {
        let text = read(&format!("packaging/{unit}"));
        for line in text.lines() {
            if let Some(cmd) = line.strip_prefix("ExecStart=") {
                parses(&words(cmd));
                assert!(cmd.starts_with("/usr/bin/hearth "), "{unit}: {cmd}");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 3);
    let service = read("packaging/hearth.service");
    for needed in [
        "Type=notify",
        "EnvironmentFile=-/etc/default/hearth",
        "StateDirectory=hearth",
        "User=hearth",
        "ProtectSystem=strict",
    ] {
        assert!(service.lines().any(|l| l == needed), "hearth.service: {needed}");
    }
    let backup = read("packaging/hearth-backup.service");
    assert!(backup.contains("ExecStart=/usr/bin/hearth backup /var/backups/hearth --keep 14"));
    let timer = read("packaging/hearth-backup.timer");
    assert!(timer.contains("OnCalendar=") && timer.contains("Persistent=true"));
    // the drill runs as the primary under Litestream does, on the files it shares
    let drill = read("packaging/hearth-verify-replica.service");
    let primary = read("packaging/hearth-litestream.service");
    for needed in ["DynamicUser=yes", "User=hearth", "StateDirectory=hearth"] {
        assert!(drill.lines().any(|l| l == needed), "hearth-verify-replica.service: {needed}");
        assert!(primary.lines().any(|l| l == needed), "hearth-litestream.service: {needed}");
    }
    let timer = read("packaging/hearth-verify-replica.timer");
    assert!(timer.contains("OnCalendar=hourly") && timer.contains("Persistent=true"));
}

/// The Dockerfile's instructions, continuation lines joined, comments dropped:
/// `(KEYWORD, rest)`.
fn instructions(dockerfile: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in dockerfile.lines() {
        let t = line.trim();
        if t.starts_with('#') || (t.is_empty() && current.is_empty()) {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(t);
                let (k, rest) = current.split_once(' ').unwrap_or((&current, ""));
                out.push((k.to_owned(), rest.trim().to_owned()));
                current.clear();
            }
        }
    }
    out
}

/// The one instruction `keyword` of the final stage.
fn last(ins: &[(String, String)], keyword: &str) -> String {
    ins.iter()
        .rev()
        .find(|(k, _)| k == keyword)
        .map(|(_, r)| r.clone())
        .unwrap_or_else(|| panic!("no {keyword} in the Dockerfile"))
}

fn exec_form(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{s:?} is not exec form: {e}"))
}

#[test]
fn the_image_runs_serve_as_a_user_and_probes_its_health() {
    let ins = instructions(&read("packaging/Dockerfile"));
    assert!(
        ins.iter().filter(|(k, _)| k == "FROM").count() >= 2,
        "a multi-stage build: the runtime image holds no toolchain"
    );
    let mut serve = exec_form(&last(&ins, "ENTRYPOINT"));
    serve.extend(exec_form(&last(&ins, "CMD")));
    assert_eq!(serve, ["hearth", "serve"]);
    parses(&serve);
    let health = last(&ins, "HEALTHCHECK");
    let (options, cmd) = health.split_once("CMD").unwrap();
    assert!(options.contains("--timeout="), "{health}");
    let probe = exec_form(cmd.trim());
    assert_eq!(probe, ["hearth", "probe"]);
    parses(&probe);
    assert_eq!(last(&ins, "VOLUME"), "[\"/var/lib/hearth\"]");
    assert!(last(&ins, "ENV").contains("HEARTH_DB=/var/lib/hearth/hearth.db"));
    let user = last(&ins, "USER");
    assert!(!user.starts_with("0") && !user.starts_with("root"), "runs as {user}");
}

/// `[package.metadata.deb]` as cargo reads it.
fn deb_metadata() -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["packages"][0]["metadata"]["deb"].clone()
}

#[test]
fn the_package_metadata_names_files_that_exist() {
    let deb = deb_metadata();
    let assets = deb["assets"].as_array().unwrap();
    let dests: Vec<&str> = assets.iter().map(|a| a[1].as_str().unwrap()).collect();
    for needed in [
        "usr/bin/",
        "etc/default/hearth",
        "usr/share/man/man1/",
        "usr/share/bash-completion/completions/hearth",
        "usr/share/zsh/vendor-completions/_hearth",
        "usr/share/fish/vendor_completions.d/hearth.fish",
    ] {
        assert!(dests.contains(&needed), "no asset for {needed}: {dests:?}");
    }
    for a in assets {
        let src = a[0].as_str().unwrap();
        // target/release/... is what scripts/package-deb builds and generates
        if !src.starts_with("target/release/") {
            assert!(root().join(src).is_file(), "asset {src} is missing");
        }
    }
    // hearth.service and hearth.sysusers are found by name; the backup units are assets
    for unit in ["hearth-backup.service", "hearth-backup.timer"] {
        assert!(
            assets
                .iter()
                .any(|a| a[0] == format!("packaging/{unit}") && a[1] == "usr/lib/systemd/system/"),
            "{unit} is not packaged"
        );
    }
    let units = &deb["systemd-units"];
    assert_eq!(units["unit-scripts"], "packaging");
    assert_eq!(units["enable"], true);
    // cargo-deb's start would start hearth-backup.service too: postinst starts the rest
    assert_eq!(units["start"], false);
    let postinst = read(&format!("{}/postinst", deb["maintainer-scripts"].as_str().unwrap()));
    assert_eq!(postinst.matches("#DEBHELPER#").count(), 1, "{postinst}");
    assert!(postinst.contains("deb-systemd-invoke start hearth.service hearth-backup.timer"));
    for file in
        ["hearth.service", "hearth-backup.service", "hearth-backup.timer", "hearth.sysusers"]
    {
        assert!(root().join("packaging").join(file).is_file(), "{file}");
    }
}
