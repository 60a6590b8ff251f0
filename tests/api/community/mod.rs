//! Issue 5: reactions, dynamic preferences, users and followings, over real HTTP; the
//! helpers shared by the files below.

mod account;
mod addressing;
mod avatars;
mod connections;
mod contact;
mod data_export;
mod followings;
mod legal;
mod moderation;
mod onboarding;
mod permission;
mod preferences;
mod reactions;
mod sign_up;
mod sso;
mod tags;
mod user_blocks;
mod user_directory;
