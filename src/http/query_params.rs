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

/// What `utoipa` leaves out of a field with `schema_with`: its description (the field's
/// doc comment, as one line) and whether it is required (`#[required = true]` before its
/// `#[param]`). Implemented by [`query_params!`].
pub trait Described {
    /// Each parameter's name, description and whether it is required.
    fn descriptions() -> Vec<(&'static str, String, bool)>;
}

/// `T`'s parameters, each described by its field's doc comment.
pub fn documented<T: utoipa::IntoParams + Described>() -> Vec<utoipa::openapi::path::Parameter> {
    let docs = T::descriptions();
    let mut params = T::into_params(|| Some(utoipa::openapi::path::ParameterIn::Query));
    for p in &mut params {
        if let Some((_, d, required)) = docs.iter().find(|(n, ..)| *n == p.name) {
            if !d.is_empty() {
                p.description = Some(d.clone());
            }
            if *required {
                p.required = utoipa::openapi::Required::True;
            }
        }
    }
    params
}

/// `T`'s parameters as the properties of an object schema (a form that carries a query's
/// parameters as its fields, e.g. the OAuth consent form).
pub fn as_object<T: utoipa::IntoParams + Described>() -> utoipa::openapi::schema::Object {
    let mut o = utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Object);
    for p in documented::<T>() {
        let mut property = serde_json::to_value(&p.schema).unwrap_or_default();
        if let Some(d) = &p.description {
            property["description"] = d.clone().into();
        }
        if let Ok(schema) = serde_json::from_value::<utoipa::openapi::RefOr<_>>(property) {
            o = o.property(p.name.clone(), schema);
        }
        if p.required == utoipa::openapi::Required::True {
            o = o.required(p.name);
        }
    }
    o.build()
}

/// Doc comment lines as one line.
pub fn one_line(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

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

pub use crate::model::field::one_of;

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
/// pass through, e.g. `value_type` for a text that holds a number; `#[required = true]`,
/// before them, marks a parameter the handler requires) and `read(&Query)`, which reads
/// each field by its [`FromQuery`] under the field's name.
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
            $(
                $(#[doc = $doc:literal])*
                $(#[required = $required:literal])?
                $(#[param $pa:tt])*
                $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        #[derive(Debug, Clone, Default, utoipa::IntoParams)]
        #[into_params(parameter_in = Query)]
        $vis struct $name {
            $( $(#[doc = $doc])* $(#[param $pa])* pub $field: $ty, )*
        }

        impl $crate::http::query_params::Described for $name {
            fn descriptions() -> Vec<(&'static str, String, bool)> {
                vec![$((
                    $crate::http::query_params::wire_name(stringify!($field)),
                    $crate::http::query_params::one_line(&[$($doc),*]),
                    { let required: &[bool] = &[$($required)?]; required.contains(&true) },
                )),*]
            }
        }

        $crate::read_fields!($name { $($field: $ty),* });
    };
}

/// `read(&Query)` for [`query_params!`] and [`form_fields!`]: each field by its
/// [`FromQuery`] under its name; a malformed value is 400 on it. (Unused, it is a
/// warning: a declared query or form that its handler does not read.)
#[doc(hidden)]
#[macro_export]
macro_rules! read_fields {
    ($name:ident { $($field:ident : $ty:ty),* }) => {
        impl $name {
            /// Reads the query or form: a malformed value is 400 on its field.
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

/// Declares a form body's type (`application/x-www-form-urlencoded`, read as a
/// [`Query`]): the struct, its `utoipa::ToSchema` (the endpoint's documented body with
/// [`Endpoint::body`](crate::http::route::Endpoint::body); doc comments describe the
/// fields, `#[schema(...)]` attributes pass through) and `read(&Query)`, as
/// [`query_params!`] reads a query.
#[macro_export]
macro_rules! form_fields {
    (
        $(#[$sm:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        #[derive(Debug, Clone, Default, utoipa::ToSchema)]
        $(#[$sm])*
        $vis struct $name {
            $( $(#[$fm])* pub $field: $ty, )*
        }

        $crate::read_fields!($name { $($field: $ty),* });
    };
}

#[cfg(test)]
mod tests {
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
        let read = Sample::read(&q);
        assert!(read.is_ok(), "{read:?}");
        let Ok(s) = read else { return };
        assert_eq!(s.search.as_deref(), Some("a b"));
        assert_eq!(s.follows, Some(true));
        assert_eq!(s.categories, Some(vec![1, 2, 3]));
        assert_eq!(s.created_by, Some(7));
        assert_eq!(s.r#type.as_deref(), Some("x"));
        let params = Sample::into_params(|| None);
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["search", "follows", "categories", "created_by", "type"]);
        let doc = serde_json::to_value(&params[0]).unwrap_or_default();
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
            let read = Sample::read(&Query::parse(raw));
            assert!(
                matches!(&read, Err(ApiError::Invalid(e)) if format!("{e:?}").contains(field)),
                "{raw}: {read:?}"
            );
        }
        assert!(Sample::read(&Query::parse("created_by=")).is_ok_and(|s| s.created_by.is_none()));
    }
}
