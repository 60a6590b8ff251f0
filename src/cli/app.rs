//! `hearth app ...`: OAuth applications.

use clap::{Args, Subcommand};
use serde_json::json;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::{Clock, rfc3339};
use crate::db::Db;
use crate::db::apps;
use crate::model::app::{App, AppGrant};
use crate::model::update;
use crate::oauth::redirect;
use crate::token;

/// Longest app name and description (SPEC §6).
pub const TEXT_MAX: usize = 255;

/// App subcommands.
#[derive(Debug, Subcommand)]
pub enum AppCommand {
    /// Register an application; prints its client_id and, for a confidential app, its
    /// secret_key (shown only here; a public app has none).
    Create(CreateArgs),
    /// List applications.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Show one application.
    Show {
        /// Its client_id (client ids may start with a dash).
        #[arg(allow_hyphen_values = true)]
        client_id: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Delete an application and revoke its tokens.
    Delete {
        /// Its client_id (client ids may start with a dash).
        #[arg(allow_hyphen_values = true)]
        client_id: String,
    },
    /// Change an application; only the options given change.
    Update(UpdateArgs),
    /// Make a new secret for a confidential app (the old one stops working); prints it.
    RotateSecret {
        /// Its client_id (client ids may start with a dash).
        #[arg(allow_hyphen_values = true)]
        client_id: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

/// Options of `app update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Its client_id.
    #[arg(allow_hyphen_values = true)]
    pub client_id: String,
    /// New name (at most 255 characters).
    #[arg(long)]
    pub name: Option<String>,
    /// New description (at most 255 characters; "" clears it).
    #[arg(long)]
    pub description: Option<String>,
    /// New image URL ("" clears it).
    #[arg(long)]
    pub image: Option<String>,
    /// A redirect URI (repeatable): the URIs given replace the whole list, checked as
    /// `app create` checks them.
    #[arg(long = "redirect-uri")]
    pub redirect_uris: Vec<String>,
    /// Skip the consent page or not.
    #[arg(long, value_name = "true|false", value_parser = crate::model::boolean::parse_arg)]
    pub skip_consent: Option<bool>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
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
    /// A redirect URI (repeatable). Required for authorization-code and implicit apps.
    /// https; http only on 127.0.0.1, [::1] or localhost; or a private-use scheme with
    /// a dot (com.example.app:/cb). No fragment, no user information.
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

/// Checks an image URL: an absolute `http`/`https` URL with a host, no whitespace.
fn validate_image(image: &str) -> CliResult {
    let ok = !image.chars().any(char::is_whitespace)
        && url::Url::parse(image).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
        });
    if ok {
        Ok(())
    } else {
        Err(CliError(format!("image {image:?} is not an absolute http or https URL")))
    }
}

/// The rules `app create` and `app update` share (SPEC §2, §4): name 1–255 characters,
/// description at most 255, at least one redirect URI for the browser grants, each
/// registrable ([`redirect::check_registrable`]), an image that is an http(s) URL.
fn validate(
    name: &str,
    description: &str,
    image: &str,
    redirect_uris: &[String],
    grant: AppGrant,
) -> CliResult {
    let name_len = name.chars().count();
    if name.trim().is_empty() {
        return Err(CliError("app name must not be empty".into()));
    }
    if name_len > TEXT_MAX {
        return Err(CliError(format!(
            "app name is {name_len} characters; at most {TEXT_MAX} allowed"
        )));
    }
    let desc_len = description.chars().count();
    if desc_len > TEXT_MAX {
        return Err(CliError(format!(
            "app description is {desc_len} characters; at most {TEXT_MAX} allowed"
        )));
    }
    if redirect_uris.is_empty() && grant != AppGrant::Password {
        let article =
            if grant.as_str().starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        return Err(CliError(format!(
            "{article} {} app needs at least one --redirect-uri",
            grant.as_str()
        )));
    }
    for uri in redirect_uris {
        redirect::check_registrable(uri).map_err(CliError)?;
    }
    if !image.is_empty() {
        validate_image(image)?;
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
    println!("client type:   {}", if a.confidential { "confidential" } else { "public" });
    println!("skip consent:  {}", a.skip_consent);
    println!("redirect URIs: {}", a.redirect_uris.join(" "));
    if !a.description.is_empty() {
        println!("description:   {}", a.description);
    }
}

fn find(db: &Db, client_id: &str) -> CliResult<App> {
    let id = client_id.to_owned();
    read(db, move |c| apps::by_client_id(c, &id).map_err(CliError::from))?
        .ok_or_else(|| CliError(format!("no application with client_id {client_id:?}")))
}

/// Runs an `app` subcommand.
pub fn run(db: &Db, cmd: AppCommand, clock: &Clock) -> CliResult {
    match cmd {
        AppCommand::Create(args) => {
            let grant =
                AppGrant::parse(&args.grant).ok_or_else(|| CliError("unknown grant".into()))?;
            validate(&args.name, &args.description, &args.image, &args.redirect_uris, grant)?;
            let confidential = if args.public {
                false
            } else {
                args.confidential || grant == AppGrant::AuthorizationCode
            };
            // a public client authenticates without a secret (oauth::client): it gets
            // none to store; the column holds the hash of one nobody is shown
            let secret = token::random_string(48);
            let shown = confidential.then_some(secret.as_str());
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
            print_app(&app, shown, args.json);
        }
        AppCommand::List { json } => {
            let list = read(db, |c| apps::list(c).map_err(CliError::from))?;
            print_list(
                &list,
                json,
                |a| app_json(a, None),
                |a| {
                    println!(
                        "{}  {:<18}  {}  {}",
                        a.client_id,
                        a.grant.as_str(),
                        if a.confidential { "confidential" } else { "public      " },
                        a.name
                    );
                },
            );
        }
        AppCommand::Show { client_id, json } => print_app(&find(db, &client_id)?, None, json),
        AppCommand::Delete { client_id } => {
            let app = find(db, &client_id)?;
            write(db, move |tx| apps::delete(tx, app.id).map_err(CliError::from))?;
            println!("deleted application {client_id}; its tokens no longer work");
        }
        AppCommand::Update(args) => {
            let mut app = find(db, &args.client_id)?;
            let nothing = args.name.is_none()
                && args.description.is_none()
                && args.image.is_none()
                && args.redirect_uris.is_empty()
                && args.skip_consent.is_none();
            if nothing {
                return Err(CliError(
                    "nothing to change: give --name, --description, --image, --redirect-uri or --skip-consent".into(),
                ));
            }
            update(&mut app.name, args.name);
            update(&mut app.description, args.description);
            update(&mut app.image, args.image);
            let uris = (!args.redirect_uris.is_empty()).then_some(args.redirect_uris);
            update(&mut app.redirect_uris, uris);
            update(&mut app.skip_consent, args.skip_consent);
            validate(&app.name, &app.description, &app.image, &app.redirect_uris, app.grant)?;
            let a = app.clone();
            write(db, move |tx| apps::update(tx, &a).map_err(CliError::from))?;
            print_app(&app, None, args.json);
        }
        AppCommand::RotateSecret { client_id, json } => {
            let app = find(db, &client_id)?;
            if !app.confidential {
                return Err(CliError(format!(
                    "{client_id} is a public app: it authenticates with its client_id alone and has no secret to rotate"
                )));
            }
            let secret = token::random_string(48);
            let hash = token::storage_hash(&secret);
            let id = app.id;
            write(db, move |tx| apps::set_secret(tx, id, &hash).map_err(CliError::from))?;
            if json {
                print_json(&json!({ "client_id": client_id, "secret_key": secret }));
            } else {
                println!("secret_key: {secret}   (shown only now; the old secret no longer works)");
            }
        }
    }
    Ok(())
}
