//! An endpoint's query parameters as one type: [`query_params!`] declares the struct
//! that a handler reads its query into, and the same declaration is the endpoint's
//! OpenAPI parameters (`utoipa::IntoParams`, registered with
//! [`Endpoint::query`](crate::http::route::Endpoint::query)): a parameter's name, type
//! and description (its doc comment) cannot differ between what is read and what is
//! documented.
//!
//! A field's type says how it is read ([`FromQuery`]); what a value means (a choice, a
//! range, a zone) stays with the handler, which knows the message its 400 gives.

use crate::error::ApiError;
use crate::http::query::Query;

/// How a field of a [`query_params!`] type is read from the query; absent is `None`.
pub trait FromQuery: Sized {
    /// Reads parameter `name` (SPEC §3's 400s for a malformed value).
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError>;
}

/// The value as sent (its last occurrence), empty included.
impl FromQuery for Option<String> {
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError> {
        Ok(q.get(name).map(str::to_owned))
    }
}

/// `true/false/1/0` in any case; anything else is 400 ([`Query::bool`]).
impl FromQuery for Option<bool> {
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError> {
        q.bool(name)
    }
}

/// Integer ids: comma-separated, repeated, or `name[]=` ([`Query::ids`]); no id is `None`.
impl FromQuery for Option<Vec<i64>> {
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError> {
        q.ids(name)
    }
}

/// An integer (surrounding spaces allowed); an empty value is `None`, anything else is
/// 400 `invalid`.
impl FromQuery for Option<i64> {
    fn from_query(q: &Query, name: &str) -> Result<Self, ApiError> {
        match q.get(name).map(str::trim) {
            None | Some("") => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| ApiError::field(name, "invalid", "A valid integer is required.")),
        }
    }
}

/// The schema of a text parameter that takes one of `values` (`#[param(schema_with = f)]`
/// with `f` naming the values its parser takes).
pub fn one_of(values: &[&str]) -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(values.iter().copied()))
        .build()
}

/// A field's name on the wire: the identifier without a raw prefix (`r#type` is `type`).
pub fn wire_name(field: &'static str) -> &'static str {
    field.strip_prefix("r#").unwrap_or(field)
}

/// The empty value is no value: `Some("")` and `Some("  ")` read as `None`, others trimmed.
pub fn nonempty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Declares a query's type: the struct (every field public, `Default`), its
/// `utoipa::IntoParams` (doc comments are the descriptions; `#[param(...)]` attributes
/// pass through, e.g. `value_type` for a text that holds a number) and `read(&Query)`,
/// which reads each field by its [`FromQuery`] under the field's name.
///
/// ```ignore
/// query_params! {
///     /// The filters of the event lists.
///     pub struct EventFilters {
///         /// Words of the name or description.
///         search: Option<String>,
///         /// Only the caller's followed users' events.
///         follows: Option<bool>,
///     }
/// }
/// ```
#[macro_export]
macro_rules! query_params {
    (
        $(#[$sm:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        #[derive(Debug, Clone, Default, utoipa::IntoParams)]
        #[into_params(parameter_in = Query)]
        $vis struct $name {
            $( $(#[$fm])* pub $field: $ty, )*
        }

        impl $name {
            /// Reads the query: a malformed value is 400 on its parameter.
            #[allow(dead_code, reason = "generated for every type; some are only documented")]
            pub fn read(
                q: &$crate::http::query::Query,
            ) -> Result<Self, $crate::error::ApiError> {
                Ok(Self {
                    $( $field: <$ty as $crate::http::query_params::FromQuery>::from_query(
                        q,
                        $crate::http::query_params::wire_name(stringify!($field)),
                    )?, )*
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, clippy::panic, reason = "tests fail loudly")]
    use utoipa::IntoParams;

    use super::*;

    crate::query_params! {
        /// A sample.
        struct Sample {
            /// Words.
            search: Option<String>,
            /// Whether.
            follows: Option<bool>,
            /// Ids.
            categories: Option<Vec<i64>>,
            /// A number.
            created_by: Option<i64>,
            /// A keyword's name.
            r#type: Option<String>,
        }
    }

    #[test]
    fn fields_are_read_under_their_names_and_documented_the_same() {
        let q = Query::parse(
            "search=a+b&follows=TRUE&categories[]=1&categories=2,3&created_by=7&type=x",
        );
        let s = Sample::read(&q).unwrap();
        assert_eq!(s.search.as_deref(), Some("a b"));
        assert_eq!(s.follows, Some(true));
        assert_eq!(s.categories, Some(vec![1, 2, 3]));
        assert_eq!(s.created_by, Some(7));
        assert_eq!(s.r#type.as_deref(), Some("x"));
        let params = Sample::into_params(|| None);
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["search", "follows", "categories", "created_by", "type"]);
        let doc = serde_json::to_value(&params[0]).unwrap();
        assert_eq!(doc["in"], "query");
        assert_eq!(doc["description"], "Words.");
        assert_eq!(doc["required"], false);
    }

    #[test]
    fn a_malformed_value_is_400_on_its_parameter() {
        for (raw, field) in [
            ("follows=maybe", "follows"),
            ("categories=1,x", "categories"),
            ("created_by=7a", "created_by"),
        ] {
            match Sample::read(&Query::parse(raw)) {
                Err(ApiError::Invalid(e)) => assert!(format!("{e:?}").contains(field), "{e:?}"),
                other => panic!("{raw}: {other:?}"),
            }
        }
        assert!(Sample::read(&Query::parse("created_by=")).unwrap().created_by.is_none());
    }
}
