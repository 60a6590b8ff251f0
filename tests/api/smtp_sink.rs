//! A mail sink for the sign-up tests: an SMTP server on 127.0.0.1:0 that takes every
//! message (RFC 5321's minimal dialogue: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT)
//! and keeps it, quoted-printable soft breaks undone, for the test to read.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// One message as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub to: Vec<String>,
    pub data: String,
}

/// The running sink.
#[derive(Clone)]
pub struct Sink {
    pub url: String,
    mails: Arc<Mutex<Vec<Received>>>,
    arrived: Arc<Notify>,
}

impl Sink {
    /// Starts a sink on a free loopback port.
    pub async fn start() -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("smtp://{}", listener.local_addr().unwrap());
        let sink = Sink { url, mails: Arc::default(), arrived: Arc::default() };
        let s = sink.clone();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                tokio::spawn(s.clone().session(conn));
            }
        });
        sink
    }

    async fn session(self, conn: tokio::net::TcpStream) {
        let (r, mut w) = conn.into_split();
        let mut lines = BufReader::new(r).lines();
        let _ = w.write_all(b"220 sink ESMTP\r\n").await;
        let mut to = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            let verb = line.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
            let reply: &[u8] = match verb.as_str() {
                "EHLO" | "HELO" => b"250-sink\r\n250 8BITMIME\r\n",
                "RCPT" => {
                    let addr = line.split_once(':').map_or("", |(_, a)| a).trim();
                    to.push(addr.trim_matches(['<', '>']).to_owned());
                    b"250 OK\r\n"
                }
                "DATA" => {
                    let _ = w.write_all(b"354 go on\r\n").await;
                    let mut data = String::new();
                    while let Ok(Some(l)) = lines.next_line().await {
                        if l == "." {
                            break;
                        }
                        data.push_str(l.strip_prefix('.').unwrap_or(&l));
                        data.push('\n');
                    }
                    let data = data.replace("=\n", "").replace("=3D", "=");
                    self.mails.lock().unwrap().push(Received { to: std::mem::take(&mut to), data });
                    self.arrived.notify_waiters();
                    b"250 kept\r\n"
                }
                "QUIT" => {
                    let _ = w.write_all(b"221 bye\r\n").await;
                    return;
                }
                "MAIL" | "RSET" | "NOOP" => b"250 OK\r\n",
                _ => b"502 not here\r\n",
            };
            if w.write_all(reply).await.is_err() {
                return;
            }
        }
    }

    /// Every message so far.
    pub fn mails(&self) -> Vec<Received> {
        self.mails.lock().unwrap().clone()
    }

    /// Waits (at most 10 s) until `n` messages have arrived, and returns them.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let notified = self.arrived.notified();
                if self.mails.lock().unwrap().len() >= n {
                    return self.mails();
                }
                notified.await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{n} mails did not arrive: {:?}", self.mails()))
    }
}

/// The code a mail carries: the line after "enter this code".
pub fn code_in(mail: &Received) -> String {
    let mut lines = mail.data.lines().skip_while(|l| !l.contains("enter this code"));
    lines.next();
    lines
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("no code in {}", mail.data))
        .trim()
        .to_owned()
}
