//! Issue 5: reactions, dynamic preferences, users and followings, over real HTTP; the
//! helpers shared by the files below.

use crate::common::Resp;

mod followings;
mod preferences;
mod reactions;

fn ids(r: &Resp) -> Vec<i64> {
    r.json()["results"]
        .as_array()
        .unwrap_or(&vec![])
        .iter()
        .map(|x| x["id"].as_i64().unwrap())
        .collect()
}
