//! Private messages (SPEC §10): a message, its file and a thread's snippet as stored,
//! and their JSON as the kit reads it (`SCPrivateMessageThreadType`,
//! `SCPrivateMessageSnippetType`, `SCPrivateMessageFileType` of @selfcommunity/types).
//! A message is rich text (SPEC §5): `message` is the sanitized HTML, rendered once when
//! written ([`crate::model::rich_text`]).

use serde::Serialize;

use crate::clock::{Timestamp, rfc3339};
use crate::model::PublicUrl;
use crate::model::field::FieldError;
use crate::model::group::{GroupJson, GroupSeen};
use crate::model::user::{User, UserJson};

/// The longest message, in characters (the text as sent, markup included).
pub const MESSAGE_MAX: usize = 10_000;

/// The largest file a message carries, in bytes (SPEC §6's image limit).
pub const FILE_MAX: i64 = 10 * 1024 * 1024;

/// The most chunks one file is sent in (the kit sends 200 KiB chunks: 10 MiB is 52).
pub const PARTS_MAX: i64 = 64;

/// The longest file name kept, in characters.
pub const FILENAME_MAX: usize = 255;

/// How long a sender may take a message back so that it disappears without a trace
/// (the kit removes it from the thread when it is younger than this), in microseconds;
/// an older one stays in the thread as a deleted message.
pub const WITHDRAW_WITHOUT_TRACE_US: i64 = 60_000_000;

/// A message's attachment as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub uuid: String,
    pub filename: String,
    pub mimetype: String,
    pub filesize: i64,
    pub duration: Option<f64>,
    /// The media path of its bytes (None until the upload is whole).
    pub path: Option<String>,
    /// The media path of its thumbnail.
    pub thumbnail: Option<String>,
}

/// `SCPrivateMessageFileType`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = PrivateMessageFile)]
pub struct FileJson {
    pub uuid: String,
    pub filename: String,
    pub filesize: i64,
    /// The file's media type (`image/png`, `application/pdf`...).
    pub mimetype: String,
    /// Seconds, for audio and video when the uploader said.
    pub duration: Option<f64>,
    /// Absolute URL of the file.
    #[schema(format = "uri")]
    pub url: Option<String>,
    /// Absolute URL of its thumbnail (the file itself for an image without one).
    #[schema(format = "uri")]
    pub thumbnail: Option<String>,
}

impl File {
    /// Its JSON.
    pub fn to_json(&self, base: &PublicUrl) -> FileJson {
        let url = self.path.as_deref().map(|p| base.at(p));
        let thumbnail = self
            .thumbnail
            .as_deref()
            .map(|p| base.at(p))
            .or_else(|| self.mimetype.starts_with("image/").then(|| url.clone()).flatten());
        FileJson {
            uuid: self.uuid.clone(),
            filename: self.filename.clone(),
            filesize: self.filesize,
            mimetype: self.mimetype.clone(),
            duration: self.duration,
            url,
            thumbnail,
        }
    }
}

/// One message as a member of its thread reads it.
#[derive(Debug, Clone)]
pub struct Message {
    pub id: i64,
    /// The thread's id: a pair thread's row, or a group thread's [`group_thread_id`].
    pub thread_id: i64,
    pub sender: User,
    /// A pair message's receiver (None in a group thread).
    pub receiver: Option<User>,
    /// A group thread's group, as the reader sees it.
    pub group: Option<GroupSeen>,
    /// The sanitized HTML.
    pub html: String,
    pub created_at: Timestamp,
    /// Read by its reader (a pair message: by its receiver; a group message: the
    /// reader's read mark is past it, or the reader sent it).
    pub is_read: bool,
    /// Taken back by its sender, or, in a group thread, sent by a member the reader
    /// hides (SPEC §8): shown either way as a deleted message, without text or file.
    pub withdrawn: bool,
    pub file: Option<File>,
}

/// `SCPrivateMessageThreadType`, with the `thread_id` the kit's live handler matches on.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = PrivateMessage)]
pub struct MessageJson {
    pub id: i64,
    pub thread_id: i64,
    pub sender: UserJson,
    /// A pair message's receiver; null in a group thread.
    pub receiver: Option<UserJson>,
    /// A group thread's group; null in a pair thread.
    pub group: Option<GroupJson>,
    /// The message as sanitized HTML (SPEC §5); empty for a deleted message.
    pub message: String,
    pub created_at: String,
    /// `hidden`: taken back by its sender (shown as a deleted message); `new`: the
    /// reader received it and has not read it yet; `seen` otherwise.
    pub status: &'static str,
    pub file: Option<FileJson>,
}

impl Message {
    /// The status `viewer` sees.
    pub fn status(&self, viewer: i64) -> &'static str {
        if self.withdrawn {
            "hidden"
        } else if self.sender.id != viewer && !self.is_read {
            "new"
        } else {
            "seen"
        }
    }

    /// Its JSON for `viewer`.
    pub fn to_json(&self, base: &PublicUrl, viewer: i64) -> MessageJson {
        let user = |u: &User| u.to_json(base, None, Vec::new());
        MessageJson {
            id: self.id,
            thread_id: self.thread_id,
            sender: user(&self.sender),
            receiver: self.receiver.as_ref().map(user),
            group: self.group.as_ref().map(|g| g.to_json(base)),
            message: if self.withdrawn { String::new() } else { self.html.clone() },
            created_at: rfc3339(self.created_at),
            status: self.status(viewer),
            file: if self.withdrawn { None } else { self.file.as_ref().map(|f| f.to_json(base)) },
        }
    }
}

/// The thread id of group `group`'s thread, in the kit's JSON: negative, so it never
/// meets a pair thread's (react-ui matches snippets and live pushes on thread ids).
pub const fn group_thread_id(group: i64) -> i64 {
    -group
}

/// A thread as one of its members lists it: its newest message that member sees.
#[derive(Debug, Clone)]
pub struct Snippet {
    pub thread_id: i64,
    pub last: Message,
    pub unread: i64,
}

/// `SCPrivateMessageSnippetType`, plus the unread count.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = PrivateMessageSnippet)]
pub struct SnippetJson {
    /// The thread's id.
    pub id: i64,
    /// The newest message, as sanitized HTML (empty when it was deleted).
    pub headline: String,
    /// The same.
    pub message: String,
    /// The newest message's sender and receiver (null in a group thread).
    pub sender: UserJson,
    pub receiver: Option<UserJson>,
    /// A group thread's group (null in a pair thread): react-ui tells the two apart by it.
    pub group: Option<GroupJson>,
    pub created_at: String,
    pub last_message_at: String,
    /// `new` while the reader has unread messages in the thread, else `seen`.
    pub thread_status: &'static str,
    /// The reader's unread messages in the thread.
    pub unread_count: i64,
}

impl Snippet {
    /// Its JSON for `viewer`.
    pub fn to_json(&self, base: &PublicUrl, viewer: i64) -> SnippetJson {
        let m = self.last.to_json(base, viewer);
        let at = m.created_at.clone();
        SnippetJson {
            id: self.thread_id,
            headline: m.message.clone(),
            message: m.message,
            sender: m.sender,
            receiver: m.receiver,
            group: m.group,
            created_at: at.clone(),
            last_message_at: at,
            thread_status: if self.unread > 0 { "new" } else { "seen" },
            unread_count: self.unread,
        }
    }
}

/// What `POST /api/v2/pm/` sends, checked: the body's schema (`recipients` or `group`;
/// `message` unless `file_uuid`).
#[derive(Debug, Clone, PartialEq, Eq, utoipa::ToSchema)]
#[schema(as = PrivateMessageSend)]
pub struct Send {
    /// A group thread's group (an id or a numeric string; null: none); then no
    /// `recipients`.
    #[schema(value_type = Option<i64>)]
    pub group: Option<i64>,
    /// (described by [`recipients_schema`])
    #[schema(schema_with = recipients_schema)]
    pub recipients: Vec<i64>,
    /// The message (the kit's rich text, sanitized), at most 10000 characters; required
    /// unless `file_uuid` is sent.
    #[schema(rename = "message", max_length = 10000)]
    pub text: String,
    /// A file uploaded with `POST /api/v2/pm/upload/`: its uuid, or the uploader's object
    /// holding `file_uuid` (or `uuid`); empty or null: none.
    #[schema(rename = "file_uuid", value_type = Option<String>)]
    pub file: Option<String>,
}

/// `recipients`: a user id or a list of them.
fn recipients_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let id = || ObjectBuilder::new().schema_type(Type::Integer);
    OneOfBuilder::new()
        .description(Some(
            "A user id, or a list of at most 100 (ids or numeric strings; repeats count once); \
             each gets its own thread. Required without group; not with it.",
        ))
        .item(id())
        .item(ArrayBuilder::new().items(id()).max_items(Some(RECIPIENTS_MAX)))
        .build()
        .into()
}

/// The most recipients one send names (each gets its own thread).
pub const RECIPIENTS_MAX: usize = 100;

impl Send {
    /// Checks a body: `recipients` (an id or a list of ids), `message` (required unless
    /// `file_uuid` is sent), `file_uuid` (a string or the uploader's object with one).
    pub fn parse(
        body: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Send, Vec<FieldError>> {
        use serde_json::Value;
        let mut errors = Vec::new();
        let mut recipients = Vec::new();
        let id_of = |v: &Value| match v {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        let group = match body.get("group") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let id = id_of(v);
                if id.is_none() {
                    errors.push(FieldError::new("group", "invalid", "Not a group id."));
                }
                id
            }
        };
        let named = body
            .get("recipients")
            .is_some_and(|r| !r.is_null() && !matches!(r, Value::Array(a) if a.is_empty()));
        match body.get("recipients") {
            // the kit sends a group thread's message with `group` alone
            _ if group.is_some() || body.get("group").is_some_and(|g| !g.is_null()) => {
                if named {
                    errors.push(FieldError::new(
                        "recipients",
                        "invalid",
                        "A message goes to a group or to users, not both.",
                    ));
                }
            }
            None | Some(Value::Null) => {
                errors.push(FieldError::new("recipients", "required", "This field is required."));
            }
            Some(Value::Array(items)) if items.len() > RECIPIENTS_MAX => {
                errors.push(FieldError::new("recipients", "max_length", "Too many recipients."))
            }
            Some(Value::Array(items)) => {
                for v in items {
                    match id_of(v) {
                        Some(id) if !recipients.contains(&id) => recipients.push(id),
                        Some(_) => {}
                        None => {
                            errors.push(FieldError::new("recipients", "invalid", "Not a user id."));
                            break;
                        }
                    }
                }
                if recipients.is_empty() && errors.is_empty() {
                    errors.push(FieldError::new("recipients", "required", "Name a recipient."));
                }
            }
            Some(v) => match id_of(v) {
                Some(id) => recipients.push(id),
                None => errors.push(FieldError::new("recipients", "invalid", "Not a user id.")),
            },
        }
        let file = match body.get("file_uuid") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Object(o)) => match o.get("file_uuid").or_else(|| o.get("uuid")) {
                Some(Value::String(s)) => Some(s.clone()),
                _ => {
                    errors.push(FieldError::new("file_uuid", "invalid", "Not a file id."));
                    None
                }
            },
            Some(_) => {
                errors.push(FieldError::new("file_uuid", "invalid", "Not a file id."));
                None
            }
        };
        let text = match body.get("message") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                errors.push(FieldError::new("message", "invalid", "Not a string."));
                String::new()
            }
        };
        if text.chars().count() > MESSAGE_MAX {
            errors.push(FieldError::new(
                "message",
                "max_length",
                format!("Ensure this field has no more than {MESSAGE_MAX} characters."),
            ));
        } else if file.is_none() && crate::model::rich_text::plain(&text).trim().is_empty() {
            errors.push(FieldError::new("message", "required", "Write a message or send a file."));
        }
        if errors.is_empty() { Ok(Send { group, recipients, text, file }) } else { Err(errors) }
    }
}

/// The media type a file is stored and served with, from its first bytes: the images,
/// audio, video and PDF the kit previews, each recognised by its signature; anything
/// else (HTML, SVG, scripts, unknown formats) is `application/octet-stream`, which no
/// browser renders on hearth's origin. What the uploader declared is never trusted.
pub fn sniff(bytes: &[u8]) -> &'static str {
    let starts = |sig: &[u8]| bytes.starts_with(sig);
    let at = |offset: usize, sig: &[u8]| bytes.get(offset..offset + sig.len()) == Some(sig);
    if starts(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if starts(b"\xff\xd8\xff") {
        "image/jpeg"
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        "image/gif"
    } else if starts(b"RIFF") && at(8, b"WEBP") {
        "image/webp"
    } else if starts(b"RIFF") && at(8, b"WAVE") {
        "audio/wav"
    } else if starts(b"%PDF-") {
        "application/pdf"
    } else if at(4, b"ftyp") {
        if at(8, b"M4A ") { "audio/mp4" } else { "video/mp4" }
    } else if starts(b"\x1a\x45\xdf\xa3") {
        "video/webm"
    } else if starts(b"OggS") {
        "audio/ogg"
    } else if starts(b"ID3") || starts(b"\xff\xfb") || starts(b"\xff\xf3") {
        "audio/mpeg"
    } else {
        "application/octet-stream"
    }
}

/// A file name as kept: its last path segment, without control characters, at most
/// [`FILENAME_MAX`] characters; `file` when nothing is left.
pub fn clean_filename(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let kept: String =
        last.chars().filter(|c| !c.is_control()).take(FILENAME_MAX).collect::<String>();
    let kept = kept.trim().to_owned();
    if kept.is_empty() || kept == "." || kept == ".." { "file".to_owned() } else { kept }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::Send;
    use serde_json::json;

    /// Every documented field of a send is read.
    #[test]
    fn every_documented_field_is_read() {
        let unread = crate::model::field::unread_properties::<Send>(|m| {
            Send::parse(m).err().unwrap_or_default()
        });
        assert!(unread.is_empty(), "{unread:?}");
    }

    fn parse(v: serde_json::Value) -> Result<Send, Vec<String>> {
        let serde_json::Value::Object(m) = v else { unreachable!() };
        Send::parse(&m)
            .map_err(|e| e.iter().map(|f| format!("{}:{}", f.field, f.messages[0].code)).collect())
    }

    #[test]
    fn files_are_what_their_bytes_say_and_names_are_one_segment() {
        assert_eq!(super::sniff(b"\x89PNG\r\n\x1a\nrest"), "image/png");
        assert_eq!(super::sniff(b"%PDF-1.7"), "application/pdf");
        assert_eq!(super::sniff(b"<svg onload=alert(1)>"), "application/octet-stream");
        assert_eq!(super::sniff(b"<html><script>"), "application/octet-stream");
        assert_eq!(super::clean_filename("../../etc/passwd"), "passwd");
        assert_eq!(super::clean_filename("a\u{0}b\nc.txt"), "abc.txt");
        assert_eq!(super::clean_filename(".."), "file");
    }

    #[test]
    fn a_send_names_recipients_and_a_message_or_a_file() {
        let s = parse(json!({"recipients": [2, "3", 2], "message": "hi"})).unwrap();
        assert_eq!((s.recipients, s.text.as_str(), s.file), (vec![2, 3], "hi", None));
        let s = parse(json!({"recipients": 4, "message": "", "file_uuid": "abc"})).unwrap();
        assert_eq!((s.recipients, s.file.as_deref()), (vec![4], Some("abc")));
        assert_eq!(parse(json!({"message": "x"})).unwrap_err(), ["recipients:required"]);
        assert_eq!(
            parse(json!({"recipients": [2], "message": " <p> </p>"})).unwrap_err(),
            ["message:required"]
        );
        assert_eq!(
            parse(json!({"recipients": ["x"], "message": "a"})).unwrap_err(),
            ["recipients:invalid"]
        );
        let long = "a".repeat(super::MESSAGE_MAX + 1);
        assert_eq!(
            parse(json!({"recipients": [2], "message": long})).unwrap_err(),
            ["message:max_length"]
        );
        assert_eq!(
            parse(json!({"group": 3, "recipients": [2], "message": "a"})).unwrap_err(),
            ["recipients:invalid"]
        );
        let s = parse(json!({"group": "3", "message": "a", "file_uuid": null})).unwrap();
        assert_eq!((s.group, s.recipients), (Some(3), vec![]));
        assert_eq!(parse(json!({"group": "x", "message": "a"})).unwrap_err(), ["group:invalid"]);
    }
}
