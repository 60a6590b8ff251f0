use super::match_expr;

#[test]
fn what_was_typed_becomes_quoted_prefixes_and_never_syntax() {
    assert_eq!(match_expr("ba").as_deref(), Some("\"ba\"*"));
    assert_eq!(match_expr("  Crème  brûlée ").as_deref(), Some("\"Crème\"* \"brûlée\"*"));
    // operators, quotes and columns are separators, not syntax
    assert_eq!(match_expr("a\" OR title:b*").as_deref(), Some("\"a\"* \"OR\"* \"title\"* \"b\"*"));
    assert_eq!(match_expr("NEAR(x"), Some("\"NEAR\"* \"x\"*".to_owned()));
    assert_eq!(match_expr("\"*-^:()"), None);
    assert_eq!(match_expr(""), None);
    // at most eight words
    assert_eq!(match_expr("a b c d e f g h i j").unwrap().matches('*').count(), 8);
}
