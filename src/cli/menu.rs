//! `hearth menu ...`: the links of the kit's footer menus (`base` for members,
//! `not_logged` for visitors, `user`), kept by staff.

use clap::Subcommand;
use serde_json::json;

use super::{CliError, CliResult, print_json, print_list, read, write};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::custom_menus::{self, MenuKey};
use crate::model::custom_menu::{self, Menu};

/// Menu subcommands.
#[derive(Debug, Subcommand)]
pub enum MenuCommand {
    /// List the menus and their items.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Add a link to a menu.
    AddItem {
        /// The menu: base, not_logged, user, or its id.
        menu: String,
        /// The link's text (1–100 characters).
        #[arg(long)]
        label: String,
        /// Where it leads: an http(s) URL, or a path on the community's site (/about/).
        #[arg(long)]
        url: String,
        /// Its position (lower first; ties by id).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        order: i64,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Remove a link.
    RemoveItem {
        /// The item's id (`hearth menu list` shows it).
        id: i64,
    },
}

fn menu_json(m: &Menu) -> serde_json::Value {
    serde_json::to_value(m.to_json()).unwrap_or_default()
}

/// Runs a `menu` subcommand.
pub fn run(db: &Db, cmd: MenuCommand, clock: &Clock) -> CliResult {
    match cmd {
        MenuCommand::List { json } => {
            let menus = read(db, |c| custom_menus::all(c).map_err(CliError::from))?;
            print_list(&menus, json, menu_json, |m| {
                println!("{:>4}  {}", m.id, m.name);
                for i in &m.items {
                    println!("      {:>4}  [{}] {}  {}", i.id, i.order, i.label, i.url);
                }
            });
        }
        MenuCommand::AddItem { menu, label, url, order, json } => {
            custom_menu::check_label(&label).map_err(CliError)?;
            custom_menu::check_url(&url).map_err(CliError)?;
            let now = clock.now();
            let (l, u) = (label.clone(), url.clone());
            let (menu_id, id) = write(db, move |tx| {
                let m = custom_menus::get(tx, MenuKey::parse(&menu))?.ok_or_else(|| {
                    CliError(format!("no menu {menu:?} (base, not_logged, user)"))
                })?;
                Ok((m.id, custom_menus::add_item(tx, m.id, l.trim(), &u, order, now)?))
            })?;
            if json {
                print_json(
                    &json!({ "id": id, "custom_menu": menu_id, "label": label.trim(), "url": url, "order": order }),
                );
            } else {
                println!("added menu item {id} to menu {menu_id}");
            }
        }
        MenuCommand::RemoveItem { id } => {
            let now = clock.now();
            let removed = write(db, move |tx| Ok(custom_menus::remove_item(tx, id, now)?))?;
            if !removed {
                return Err(CliError(format!("no menu item with id {id}")));
            }
            println!("removed menu item {id}");
        }
    }
    Ok(())
}
