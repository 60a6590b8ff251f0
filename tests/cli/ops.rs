//! The operator's commands (SPEC §7, §2): `serve` notifying systemd, `hearth probe`,
//! `hearth completions` and `hearth man`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixDatagram;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::Env;

/// Receives one notification datagram.
fn recv(sock: &UnixDatagram) -> String {
    let mut buf = [0u8; 4096];
    let n = sock.recv(&mut buf).expect("no notification within the timeout");
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

/// SPEC §7: READY=1 once it listens with the database open and migrated, STOPPING=1
/// when shutdown starts, on the socket systemd names in NOTIFY_SOCKET.
#[test]
fn serve_notifies_ready_then_stopping() {
    let e = Env::new();
    let path = e.dir.path().join("notify.sock");
    let sock = UnixDatagram::bind(&path).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // no `init`: serve creates the database before it says it is ready
    let (mut child, addr) =
        crate::spawn_serve_env(&e.db(), "127.0.0.1:0", &[], &[("NOTIFY_SOCKET", path.as_os_str())]);
    let ready = recv(&sock);
    let lines: Vec<&str> = ready.lines().collect();
    assert_eq!(lines, ["READY=1", &format!("STATUS=listening on http://{addr}")], "{ready:?}");
    // ready means ready: the first request after it is answered 200
    let answer = crate::get(&addr, "/readyz");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(e.sql("PRAGMA user_version") > 0);

    crate::sigterm(&child);
    assert_eq!(recv(&sock), "STOPPING=1\n");
    assert!(child.wait().unwrap().success());
    // nothing more, nothing twice
    sock.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 64];
    assert!(sock.recv(&mut buf).is_err(), "an extra notification");
}

/// A NOTIFY_SOCKET nobody listens on costs a warning, never the server.
#[test]
fn serve_runs_when_the_notify_socket_is_gone() {
    let e = Env::new();
    let gone = e.dir.path().join("nobody.sock");
    let (mut child, addr) =
        crate::spawn_serve_env(&e.db(), "127.0.0.1:0", &[], &[("NOTIFY_SOCKET", gone.as_os_str())]);
    assert!(crate::get(&addr, "/readyz").starts_with("HTTP/1.1 200"));
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
}

/// Runs `hearth probe ARGS` with only the given HEARTH_* variables.
fn probe(args: &[&str], env: &[(&str, &str)]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("probe")
        .args(args)
        .env_remove("HEARTH_LISTEN")
        .env_remove("HEARTH_DB")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, started.elapsed())
}

/// Probe failures exit 1 (not clap's 2) with one `error:` line naming the cause.
fn probe_fails(args: &[&str]) -> (String, Duration) {
    let (out, took) = probe(args, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    (err, took)
}

/// A server that answers every connection with `response` (after reading the request
/// head) and reports the request heads it read.
fn fake_server(response: &'static str) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let head = read_head(&mut s);
            let _ = s.write_all(response.as_bytes());
            if tx.send(head).is_err() {
                return;
            }
        }
    });
    (addr, rx)
}

fn read_head(s: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap_or(0) == 1 {
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

#[test]
fn probe_exits_0_when_a_real_server_is_ready() {
    let e = Env::new();
    e.init();
    let (mut child, addr) = crate::spawn_serve(&e.db(), "127.0.0.1:0", &[]);
    let url = format!("http://{addr}");
    let (out, _) = probe(&["--url", &url], &[]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.contains(&format!("{url}/readyz")) && said.contains("200"), "{said}");
    // by default the address `serve` would listen on: --listen, then HEARTH_LISTEN
    assert!(probe(&["--listen", &addr], &[]).0.status.success());
    assert!(probe(&[], &[("HEARTH_LISTEN", &addr)]).0.status.success());
    // an unspecified listen address is probed on loopback
    let port = addr.rsplit_once(':').unwrap().1;
    let any = format!("0.0.0.0:{port}");
    assert!(probe(&[], &[("HEARTH_LISTEN", &any)]).0.status.success());
    crate::sigterm(&child);
    assert!(child.wait().unwrap().success());
    // the server is gone: refused
    let (err, _) = probe_fails(&["--url", &url]);
    assert!(err.contains("cannot connect"), "{err}");
}

#[test]
fn probe_sends_one_get_of_readyz_and_needs_a_200() {
    let (addr, heads) = fake_server(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 23\r\n\r\n{\"status\":\"unavailable\"}",
    );
    let (err, _) = probe_fails(&["--url", &format!("http://{addr}/hearth/")]);
    assert!(err.contains("503"), "{err}");
    let head = heads.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(head.starts_with("GET /hearth/readyz HTTP/1.1\r\n"), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("host: {addr}\r\n")), "{head}");

    // a redirect is not ready either (it is not followed)
    let (addr, _) = fake_server(
        "HTTP/1.1 302 Found\r\nLocation: http://example.invalid/\r\nContent-Length: 0\r\n\r\n",
    );
    assert!(probe_fails(&["--url", &format!("http://{addr}")]).0.contains("302"));

    // the status is all that counts: any 200 is ready
    let (addr, _) = fake_server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    assert!(probe(&["--url", &format!("http://{addr}")], &[]).0.status.success());

    // not HTTP at all
    let (addr, _) = fake_server("SSH-2.0-OpenSSH_9.6\r\n\r\n");
    probe_fails(&["--url", &format!("http://{addr}")]);
}

#[test]
fn probe_gives_up_on_a_server_that_never_answers() {
    // accepts, reads the request, and says nothing
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (hold_tx, hold_rx) = mpsc::channel::<TcpStream>();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let _ = hold_tx.send(s);
        }
    });
    let url = format!("http://{addr}");
    let (err, took) = probe_fails(&["--url", &url, "--timeout-ms", "400"]);
    assert!(err.contains("no answer within 400 ms"), "{err}");
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(hold_rx.try_recv().is_ok(), "the probe never connected");

    // half a status line, then silence
    let (addr, _) = fake_server("HTTP/1.1 20");
    let (err, took) = probe_fails(&["--url", &format!("http://{addr}"), "--timeout-ms", "400"]);
    assert!(err.contains("no answer within") || err.contains("connection closed"), "{err}");
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

#[test]
fn probe_refuses_what_it_cannot_probe() {
    let free = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap().to_string();
    drop(free);
    let (err, took) = probe_fails(&["--url", &format!("http://{addr}")]);
    assert!(err.contains("cannot connect") && err.contains("refused"), "{err}");
    assert!(took < Duration::from_secs(3), "took {took:?}");
    let (err, _) = probe_fails(&["--listen", &addr]);
    assert!(err.contains("cannot connect"), "{err}");

    assert!(probe_fails(&["--url", "https://127.0.0.1:1"]).0.contains("plain http"));
    assert!(probe_fails(&["--url", "::"]).0.contains("not a URL"));
    assert!(probe_fails(&["--listen", "no-port"]).0.contains("host:port"));
    // clap's own usage errors keep their exit code 2
    let (out, _) = probe(&["--timeout-ms", "0"], &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn completions_cover_every_command_for_each_shell() {
    let e = Env::new();
    for (shell, marker) in [
        ("bash", "complete -F _hearth"),
        ("zsh", "#compdef hearth"),
        ("fish", "complete -c hearth"),
    ] {
        let script = e.ok(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script}");
        for sub in ["serve", "probe", "backup", "restore", "check", "completions", "man", "app"] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
        assert!(script.contains("--trusted-proxy"), "{shell}");
    }
    let dir = e.dir.path().join("completions");
    for shell in ["bash", "zsh", "fish"] {
        e.ok(&["completions", shell, "--dir", dir.to_str().unwrap()]);
    }
    assert_eq!(crate::file_names(&dir), ["_hearth", "hearth.bash", "hearth.fish"]);
    assert!(e.fails(&["completions", "tcsh"]).contains("invalid value"));
}

/// The generated bash completion is valid bash that completes subcommands.
#[test]
fn bash_completion_completes_subcommands() {
    let e = Env::new();
    let file = e.dir.path().join("hearth.bash");
    std::fs::write(&file, e.ok(&["completions", "bash"])).unwrap();
    let script = format!(
        "source {}; COMP_WORDS=(hearth pro); COMP_CWORD=1; _hearth hearth pro hearth; echo \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Command::new("bash").args(["--norc", "-c", &script]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "probe");
}

#[test]
fn man_prints_hearth_1_or_writes_every_page() {
    let e = Env::new();
    let page = e.ok(&["man"]);
    assert!(page.contains(".TH hearth 1"), "{page}");
    for sub in ["serve", "probe", "backup", "completions", "man"] {
        assert!(page.contains(&format!("hearth\\-{sub}(1)")), "{sub}");
    }
    let dir = e.dir.path().join("man");
    let said = e.ok(&["man", "--dir", dir.to_str().unwrap()]);
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert!(said.contains(&format!("wrote {count} man pages")), "{said}");
    let probe = std::fs::read_to_string(dir.join("hearth-probe.1")).unwrap();
    assert!(probe.contains("/readyz") && probe.contains("HEARTH_LISTEN"));
    assert!(dir.join("hearth-app-create.1").is_file());
    assert!(dir.join("hearth-jwt-secret.1").is_file());
    // a directory that cannot be made: one clear line
    let file = e.dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let bad = file.join("man");
    assert!(e.fails(&["man", "--dir", bad.to_str().unwrap()]).contains("cannot write into"));
}

/// man-db renders the pages without a warning from groff.
#[test]
fn man_pages_render_without_warnings() {
    assert!(
        Command::new("man").arg("--version").output().is_ok(),
        "man is missing; fix: apt-get install man-db"
    );
    let e = Env::new();
    let dir = e.dir.path().join("man");
    e.ok(&["man", "--dir", dir.to_str().unwrap()]);
    let out = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(dir.join("hearth-serve.1"))
        .env("MANWIDTH", "80")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains("HEARTH_TRUSTED_PROXIES"), "{text}");
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(warnings.trim().is_empty(), "{warnings}");
}
