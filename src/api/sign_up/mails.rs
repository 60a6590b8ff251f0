//! The texts of the mails `account/...` sends: plain text, in English, naming the
//! community by its public URL. The links come from the site's URL templates
//! (`configurations.url_template_verify_email`, `url_template_password_recover`, with
//! `{validation_code}` where the code goes); without a template the mail carries the
//! code alone, which the site's page takes as typed.

use rusqlite::Connection;

use crate::state::AppState;

/// A mail's subject and body.
#[derive(Debug)]
pub struct Mail {
    pub subject: String,
    pub body: String,
}

/// The site's link templates.
#[derive(Debug, Clone, Default)]
pub struct Links {
    verify: String,
    recover: String,
}

impl Links {
    /// The templates as the preferences hold them (empty: none).
    pub fn read(conn: &Connection) -> rusqlite::Result<Links> {
        let text = |name: &str| -> rusqlite::Result<String> {
            Ok(crate::db::preferences::get(conn, "configurations", name)?
                .and_then(|p| p.value.as_str().map(str::to_owned))
                .unwrap_or_default())
        };
        Ok(Links {
            verify: text("url_template_verify_email")?,
            recover: text("url_template_password_recover")?,
        })
    }
}

/// "Open LINK, or enter this code", or the code alone without a template.
fn code_line(template: &str, code: &str) -> String {
    if template.contains("{validation_code}") {
        format!(
            "To go on, open this link:\n\n  {}\n\nor enter this code where you were asked for it:\n\n  {code}",
            template.replace("{validation_code}", code)
        )
    } else {
        format!("To go on, enter this code where you were asked for it:\n\n  {code}")
    }
}

fn site(state: &AppState) -> &str {
    &state.config.public_url.0
}

/// To the address of a new sign-up.
pub fn sign_up(username: &str, code: &str, links: &Links, state: &AppState) -> Mail {
    Mail {
        subject: format!("Confirm your account at {}", site(state)),
        body: format!(
            "Hello {username},\n\nsomeone, we hope you, asked for an account named {username} at {} with this address.\n\n{}\n\nThe code works once, for 24 hours. If it was not you, ignore this mail: no account is made without it.\n",
            site(state),
            code_line(&links.verify, code)
        ),
    }
}

/// To an address that already has an account, when someone signs up with it again.
pub fn already_member(username: &str, state: &AppState) -> Mail {
    Mail {
        subject: format!("You already have an account at {}", site(state)),
        body: format!(
            "Hello {username},\n\nsomeone, we hope you, asked for a new account at {} with this address. It already has one: {username}. If you forgot its password, ask for a new one with the site's password recovery form.\n\nIf it was not you, ignore this mail: nothing has changed.\n",
            site(state)
        ),
    }
}

/// To a member who asked to recover their password.
pub fn recover(username: &str, code: &str, links: &Links, state: &AppState) -> Mail {
    Mail {
        subject: format!("Set a new password at {}", site(state)),
        body: format!(
            "Hello {username},\n\nsomeone, we hope you, asked to set a new password for your account at {}.\n\n{}\n\nThe code works once, for one hour. If it was not you, ignore this mail: your password stays as it is.\n",
            site(state),
            code_line(&links.recover, code)
        ),
    }
}

/// To a member's new address, to prove it.
pub fn new_address(username: &str, code: &str, state: &AppState) -> Mail {
    Mail {
        subject: format!("Confirm your new address at {}", site(state)),
        body: format!(
            "Hello {username},\n\nyou asked to use this address for your account at {}.\n\n{}\n\nThe code works once, for 24 hours. If it was not you, ignore this mail: your account keeps its address.\n",
            site(state),
            code_line("", code)
        ),
    }
}
