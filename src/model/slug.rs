//! Slugs (SPEC §5): Latin letters folded to ASCII, lowercase, every run of other
//! characters one `-`, at most 100 characters.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Longest slug.
pub const MAX_LEN: usize = 100;

/// Whether `s` is a valid slug: `^[a-z0-9]+(?:-[a-z0-9]+)*$`, at most 100 characters.
pub fn is_valid(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_LEN
        && s.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Letters that do not decompose into a base letter plus marks.
fn fold_special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'ẞ' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' => "o",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ł' | 'Ł' => "l",
        'þ' | 'Þ' => "th",
        'ı' => "i",
        _ => return None,
    })
}

/// The slug for a name, or `fallback` when nothing is left.
pub fn slugify(name: &str, fallback: &str) -> String {
    let mut folded = String::with_capacity(name.len());
    for c in name.chars() {
        if let Some(s) = fold_special(c) {
            folded.push_str(s);
        } else {
            folded.extend(c.nfkd().filter(|m| !is_combining_mark(*m)));
        }
    }
    let mut out = String::with_capacity(folded.len());
    let mut dash = false;
    for c in folded.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    out.truncate(MAX_LEN);
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { fallback.to_owned() } else { out }
}

/// `base`, or `base-2`, `base-3`... : the first for which `taken` says no, kept within
/// [`MAX_LEN`].
pub fn unique<E>(base: &str, mut taken: impl FnMut(&str) -> Result<bool, E>) -> Result<String, E> {
    if !taken(base)? {
        return Ok(base.to_owned());
    }
    let mut n = 2u64;
    loop {
        let suffix = format!("-{n}");
        let mut stem = base.to_owned();
        stem.truncate(MAX_LEN - suffix.len());
        let candidate = format!("{}{suffix}", stem.trim_end_matches('-'));
        if !taken(&candidate)? {
            return Ok(candidate);
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_latin_letters() {
        assert_eq!(slugify("Größe über Alles", "x"), "grosse-uber-alles");
        assert_eq!(slugify("Crème Brûlée -- 101!", "x"), "creme-brulee-101");
        assert_eq!(slugify("  __Hello_World__  ", "x"), "hello-world");
        assert_eq!(slugify("日本語", "course"), "course");
        assert_eq!(slugify("Ærø Łódź", "x"), "aero-lodz");
    }

    #[test]
    fn trims_to_100() {
        let s = slugify(&"ab ".repeat(60), "x");
        assert!(s.len() <= 100 && is_valid(&s), "{s}");
    }

    #[test]
    fn validity() {
        assert!(is_valid("a-b-1"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(101)] {
            assert!(!is_valid(bad), "{bad}");
        }
    }

    #[test]
    fn collisions_get_suffixes() {
        let taken = ["intro", "intro-2"];
        let r: Result<String, ()> = unique("intro", |s| Ok(taken.contains(&s)));
        assert_eq!(r, Ok("intro-3".to_owned()));
        let long = "a".repeat(100);
        let r: Result<String, ()> = unique(&long, |s| Ok(s == long));
        assert_eq!(r.map(|s| (s.len(), s.ends_with("-2"))), Ok((100, true)));
    }
}
