//! `serve --smtp-url`: which relay, and how hearth talks to it.
//!
//! - `smtps://[user:pass@]host[:port]`: TLS from the first byte (port 465 by default);
//! - `smtp://[user:pass@]host[:port]?tls=required`: STARTTLS, refused if the relay does
//!   not offer it (port 587 by default);
//! - `smtp://host[:port]` without `tls=`: plain text, accepted only for a relay on the
//!   machine itself (a loopback address or `localhost`, port 25 by default): anywhere
//!   else a password or a recovery code would cross the network in the clear.
//!
//! This is lettre's own URL format; the loopback rule is hearth's.

use std::net::IpAddr;
use std::str::FromStr;

use lettre::{AsyncSmtpTransport, Tokio1Executor};

/// A checked `--smtp-url`.
#[derive(Clone, PartialEq, Eq)]
pub struct RelayUrl(String);

impl std::fmt::Debug for RelayUrl {
    /// Never the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RelayUrl({})", host(&self.0).unwrap_or("?"))
    }
}

impl FromStr for RelayUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let tls = s.starts_with("smtps://") || s.contains("tls=required");
        if !s.starts_with("smtp://") && !s.starts_with("smtps://") {
            return Err("an SMTP URL starts with smtp:// or smtps://".into());
        }
        let host = host(s).ok_or("an SMTP URL names a host: smtp://host:port")?;
        if !tls && !is_loopback(host) {
            return Err(format!(
                "{host} is not this machine: use smtps://{host} (TLS) or add ?tls=required (STARTTLS), so that passwords and codes are not sent in the clear"
            ));
        }
        let url = RelayUrl(s.to_owned());
        url.transport()?;
        Ok(url)
    }
}

impl RelayUrl {
    /// The transport lettre builds from the URL.
    pub(super) fn transport(&self) -> Result<AsyncSmtpTransport<Tokio1Executor>, String> {
        AsyncSmtpTransport::<Tokio1Executor>::from_url(&self.0)
            .map(|b| b.timeout(Some(std::time::Duration::from_secs(20))).build())
            .map_err(|e| format!("the SMTP URL is not one lettre reads: {e}"))
    }
}

/// The host of an `smtp[s]://` URL: after the scheme and any `user:pass@`, before the
/// port, path or query (`[v6]` without its brackets).
fn host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        hostport.split(':').next()?
    };
    (!host.is_empty()).then_some(host)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_only_to_this_machine() {
        for ok in [
            "smtp://127.0.0.1:2525",
            "smtp://localhost",
            "smtp://[::1]:25",
            "smtps://user:p%40ss@mail.example.org",
            "smtp://user:pass@mail.example.org:587?tls=required",
        ] {
            assert!(ok.parse::<RelayUrl>().is_ok(), "{ok}");
        }
        for bad in ["smtp://mail.example.org", "smtp://u:p@10.0.0.1:25", "http://x", "smtp://"] {
            assert!(bad.parse::<RelayUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_debug_form_hides_the_password() -> Result<(), String> {
        let url: RelayUrl = "smtps://user:secret@mail.example.org".parse()?;
        assert_eq!(format!("{url:?}"), "RelayUrl(mail.example.org)");
        Ok(())
    }
}
