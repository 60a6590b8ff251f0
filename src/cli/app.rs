//! `hearth app ...`: OAuth applications.

use clap::{Args, Subcommand};
use serde_json::json;

use super::{CliError, CliResult, print_json, read, write};
use crate::clock::{Clock, rfc3339};
use crate::db::Db;
use crate::db::apps::{self, App, AppGrant};
use crate::token;

/// Longest app name and description (SPEC §6).
pub const TEXT_MAX: usize = 255;

/// App subcommands.
#[derive(Debug, Subcommand)]
pub enum AppCommand {
    /// Register an application; prints its client_id and secret_key (shown only here).
    Create(CreateArgs),
    /// List applications.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Show one application.
    Show {
        /// Its client_id.
        client_id: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Delete an application and revoke its tokens.
    Delete {
        /// Its client_id.
        client_id: String,
    },
    /// Make a new secret (the old one stops working); prints it.
    RotateSecret {
        /// Its client_id.
        client_id: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Options of `app create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Name shown on the consent page (at most 255 characters).
    #[arg(long)]
    pub name: String,
    /// authorization-code, implicit or password.
    #[arg(long, value_parser = ["authorization-code", "implicit", "password"])]
    pub grant: String,
    /// A redirect URI (repeatable): absolute, no fragment. Required for
    /// authorization-code and implicit apps.
    #[arg(long = "redirect-uri")]
    pub redirect_uris: Vec<String>,
    /// Description shown on the consent page (at most 255 characters).
    #[arg(long, default_value = "")]
    pub description: String,
    /// Image URL shown on the consent page.
    #[arg(long, default_value = "")]
    pub image: String,
    /// A public client (no secret required). Default for implicit and password apps.
    #[arg(long, conflicts_with = "confidential")]
    pub public: bool,
    /// A confidential client (must present its secret). Default for authorization-code apps.
    #[arg(long)]
    pub confidential: bool,
    /// Skip the consent page (first-party apps).
    #[arg(long)]
    pub skip_consent: bool,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// Checks a redirect URI: absolute (with a scheme, and a host for http/https), no
/// fragment (RFC 6749 §3.1.2).
pub fn validate_redirect_uri(uri: &str) -> Result<(), String> {
    let parsed = url::Url::parse(uri)
        .map_err(|e| format!("redirect URI {uri:?} is not an absolute URI ({e})"))?;
    if uri.contains('#') || parsed.fragment().is_some() {
        return Err(format!("redirect URI {uri:?} must not have a fragment"));
    }
    if matches!(parsed.scheme(), "http" | "https") && parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("redirect URI {uri:?} has no host"));
    }
    if uri.chars().any(char::is_whitespace) {
        return Err(format!("redirect URI {uri:?} must not contain whitespace"));
    }
    Ok(())
}

fn validate(args: &CreateArgs, grant: AppGrant) -> CliResult {
    let name_len = args.name.chars().count();
    if args.name.trim().is_empty() {
        return Err(CliError("app name must not be empty".into()));
    }
    if name_len > TEXT_MAX {
        return Err(CliError(format!(
            "app name is {name_len} characters; at most {TEXT_MAX} allowed"
        )));
    }
    let desc_len = args.description.chars().count();
    if desc_len > TEXT_MAX {
        return Err(CliError(format!(
            "app description is {desc_len} characters; at most {TEXT_MAX} allowed"
        )));
    }
    if args.redirect_uris.is_empty() && grant != AppGrant::Password {
        return Err(CliError(format!(
            "a {} app needs at least one --redirect-uri",
            grant.as_str()
        )));
    }
    for uri in &args.redirect_uris {
        validate_redirect_uri(uri).map_err(CliError)?;
    }
    if !args.image.is_empty() {
        validate_redirect_uri(&args.image)
            .map_err(|_| CliError(format!("image {:?} is not an absolute URL", args.image)))?;
    }
    Ok(())
}

fn app_json(a: &App, secret: Option<&str>) -> serde_json::Value {
    let mut v = json!({
        "id": a.id,
        "client_id": a.client_id,
        "name": a.name,
        "description": a.description,
        "image": a.image,
        "grant": a.grant.as_str(),
        "client_type": if a.confidential { "confidential" } else { "public" },
        "skip_consent": a.skip_consent,
        "redirect_uris": a.redirect_uris,
        "created_at": rfc3339(a.created_at),
    });
    if let Some(s) = secret {
        v["secret_key"] = json!(s);
    }
    v
}

fn print_app(a: &App, secret: Option<&str>, as_json: bool) {
    if as_json {
        print_json(&app_json(a, secret));
        return;
    }
    println!("client_id:     {}", a.client_id);
    if let Some(s) = secret {
        println!("secret_key:    {s}   (shown only now; store it safely)");
    }
    println!("name:          {}", a.name);
    println!("grant:         {}", a.grant.as_str());
    println!(
        "client type:   {}",
        if a.confidential {
            "confidential"
        } else {
            "public"
        }
    );
    println!("skip consent:  {}", a.skip_consent);
    println!("redirect URIs: {}", a.redirect_uris.join(" "));
    if !a.description.is_empty() {
        println!("description:   {}", a.description);
    }
}

fn find(db: &Db, client_id: &str) -> CliResult<App> {
    let id = client_id.to_owned();
    read(db, move |c| {
        apps::by_client_id(c, &id).map_err(CliError::from)
    })?
    .ok_or_else(|| CliError(format!("no application with client_id {client_id:?}")))
}

/// Runs an `app` subcommand.
pub fn run(db: &Db, cmd: AppCommand, clock: &Clock) -> CliResult {
    match cmd {
        AppCommand::Create(args) => {
            let grant =
                AppGrant::parse(&args.grant).ok_or_else(|| CliError("unknown grant".into()))?;
            validate(&args, grant)?;
            let confidential = if args.public {
                false
            } else {
                args.confidential || grant == AppGrant::AuthorizationCode
            };
            let secret = token::random_string(48);
            let mut app = App {
                id: 0,
                client_id: token::random_string(24),
                secret_hash: token::storage_hash(&secret).to_vec(),
                name: args.name.clone(),
                description: args.description.clone(),
                image: args.image.clone(),
                grant,
                confidential,
                skip_consent: args.skip_consent,
                redirect_uris: args.redirect_uris.clone(),
                created_at: clock.now(),
            };
            let a = app.clone();
            app.id = write(db, move |tx| apps::insert(tx, &a).map_err(CliError::from))?;
            print_app(&app, Some(&secret), args.json);
        }
        AppCommand::List { json } => {
            let list = read(db, |c| apps::list(c).map_err(CliError::from))?;
            if json {
                print_json(&serde_json::Value::Array(
                    list.iter().map(|a| app_json(a, None)).collect(),
                ));
            } else {
                for a in &list {
                    println!(
                        "{}  {:<18}  {}  {}",
                        a.client_id,
                        a.grant.as_str(),
                        if a.confidential {
                            "confidential"
                        } else {
                            "public      "
                        },
                        a.name
                    );
                }
            }
        }
        AppCommand::Show { client_id, json } => print_app(&find(db, &client_id)?, None, json),
        AppCommand::Delete { client_id } => {
            let app = find(db, &client_id)?;
            write(db, move |tx| {
                apps::delete(tx, app.id).map_err(CliError::from)
            })?;
            println!("deleted application {client_id}; its tokens no longer work");
        }
        AppCommand::RotateSecret { client_id, json } => {
            let app = find(db, &client_id)?;
            let secret = token::random_string(48);
            let hash = token::storage_hash(&secret);
            let id = app.id;
            write(db, move |tx| {
                apps::set_secret(tx, id, &hash).map_err(CliError::from)
            })?;
            if json {
                print_json(&json!({ "client_id": client_id, "secret_key": secret }));
            } else {
                println!("secret_key: {secret}   (shown only now; the old secret no longer works)");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris() {
        assert!(validate_redirect_uri("https://app.example/cb").is_ok());
        assert!(validate_redirect_uri("http://127.0.0.1:9000/cb?x=1").is_ok());
        assert!(validate_redirect_uri("com.example.app:/oauth").is_ok());
        assert!(validate_redirect_uri("/relative/cb").is_err());
        assert!(validate_redirect_uri("https://app.example/cb#frag").is_err());
        assert!(validate_redirect_uri("https://app.example/cb#").is_err());
        assert!(validate_redirect_uri("not a uri").is_err());
    }
}
