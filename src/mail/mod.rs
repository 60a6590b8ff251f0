//! Outgoing mail (SPEC §10 People: sign-up, recovery, address changes) through the SMTP
//! relay the operator names (`serve --smtp-url`). Off without one: the routes that mail
//! say so and change nothing.
//!
//! A request never waits on the relay: it queues its message ([`Mailer::send`]) and one
//! task sends the queue in order. The queue is bounded; a full queue refuses the
//! request's mail (the route answers 503 and changes nothing), so a slow relay costs
//! memory in proportion to [`QUEUE`], never to the load. A message the relay refuses is
//! logged (its recipient's domain, never the address or the body: it holds a code) and
//! counted in `hearth_mail_total{outcome}`; the member asks again.

mod relay;

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tokio::sync::mpsc;

pub use relay::RelayUrl;

/// Messages waiting for the relay at most.
pub const QUEUE: usize = 256;

/// How long one message may take at the relay (connect, TLS, the dialogue).
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a message was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailError {
    /// The recipient is no mail address.
    Address,
    /// The queue is full: the relay is slow or down.
    Full,
}

/// The relay and the queue to it.
#[derive(Debug)]
pub struct Mailer {
    from: Mailbox,
    queue: mpsc::Sender<Message>,
}

impl Mailer {
    /// Checks `url` and `from`, and starts the task that sends the queue (on the
    /// current Tokio runtime).
    pub fn start(url: &RelayUrl, from: &str) -> Result<Mailer, String> {
        let from: Mailbox = from.parse().map_err(|e| format!("--mail-from {from:?}: {e}"))?;
        let transport = url.transport()?;
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| "the mailer needs a running Tokio runtime".to_owned())?;
        let (queue, rx) = mpsc::channel(QUEUE);
        runtime.spawn(deliver(transport, rx));
        Ok(Mailer { from, queue })
    }

    /// Queues a plain-text message to `to`. `subject` and `body` are ours; what a
    /// member wrote may appear in them only as plain text (the builder encodes headers:
    /// no line break reaches the header block).
    pub fn send(&self, to: &str, subject: &str, body: String) -> Result<(), MailError> {
        let to: Mailbox = to.parse().map_err(|_| MailError::Address)?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .map_err(|_| MailError::Address)?;
        self.queue.try_send(message).map_err(|_| {
            crate::telemetry::mail("queue_full");
            MailError::Full
        })
    }
}

/// Sends each queued message, one at a time, until the queue's senders are gone.
async fn deliver(transport: AsyncSmtpTransport<Tokio1Executor>, mut rx: mpsc::Receiver<Message>) {
    while let Some(message) = rx.recv().await {
        let domain =
            message.envelope().to().first().map(|a| a.domain().to_owned()).unwrap_or_default();
        match tokio::time::timeout(SEND_TIMEOUT, transport.send(message)).await {
            Ok(Ok(_)) => crate::telemetry::mail("sent"),
            Ok(Err(e)) => {
                crate::telemetry::mail("refused");
                tracing::warn!(domain, error = %e, "the mail relay did not take a message");
            }
            Err(_) => {
                crate::telemetry::mail("timeout");
                tracing::warn!(domain, "the mail relay timed out on a message");
            }
        }
    }
}
