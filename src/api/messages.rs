//! Private messages (SPEC §10, the kit's 11 `pm/` rows; `db::messages`): snippets and
//! threads (`GET /api/v2/pm/`, which marks a thread read as it is read), sending text
//! and files, deleting a message (for everyone by its sender, for themselves by its
//! receiver) or a thread (for the caller), the recipient picker and the uploader's
//! steps. All of it answers 403 while `addons.private_messages_enabled` is off.
//! Threads are between two users, or a group's members (`?group=`, `{"group": id}`:
//! `db::messages::group`).

use rusqlite::Connection;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::api::people::users_json;
use crate::api::upload::{self, Form, text};
use crate::db::messages::{self, From, Refused, files, group};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::{Page, envelope};
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::http::{json_response, ok};
use crate::model::field::FieldError;
use crate::model::message::{self as model, Send};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        // a thread read marks it read: a GET that writes (with a token that may)
        user(Method::GET, "/api/v2/pm/", "getPrivateMessages", get_list)
            .writes()
            .query::<ThreadNamed>()
            .list::<ThreadWalk>(),
        write(Method::POST, "/api/v2/pm/", "sendPrivateMessage", send)
            .body::<crate::model::message::Send>(),
        write(Method::DELETE, "/api/v2/pm/", "deletePrivateMessageThread", delete_thread)
            .query::<ThreadNamed>(),
        user(Method::GET, "/api/v2/pm/search/", "searchPrivateMessageUsers", search)
            .list::<Recipients>(),
        write(Method::POST, "/api/v2/pm/upload/", "uploadPrivateMessageFile", upload_file)
            .query::<UploadStep>()
            .body::<UploadFields>(),
        user(Method::GET, "/api/v2/pm/{id}/", "getPrivateMessage", get_one),
        write(Method::DELETE, "/api/v2/pm/{id}/", "deletePrivateMessage", delete_one),
    ]
}

/// 403 unless private messages are on.
fn require_enabled(c: &Connection) -> Result<(), ApiError> {
    if messages::enabled(c)? { Ok(()) } else { Err(ApiError::PermissionDenied) }
}

crate::query_params! {
    /// The thread a query names (`GET` and `DELETE /api/v2/pm/`): `group`, else `thread`,
    /// else `user`. Each is an integer: another value, empty included, is 400 `invalid`.
    struct ThreadNamed {
        /// The other member of the thread (the caller's thread with them; none yet: an
        /// empty page, and 404 to delete).
        #[param(value_type = Option<i64>)]
        user: Option<String>,
        /// A thread id of the caller's (another's is 404); a group thread's id is its
        /// group's id negated.
        #[param(value_type = Option<i64>)]
        thread: Option<String>,
        /// A group's id: that group's thread, for its members only (403 for another; 404
        /// for a group the caller does not see, or while groups are off).
        #[param(value_type = Option<i64>)]
        group: Option<String>,
    }
}

crate::query_params! {
    /// Where a page of a thread starts (read only with a thread named). Each is an
    /// integer: another value, empty included, is 400 `invalid`.
    struct ThreadWalk {
        /// Only the messages older than this id (the kit's way back through a thread:
        /// the oldest id it shows).
        #[param(value_type = Option<i64>)]
        before_message: Option<String>,
        /// Only the messages from this id on, oldest first (over `before_message`).
        #[param(value_type = Option<i64>)]
        from_message: Option<String>,
    }
}

/// An integer query parameter `name` as sent (400 on the field when it is not one,
/// empty included).
fn int(value: Option<&str>, name: &str) -> Result<Option<i64>, ApiError> {
    value
        .map(|v| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| ApiError::field(name, "invalid", "A valid integer is required."))
        })
        .transpose()
}

/// A thread a query names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// The caller's thread with a user (`None`: they have none yet).
    Pair(Option<i64>),
    /// A group's thread (the caller is a member: checked).
    Group(i64),
}

/// The thread a query names for `me`: `group` (that group's thread: 404 while groups
/// are off or for a group `me` does not see, 403 for one `me` is not a member of),
/// `thread` (one of the caller's; a group thread's id is its group's, negated), or
/// `user` (the thread with that user).
fn named_thread(c: &Connection, me: i64, q: &Query) -> Result<Option<Named>, ApiError> {
    let p = ThreadNamed::read(q)?;
    let asked = int(p.group.as_deref(), "group")?;
    let thread = int(p.thread.as_deref(), "thread")?;
    let group = match (asked, thread) {
        (Some(g), _) => Some(g),
        // i64::MIN has no negation: no such group
        (None, Some(t)) if t < 0 => Some(t.checked_neg().unwrap_or(0)),
        _ => None,
    };
    if let Some(g) = group {
        group_member(c, me, g)?;
        return Ok(Some(Named::Group(g)));
    }
    if let Some(t) = thread {
        return match messages::other_member(c, me, t)? {
            Some(_) => Ok(Some(Named::Pair(Some(t)))),
            None => Err(ApiError::NotFound),
        };
    }
    match int(p.user.as_deref(), "user")? {
        Some(u) => Ok(Some(Named::Pair(messages::thread_between(c, me, u)?))),
        None => Ok(None),
    }
}

/// That `me` may use group `g`'s thread: groups on and the group seen (else 404), a
/// member (else 403).
fn group_member(c: &Connection, me: i64, g: i64) -> Result<(), ApiError> {
    crate::api::groups::enabled(c)?;
    match group::access(c, g, me)? {
        Ok(()) => Ok(()),
        Err(group::Refused::Unknown) => Err(ApiError::NotFound),
        Err(group::Refused::NotMember) => Err(ApiError::PermissionDenied),
    }
}

/// Whether `me` has something unread in the thread.
fn has_unread(c: &Connection, me: i64, thread: Named) -> rusqlite::Result<bool> {
    Ok(match thread {
        Named::Pair(Some(t)) => messages::unread(c, me, t)? > 0,
        Named::Pair(None) => false,
        Named::Group(g) => group::unread(c, me, g)? > 0,
    })
}

/// `GET /api/v2/pm/` (auth): with `user` or `thread`, that thread's messages (the
/// newest page first, `before_message`/`from_message` to walk it), marked read for the
/// caller (a read-only token reads without marking); without, the caller's snippets.
async fn get_list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, q) = (call.base(), call.query()?);
    let url = base.at(&call.req.path);
    let named = ThreadNamed::read(&q)?;
    let wants_thread = named.user.is_some() || named.thread.is_some() || named.group.is_some();
    if !wants_thread {
        return list_page(&call, move |c, who, q| {
            require_enabled(c)?;
            let page = Page::from_query(q)?;
            let groups = match crate::api::groups::enabled(c) {
                Ok(()) => true,
                Err(ApiError::NotFound) => false,
                Err(e) => return Err(e),
            };
            let (count, snippets) =
                messages::snippets(c, who.user_id, page.limit, page.offset, groups)?;
            let results: Vec<_> = snippets.iter().map(|s| s.to_json(&base, who.user_id)).collect();
            Ok((page, count, results))
        })
        .await;
    }
    // most reads find nothing unread: they stay reads (a reader, no write quota); one
    // that has something to mark goes through the writer, marks, and reads there
    let (q2, base2, url2) = (q.clone(), base.clone(), url.clone());
    let first = call
        .read(move |c, who| {
            let (thread, json) = thread_page(c, who.user_id, &q2, &base2, &url2)?;
            let unread = match thread {
                Some(t) if who.can_write => has_unread(c, who.user_id, t)?,
                _ => false,
            };
            Ok::<_, ApiError>((unread, json))
        })
        .await?;
    let json = match first {
        (false, json) => json,
        (true, _) => {
            call.write(move |tx, who| {
                match named_thread(tx, who.user_id, &q)? {
                    Some(Named::Pair(Some(t))) => {
                        messages::mark_read(tx, who.user_id, t)?;
                    }
                    Some(Named::Group(g)) => {
                        group::mark_read(tx, who.user_id, g)?;
                    }
                    _ => {}
                }
                Ok::<_, ApiError>(thread_page(tx, who.user_id, &q, &base, &url)?.1)
            })
            .await?
        }
    };
    Ok(ok(&json))
}

/// A page of the thread the query names, as `me` sees it, and the thread.
fn thread_page(
    c: &Connection,
    me: i64,
    q: &Query,
    base: &crate::model::PublicUrl,
    url: &str,
) -> Result<(Option<Named>, crate::http::pagination::Paginated<model::MessageJson>), ApiError> {
    require_enabled(c)?;
    let page = Page::from_query(q)?;
    let walk = ThreadWalk::read(q)?;
    let before = int(walk.before_message.as_deref(), "before_message")?;
    let start = match (before, int(walk.from_message.as_deref(), "from_message")?) {
        (_, Some(from)) => From::Oldest { from },
        (before, None) => From::Newest { before },
    };
    let thread = named_thread(c, me, q)?;
    let (count, rows) = match thread {
        Some(Named::Pair(Some(t))) => messages::page(c, me, t, start, page.limit, page.offset)?,
        Some(Named::Group(g)) => group::page(c, me, g, start, page.limit, page.offset)?,
        _ => (0, Vec::new()),
    };
    let results: Vec<_> = rows.iter().map(|m| m.to_json(base, me)).collect();
    Ok((thread, envelope(url, q, page, count, results)))
}

/// `POST /api/v2/pm/` (write): `{"recipients": id | [ids], "message": text,
/// "file_uuid"?: uuid}` sends one message to each recipient (each in its thread with
/// the caller); `{"group": id, ...}` one to the group's thread (a member's: else 403;
/// 404 for a group the caller does not see); 201 with the messages as a list. All or nothing: a recipient who is not
/// a live user is 400 on `recipients`, one hidden either way (SPEC §8) 403.
async fn send(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let base = call.base();
    let now = call.now;
    let json = call
        .write(move |tx, who| {
            let body = body?;
            require_enabled(tx)?;
            let send = Send::parse(&body).map_err(ApiError::Invalid)?;
            if let Some(g) = send.group {
                return send_to_group(tx, who.user_id, g, &send, &base, now);
            }
            for &to in &send.recipients {
                match messages::may_write(tx, who.user_id, to)? {
                    Ok(()) => {}
                    Err(Refused::Yourself) => {
                        return Err(ApiError::field(
                            "recipients",
                            "invalid",
                            "You cannot write to yourself.",
                        ));
                    }
                    Err(Refused::Unknown) => {
                        return Err(ApiError::field("recipients", "invalid", "No such user."));
                    }
                    Err(Refused::Hidden) => return Err(ApiError::PermissionDenied),
                }
            }
            if let Some(f) = &send.file {
                if send.recipients.len() > 1 {
                    return Err(ApiError::field(
                        "file_uuid",
                        "invalid",
                        "A file goes to one recipient.",
                    ));
                }
                if !files::usable(tx, who.user_id, f)? {
                    return Err(ApiError::field("file_uuid", "invalid", "No such file."));
                }
            }
            let rendered = crate::model::rich_text::render(&send.text);
            let mut out = Vec::with_capacity(send.recipients.len());
            for &to in &send.recipients {
                let id = messages::send(
                    tx,
                    who.user_id,
                    to,
                    &send.text,
                    &rendered,
                    send.file.as_deref(),
                    now,
                )?;
                let m = messages::get(tx, who.user_id, id)?.ok_or(ApiError::NotFound)?;
                out.push(m.to_json(&base, who.user_id));
            }
            Ok::<_, ApiError>(out)
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// Sends `send` to group `g`'s thread from `me` (a member): one message, as a list.
fn send_to_group(
    tx: &Connection,
    me: i64,
    g: i64,
    send: &Send,
    base: &crate::model::PublicUrl,
    now: crate::clock::Timestamp,
) -> Result<Vec<model::MessageJson>, ApiError> {
    group_member(tx, me, g)?;
    if let Some(f) = &send.file
        && !files::usable(tx, me, f)?
    {
        return Err(ApiError::field("file_uuid", "invalid", "No such file."));
    }
    let rendered = crate::model::rich_text::render(&send.text);
    let id = group::send(tx, g, me, &send.text, &rendered, send.file.as_deref(), now)?;
    let m = messages::get(tx, me, id)?.ok_or(ApiError::NotFound)?;
    Ok(vec![m.to_json(base, me)])
}

/// `DELETE /api/v2/pm/?user=` (or `?thread=`, or `?group=`) (write): the caller's
/// thread with that user (or the group's) is deleted for the caller (every message
/// hidden for them; the others keep theirs); 204. No such thread is 404.
async fn delete_thread(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.no_body().await;
    let q = call.query()?;
    call.write(move |tx, who| {
        body?;
        require_enabled(tx)?;
        let thread = named_thread(tx, who.user_id, &q)?
            .ok_or_else(|| FieldError::required("user"))
            .map_err(|e| ApiError::Invalid(vec![e]))?;
        match thread {
            Named::Pair(t) => {
                messages::delete_thread(tx, who.user_id, t.ok_or(ApiError::NotFound)?)?
            }
            Named::Group(g) => group::delete_thread(tx, who.user_id, g)?,
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(crate::reply::empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/pm/{id}/` (auth): one of the caller's messages; 404 for another's or
/// one hidden for the caller.
async fn get_one(call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let json = call
        .read(move |c, who| {
            require_enabled(c)?;
            let m = messages::get(c, who.user_id, id)?.ok_or(ApiError::NotFound)?;
            Ok::<_, ApiError>(m.to_json(&base, who.user_id))
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/pm/{id}/` (write): its sender takes it back for everyone (gone when
/// younger than a minute, else shown to both as deleted); its receiver deletes it for
/// themselves; 204. Another's message is 404.
async fn delete_one(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.no_body().await;
    let (id, now) = (call.id(), call.now);
    call.write(move |tx, who| {
        body?;
        require_enabled(tx)?;
        if messages::delete(tx, who.user_id, id, now)? { Ok(()) } else { Err(ApiError::NotFound) }
    })
    .await?;
    Ok(crate::reply::empty(StatusCode::NO_CONTENT))
}

crate::query_params! {
    /// Whom the recipient picker looks for.
    struct Recipients {
        /// The start of a username, case-insensitively; absent or empty: an empty page.
        user: Option<String>,
    }
}

/// `GET /api/v2/pm/search/?user=` (auth): the users whose username starts with `user`
/// that the caller may write to, as a paginated User list.
async fn search(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        require_enabled(c)?;
        let page = Page::from_query(q)?;
        let prefix = Recipients::read(q)?.user.unwrap_or_default().trim().to_owned();
        if prefix.is_empty() {
            return Ok((page, 0, Vec::new()));
        }
        let (count, users) = crate::db::user_search::by_prefix_for(
            c,
            &prefix,
            Some(who.user_id),
            page.limit,
            page.offset,
        )?;
        Ok((page, count, users_json(c, users, Some(who.user_id), &base)?))
    })
    .await
}

/// The file steps' refusals, as field errors.
fn refused(e: files::Refused) -> ApiError {
    match e {
        files::Refused::Unknown => ApiError::field("uuid", "invalid", "No such upload."),
        files::Refused::TooLarge => ApiError::field(
            "file",
            "max_value",
            format!("A file is at most {} bytes.", model::FILE_MAX),
        ),
        files::Refused::Parts => {
            ApiError::field("partindex", "invalid", "The parts do not make a whole file.")
        }
    }
}

/// An integer field of a form (400 when it is not one).
fn number<T: std::str::FromStr>(value: Option<&str>, name: &str) -> Result<Option<T>, ApiError> {
    value
        .map(|v| v.parse::<T>().map_err(|_| ApiError::field(name, "invalid", "Not a number.")))
        .transpose()
}

/// `POST /api/v2/pm/upload/` (write; multipart): the kit's uploader, one route for four
/// steps. With `?done`: `uuid`, `filename`, `totalparts` make the chunks whole → `{file_uuid,
/// file_url}`. With `parentuuid`: `file` is that file's thumbnail (an image) →
/// `{file_uuid, file_url, parent_file_uuid}`. With `partindex`: `file` is that chunk
/// (`uuid` from the first chunk's answer, `totalparts`) → `{file_uuid}`. Otherwise
/// `file` is a whole file → `{file_uuid, file_url}`.
async fn upload_file(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let done = UploadStep::read(&call.query()?)?.done.is_some();
    let body = call.take_body();
    // what the form says, judged after the caller is (401 before 400, as every route)
    let parsed = upload::read(body, &call.req.headers, Form { file: "file", lists: &[] })
        .await
        .and_then(|(map, file)| step(done, UploadFields::read(&map, file.map(|f| f.bytes))));
    let (base, now) = (call.base(), call.now);
    let json = call
        .write(move |tx, who| {
            let step = parsed?;
            require_enabled(tx)?;
            let me = who.user_id;
            let whole = |f: model::File| {
                let j = f.to_json(&base);
                json!({"file_uuid": j.uuid, "file_url": j.url})
            };
            match step {
                Step::Done { uuid, filename, parts, duration } => {
                    let f = files::finish(tx, me, &uuid, &filename, parts, duration, now)?
                        .map_err(refused)?;
                    Ok(whole(f))
                }
                Step::Thumbnail { parent, bytes } => {
                    let f = files::set_thumbnail(tx, me, &parent, &bytes, now)?.map_err(refused)?;
                    let j = f.to_json(&base);
                    Ok(json!({
                        "file_uuid": j.uuid, "file_url": j.thumbnail, "parent_file_uuid": j.uuid
                    }))
                }
                Step::Chunk { part, uuid, bytes } => {
                    let uuid = match uuid {
                        Some(u) => u,
                        None => files::create(tx, me, now)?,
                    };
                    files::add_chunk(tx, me, &uuid, part, &bytes)?.map_err(refused)?;
                    Ok(json!({"file_uuid": uuid}))
                }
                Step::Whole { filename, duration, bytes } => {
                    let uuid = files::create(tx, me, now)?;
                    files::add_chunk(tx, me, &uuid, 0, &bytes)?.map_err(refused)?;
                    let f = files::finish(tx, me, &uuid, &filename, Some(1), duration, now)?
                        .map_err(refused)?;
                    Ok::<_, ApiError>(whole(f))
                }
            }
        })
        .await?;
    Ok(ok(&json))
}

crate::query_params! {
    /// The uploader's last step.
    struct UploadStep {
        /// Present (any value, empty included): make the chunks whole (`uuid`,
        /// `filename`, `totalparts` in the form).
        done: Option<String>,
    }
}

/// The uploader's form (multipart/form-data; text fields trimmed, empty ones absent).
/// Which fields a step reads is [`step`]'s.
#[derive(utoipa::ToSchema)]
#[schema(
    as = PrivateMessageUpload,
    description = "The kit's uploader, four steps on one route: with ?done, uuid, filename and totalparts make the chunks whole; with parentuuid, file is that file's thumbnail (an image); with partindex, file is that chunk (uuid from the first chunk's answer); otherwise file is a whole file."
)]
struct UploadFields {
    /// The file, the chunk or the thumbnail (required but with ?done).
    #[schema(value_type = Option<String>, format = Binary)]
    file: Option<bytes::Bytes>,
    /// The upload: from the first chunk's answer (a later chunk, and ?done: required).
    uuid: Option<String>,
    /// A thumbnail's file: the uuid of the file it shows.
    parentuuid: Option<String>,
    /// A chunk's index, from 0 (the first chunk starts an upload); not a number: 400.
    #[schema(value_type = Option<i64>)]
    partindex: Option<String>,
    /// With ?done: how many chunks there are; not a number: 400.
    #[schema(value_type = Option<i64>)]
    totalparts: Option<String>,
    /// The file's name (default "file").
    filename: Option<String>,
    /// An audio or video file's length in seconds; not a number: 400.
    #[schema(value_type = Option<f64>)]
    duration: Option<String>,
}

impl UploadFields {
    fn read(map: &Map<String, Value>, file: Option<bytes::Bytes>) -> UploadFields {
        UploadFields {
            file,
            uuid: text(map, "uuid"),
            parentuuid: text(map, "parentuuid"),
            partindex: text(map, "partindex"),
            totalparts: text(map, "totalparts"),
            filename: text(map, "filename"),
            duration: text(map, "duration"),
        }
    }
}

/// One step of the uploader, as its form says.
enum Step {
    Whole { filename: String, duration: Option<f64>, bytes: bytes::Bytes },
    Chunk { part: i64, uuid: Option<String>, bytes: bytes::Bytes },
    Done { uuid: String, filename: String, parts: Option<i64>, duration: Option<f64> },
    Thumbnail { parent: String, bytes: bytes::Bytes },
}

/// Reads the step a form asks for (`done`: the query's `?done`; 400 on a field it gets
/// wrong).
fn step(done: bool, f: UploadFields) -> Result<Step, ApiError> {
    let required = |f: &str| ApiError::Invalid(vec![FieldError::required(f)]);
    let duration: Option<f64> = number(f.duration.as_deref(), "duration")?;
    let filename = f.filename.unwrap_or_else(|| "file".to_owned());
    if done {
        let uuid = f.uuid.ok_or_else(|| required("uuid"))?;
        let parts = number(f.totalparts.as_deref(), "totalparts")?;
        return Ok(Step::Done { uuid, filename, parts, duration });
    }
    let bytes = f.file.ok_or_else(|| required("file"))?;
    if let Some(parent) = f.parentuuid {
        if let Err(e) = crate::images::plan(&bytes) {
            return Err(ApiError::field("file", "invalid", e.to_string()));
        }
        return Ok(Step::Thumbnail { parent, bytes });
    }
    match (number::<i64>(f.partindex.as_deref(), "partindex")?, f.uuid) {
        (Some(part), Some(uuid)) => Ok(Step::Chunk { part, uuid: Some(uuid), bytes }),
        (Some(0), None) => Ok(Step::Chunk { part: 0, uuid: None, bytes }),
        (Some(_), None) => Err(required("uuid")),
        (None, _) => Ok(Step::Whole { filename, duration, bytes }),
    }
}
