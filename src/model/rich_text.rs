//! Rich text (SPEC §5): what a member writes, served back as sanitized HTML, a plain-text
//! summary and the summary's HTML. The one sanitizer every user-written text that a
//! browser renders as HTML goes through.
//!
//! A text is HTML when, after leading whitespace, it opens with a tag (`<p`, `<b`, ...):
//! the kit's editors always send `<p class="SCEditor-paragraph" ...>`. Anything else is
//! plain text (what API clients send), escaped with its line breaks kept. Either way
//! the result is safe: HTML goes through [ammonia]'s allowlist, plain text is escaped.
//!
//! The allowlist is what the kit's editor (Lexical with the kit's nodes and theme)
//! produces and the kit renders: paragraphs, headings, line breaks, bold, italic,
//! underline, strike, sub/superscript, code, links (`http`, `https`, `mailto`, with
//! `rel="nofollow noopener noreferrer"`), lists, quotes, horizontal rules, images with
//! `http(s)` sources, `dir`, the `SCEditor-*` classes, and the kit's `<mention id="N">`
//! and `<hashtag id="N">` elements (numeric ids only). Everything else (scripts, event
//! handlers, `style`, other URL schemes, forms, frames, objects, SVG, MathML) is
//! removed; the content of `script`, `style` and the like goes with it.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};

use super::html::escape;

/// Length of `summary`, in characters.
pub const SUMMARY_LEN: usize = 200;

/// The forms a text is served in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// The whole text as safe HTML.
    pub html: String,
    /// Plain text: no markup, whitespace collapsed, the first [`SUMMARY_LEN`]
    /// characters, with `&`, `<` and `>` written as `&amp;`, `&lt;` and `&gt;` (and
    /// no other entity): the kit's snippets put `summary` into the page as HTML, so a
    /// summary must never be markup there, even where the text held `&lt;img ...&gt;`.
    pub summary: String,
    /// Safe HTML of the same excerpt (its tags closed).
    pub summary_html: String,
    /// Whether the text is longer than the summary.
    pub summary_truncated: bool,
}

impl Rendered {
    /// `summary_html` as stored: empty when the text is not truncated, its summary's
    /// HTML being then the whole `html` (kept once, not twice).
    pub fn stored_summary_html(&self) -> &str {
        if self.summary_truncated { &self.summary_html } else { "" }
    }

    /// The forms as stored ([`Rendered::stored_summary_html`] undone).
    pub fn from_stored(
        html: String,
        summary: String,
        summary_html: String,
        truncated: bool,
    ) -> Self {
        let summary_html = if truncated { summary_html } else { html.clone() };
        Rendered { html, summary, summary_html, summary_truncated: truncated }
    }
}

/// Renders a text in its three forms.
pub fn render(text: &str) -> Rendered {
    if is_html(text) {
        let html = clean(text);
        let plain = plain_text(&html);
        let (summary, truncated) = excerpt(&plain);
        let summary_html =
            if truncated { clean(cut_html(&html, SUMMARY_LEN)) } else { html.clone() };
        Rendered {
            html,
            summary: text_as_html(&summary),
            summary_html,
            summary_truncated: truncated,
        }
    } else {
        let (summary, truncated) = excerpt(&collapse(text));
        Rendered {
            html: escape(text).replace("\r\n", "\n").replace('\n', "<br>"),
            summary_html: escape(&summary),
            summary: text_as_html(&summary),
            summary_truncated: truncated,
        }
    }
}

/// Plain text that reads the same as text and as HTML content: `&`, `<` and `>`
/// escaped, nothing else (quotes are harmless outside attributes).
fn text_as_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The text of a [`Rendered::summary`], its three escapes undone: what slugs are made
/// from.
pub fn summary_text(summary: &str) -> String {
    summary.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// The plain text of a text, whether HTML or not (whitespace collapsed): what slugs and
/// search are made from.
pub fn plain(text: &str) -> String {
    if is_html(text) { plain_text(&clean(text)) } else { collapse(text) }
}

/// HTML when it opens with a tag (or a comment or doctype).
pub fn is_html(text: &str) -> bool {
    let mut chars = text.trim_start().chars();
    chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '!')
}

/// Sanitizes HTML through the allowlist; an image left without a source (its URL was
/// refused) is dropped rather than shown broken.
pub fn clean(html: &str) -> String {
    let out = SANITIZER.clean(html).to_string();
    if !out.contains("<img") {
        return out;
    }
    let mut kept = String::with_capacity(out.len());
    for p in pieces(&out) {
        match p {
            Piece::Tag(tag, "img") if !tag.contains(" src=\"") => {}
            Piece::Tag(tag, _) | Piece::Text(tag) => kept.push_str(tag),
        }
    }
    kept
}

/// The elements the kit's editor produces and renders: all the sanitizer keeps.
pub const TAGS: [&str; 30] = [
    "p",
    "br",
    "b",
    "strong",
    "i",
    "em",
    "u",
    "s",
    "strike",
    "del",
    "sub",
    "sup",
    "code",
    "pre",
    "span",
    "a",
    "ul",
    "ol",
    "li",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "img",
    "mention",
    "hashtag",
];

static SANITIZER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let tags: HashSet<&str> = TAGS.into();
    let tag_attributes: HashMap<&str, HashSet<&str>> = [
        ("a", ["href"].into()),
        ("img", ["src", "alt"].into()),
        ("mention", ["id", "ext-id"].into()),
        ("hashtag", ["id"].into()),
        ("ol", ["start"].into()),
    ]
    .into();
    let mut b = Builder::default();
    b.tags(tags)
        .tag_attributes(tag_attributes)
        .generic_attributes(["class", "dir"].into())
        .url_schemes(["http", "https", "mailto"].into())
        .url_relative(UrlRelative::Deny)
        .link_rel(Some("nofollow noopener noreferrer"))
        .strip_comments(true)
        .attribute_filter(keep_attribute);
    b
});

/// What survives of an allowed attribute's value: only `SCEditor-*` classes, `dir` of
/// `ltr`/`rtl`/`auto`, numeric ids on mentions and hashtags, a numeric `start`.
fn keep_attribute<'v>(
    element: &str,
    attribute: &str,
    value: &'v str,
) -> Option<std::borrow::Cow<'v, str>> {
    let numeric = |v: &str| !v.is_empty() && v.len() <= 19 && v.bytes().all(|b| b.is_ascii_digit());
    match attribute {
        "class" => {
            let kept: Vec<&str> = value
                .split_ascii_whitespace()
                .filter(|c| {
                    c.strip_prefix("SCEditor-").is_some_and(|rest| {
                        !rest.is_empty()
                            && rest
                                .bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                    })
                })
                .collect();
            (!kept.is_empty()).then(|| kept.join(" ").into())
        }
        "dir" => matches!(value, "ltr" | "rtl" | "auto").then_some(value.into()),
        "id" | "ext-id" if element == "mention" || element == "hashtag" => {
            numeric(value).then_some(value.into())
        }
        "start" => numeric(value).then_some(value.into()),
        _ => Some(value.into()),
    }
}

/// Elements whose end (or self) separates words in the plain text.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "br"
            | "li"
            | "ul"
            | "ol"
            | "blockquote"
            | "pre"
            | "hr"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
    )
}

/// One piece of the sanitizer's output.
enum Piece<'a> {
    /// A tag, whole (`<a href="...">`, `</p>`), and its name.
    Tag(&'a str, &'a str),
    /// Text, still escaped.
    Text(&'a str),
}

/// Splits serialized HTML as ammonia (html5ever) writes it: every attribute value in
/// double quotes (a `"` inside is `&quot;`), `<` in text always `&lt;`. Only ever fed
/// the sanitizer's own output.
fn pieces(html: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = html;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.starts_with('<') {
            let mut quoted = false;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    if c == '"' {
                        quoted = !quoted;
                    }
                    c == '>' && !quoted
                })
                .map_or(rest.len(), |(i, _)| i + 1);
            let (tag, tail) = rest.split_at(end);
            rest = tail;
            let name = tag
                .trim_start_matches(['<', '/'])
                .split(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
                .next()
                .unwrap_or("");
            Some(Piece::Tag(tag, name))
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let (text, tail) = rest.split_at(end);
            rest = tail;
            Some(Piece::Text(text))
        }
    })
}

/// The entities html5ever's serializer writes in text: `&amp;`, `&lt;`, `&gt;`,
/// `&nbsp;` (and `&quot;` in attributes).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The text of sanitized HTML, whitespace collapsed, blocks separated by a space.
fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    for p in pieces(html) {
        match p {
            Piece::Tag(_, name) => {
                if is_block(name) {
                    out.push(' ');
                }
            }
            Piece::Text(t) => out.push_str(&unescape(t)),
        }
    }
    collapse(&out)
}

/// Whitespace runs become one space; trimmed.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The first [`SUMMARY_LEN`] characters, and whether there was more.
fn excerpt(plain: &str) -> (String, bool) {
    let mut chars = plain.chars();
    let head: String = chars.by_ref().take(SUMMARY_LEN).collect();
    (head, chars.next().is_some())
}

/// Sanitized HTML cut after `n` characters of text (whitespace runs counting once);
/// the sanitizer closes what the cut leaves open.
fn cut_html(html: &str, n: usize) -> &str {
    let mut seen = 0usize;
    let mut space = true;
    let mut at = 0usize;
    for p in pieces(html) {
        match p {
            Piece::Tag(t, name) => {
                if is_block(name) {
                    space = true;
                }
                at += t.len();
            }
            Piece::Text(t) => {
                let mut i = 0;
                while i < t.len() {
                    // an entity counts as one character and is never split
                    let len = if t[i..].starts_with('&') {
                        t[i..].find(';').map_or(1, |e| e + 1)
                    } else {
                        t[i..].chars().next().map_or(1, char::len_utf8)
                    };
                    let is_space = t[i..].starts_with(|c: char| c.is_whitespace());
                    if !(is_space && space) {
                        seen += 1;
                    }
                    space = is_space;
                    i += len;
                    if seen >= n {
                        return &html[..at + i];
                    }
                }
                at += t.len();
            }
        }
    }
    html
}

#[cfg(test)]
mod tests;
