use super::*;

/// OWASP's filter-evasion classics and mutation-XSS forms, as HTML texts (each opens
/// with a tag, so each goes through the sanitizer) and as plain texts.
pub const CORPUS: &[&str] = &[
    r#"<img src=x onerror=alert(1)>"#,
    r#"<p>hi<img src=x onerror="window.__xss('2')"></p>"#,
    r#"<script>alert(3)</script><p>after</p>"#,
    r#"<svg onload=alert(4)><p>x</p></svg>"#,
    r#"<svg><script>alert(5)</script></svg>"#,
    r#"<math><mtext><table><mglyph><style><img src=x onerror=alert(6)></style></mglyph></table></mtext></math>"#,
    r#"<a href="javascript:alert(7)">click</a>"#,
    r#"<a href="JaVaScRiPt:alert(8)">click</a>"#,
    r#"<a href="java&#x09;script:alert(9)">click</a>"#,
    r#"<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(10)">x</a>"#,
    r#"<a href=" javascript:alert(11)">x</a>"#,
    r#"<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxMik8L3NjcmlwdD4=">x</a>"#,
    r#"<a href="vbscript:msgbox(13)">x</a>"#,
    r#"<iframe src="javascript:alert(14)"></iframe>"#,
    r#"<iframe srcdoc="<script>alert(15)</script>"></iframe>"#,
    r#"<object data="javascript:alert(16)"></object>"#,
    r#"<embed src="javascript:alert(17)">"#,
    r#"<form action="javascript:alert(18)"><button>go</button></form>"#,
    r#"<style>@import 'javascript:alert(19)';</style><p>s</p>"#,
    r#"<p style="background:url(javascript:alert(20))">styled</p>"#,
    r#"<base href="javascript:alert(21)//"><a href="/x">x</a>"#,
    r#"<meta http-equiv="refresh" content="0;url=javascript:alert(22)">"#,
    r#"<noscript><p title="</noscript><img src=x onerror=alert(23)>"></noscript>"#,
    r#"<p><b onmouseover=alert(24)>bold</b></p>"#,
    r#"<div><img src=x onerror=alert(25)//"#,
    r#"<<script>script>alert(26)<</script>/script>"#,
    r#"<p>&lt;img src=x onerror=alert(27)&gt;</p>"#,
    r#"<IMG SRC="jav	ascript:alert(28);">"#,
    r#"<body onload=alert(29)>"#,
    r#"<details open ontoggle=alert(30)>"#,
    r#"<video><source onerror="alert(31)"></video>"#,
    r#"<a href="http://x" onclick="alert(32)">x</a>"#,
    r#"<mention id="1 onmouseover=alert(33)">@a</mention>"#,
    r#"<p class="SCEditor-paragraph x" id="clobber" dir="ltr">ok</p>"#,
    r#"<select><template><style><img src=x onerror=alert(35)></style></template></select>"#,
    r#"<img src="data:image/svg+xml,<svg onload=alert(36)>">"#,
    r#"<xmp><img src=x onerror=alert(37)></xmp>"#,
];

const ALLOWED_ATTRIBUTES: [&str; 9] =
    ["href", "src", "alt", "id", "ext-id", "start", "class", "dir", "rel"];

/// Every tag is on the allowlist, every attribute allowed, no URL with another scheme.
fn assert_safe(html: &str, source: &str) {
    for p in pieces(html) {
        let Piece::Tag(tag, name) = p else { continue };
        let name = name.to_ascii_lowercase();
        assert!(TAGS.contains(&name.as_str()), "tag {tag} from {source}");
        let inner = tag.trim_start_matches(['<', '/']).trim_end_matches(['>', '/']);
        let mut attrs = inner[name.len()..].trim();
        while !attrs.is_empty() {
            let (attr, rest) = attrs.split_once("=\"").unwrap_or((attrs, ""));
            let (value, rest) = rest.split_once('"').unwrap_or((rest, ""));
            assert!(
                ALLOWED_ATTRIBUTES.contains(&attr.trim()),
                "attribute {attr} in {tag} from {source}"
            );
            let v = unescape(value).to_ascii_lowercase();
            if attr == "href" || attr == "src" {
                assert!(
                    v.starts_with("http://")
                        || v.starts_with("https://")
                        || v.starts_with("mailto:"),
                    "url {value} in {tag} from {source}"
                );
            }
            attrs = rest.trim();
        }
    }
}

#[test]
fn no_payload_of_the_corpus_survives_in_any_form() {
    for &p in CORPUS {
        for text in [p.to_string(), format!("plain then {p}")] {
            let r = render(&text);
            assert_safe(&r.html, &text);
            assert_safe(&r.summary_html, &text);
            for form in [&r.html, &r.summary_html] {
                let lower = form.to_ascii_lowercase();
                for bad in
                    ["<script", "<iframe", "<svg", "<math", "<style", "<object", "<embed", "<form"]
                {
                    assert!(!lower.contains(bad), "{bad} in {form} from {text}");
                }
            }
            // the summary is the text of the safe HTML, never the source's markup, and
            // never markup itself where the kit renders it as HTML (its snippets do)
            if is_html(&text) {
                let plain = summary_text(&r.summary);
                assert!(plain_text(&r.html).starts_with(&plain), "{} from {text}", r.summary);
            }
            assert!(!r.summary.contains(['<', '>']), "{} from {text}", r.summary);
        }
    }
}

#[test]
fn plain_text_is_escaped_with_its_line_breaks() {
    let r = render("a < b & c\nline two <img src=x onerror=alert(1)>");
    assert_eq!(r.html, "a &lt; b &amp; c<br>line two &lt;img src=x onerror=alert(1)&gt;");
    assert_eq!(r.summary, "a &lt; b &amp; c line two &lt;img src=x onerror=alert(1)&gt;");
    assert_eq!(summary_text(&r.summary), "a < b & c line two <img src=x onerror=alert(1)>");
    assert_eq!(r.summary_html, "a &lt; b &amp; c line two &lt;img src=x onerror=alert(1)&gt;");
    assert!(!r.summary_truncated);
}

#[test]
fn what_the_kits_editor_sends_is_kept() {
    let text = r#"<p class="SCEditor-paragraph" dir="ltr"><span style="white-space: pre-wrap;">Hello </span><b><strong class="SCEditor-textBold" style="white-space: pre-wrap;">bold</strong></b><span> and </span><a href="https://example.org/x?a=1&amp;b=2" class="SCEditor-link"><span>a link</span></a> <mention id="12" ext-id="12">@alice</mention></p><ul class="SCEditor-ul"><li value="1" class="SCEditor-listItem">one</li></ul>"#;
    let r = render(text);
    assert_eq!(
        r.html,
        r#"<p class="SCEditor-paragraph" dir="ltr"><span>Hello </span><b><strong class="SCEditor-textBold">bold</strong></b><span> and </span><a href="https://example.org/x?a=1&amp;b=2" class="SCEditor-link" rel="nofollow noopener noreferrer"><span>a link</span></a> <mention id="12" ext-id="12">@alice</mention></p><ul class="SCEditor-ul"><li class="SCEditor-listItem">one</li></ul>"#
    );
    assert_eq!(r.summary, "Hello bold and a link @alice one");
    assert_eq!(r.summary_html, r.html);
    assert!(!r.summary_truncated);
    // what the kit's mention hydration matches: `<mention ... id="N" ...>@name</mention>`
    assert!(r.html.contains(r#"<mention id="12" ext-id="12">@alice</mention>"#));
}

#[test]
fn the_summary_is_plain_text_of_200_characters_and_its_html_is_closed() {
    let long = format!("<p><b>{}</b> tail &amp; more</p>", "x".repeat(250));
    let r = render(&long);
    assert_eq!(r.summary, "x".repeat(200));
    assert!(r.summary_truncated);
    assert_eq!(r.summary_html, format!("<p><b>{}</b></p>", "x".repeat(200)));
    let entity = format!("<p>{}&amp; and more</p>", "y".repeat(199));
    let r = render(&entity);
    assert_eq!(r.summary, format!("{}&amp;", "y".repeat(199)));
    assert_eq!(r.summary_html, format!("<p>{}&amp;</p>", "y".repeat(199)));
    // entities decoded, blocks separated, whitespace collapsed
    let r = render("<p>a&amp;b&lt;c</p><p>d   e</p>");
    assert_eq!(r.summary, "a&amp;b&lt;c d e");
    assert_eq!(plain("<h1>Title</h1><p>Body</p>"), "Title Body");
    assert_eq!(plain("  two\n\nlines "), "two lines");
}

#[test]
fn classes_other_than_the_editors_and_bad_ids_are_dropped() {
    assert_eq!(
        clean(r#"<p class="SCEditor-paragraph evil SCEditor-" dir="javascript">x</p>"#),
        r#"<p class="SCEditor-paragraph">x</p>"#
    );
    assert_eq!(clean(r#"<mention id="x1">@a</mention>"#), "<mention>@a</mention>");
    assert_eq!(
        clean(r#"<a href="/relative">r</a>"#),
        r#"<a rel="nofollow noopener noreferrer">r</a>"#
    );
}

#[test]
fn html_is_detected_by_its_opening_tag() {
    assert!(is_html("<p>x</p>"));
    assert!(is_html("  \n<B>x"));
    assert!(is_html("<!-- c --><p>x</p>"));
    assert!(!is_html("I <3 you"));
    assert!(!is_html("a <b>bold</b> word"));
    assert!(!is_html("< p>"));
}

/// The browser suite's corpus (tests/ui/xss-corpus.json, run in Chromium by
/// tests/ui/run.mjs) through the same structural checks.
#[test]
fn the_browser_suites_corpus_is_safe_in_every_form() {
    let corpus: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../../../tests/ui/xss-corpus.json")).unwrap_or_default();
    assert!(corpus.len() >= 30, "the corpus has {} payloads", corpus.len());
    for p in &corpus {
        let text = p["text"].as_str().unwrap_or_default();
        let r = render(text);
        assert_safe(&r.html, text);
        assert_safe(&r.summary_html, text);
        assert!(!r.summary.contains(['<', '>']), "{} from {text}", r.summary);
        // its marker phrase (`xssNN ...`) is text a reader sees
        let id = p["id"].as_str().unwrap_or_default();
        assert!(
            summary_text(&r.summary).contains(&format!("xss{id}")) || r.summary_truncated,
            "{id}: {}",
            r.summary
        );
    }
}

#[test]
fn the_stored_forms_keep_the_summarys_html_once() {
    for text in ["<p>short</p>", &format!("<p>{}</p>", "long ".repeat(100)), "plain"] {
        let r = render(text);
        let stored = r.stored_summary_html().to_owned();
        assert_eq!(stored.is_empty(), !r.summary_truncated, "{text}");
        let back =
            Rendered::from_stored(r.html.clone(), r.summary.clone(), stored, r.summary_truncated);
        assert_eq!(back, r, "{text}");
    }
}
