//! The endpoint declaration: every endpoint hearth serves is one [`Endpoint`] value
//! (method, path template, auth class, whether it writes, its OpenAPI `operationId`,
//! and its handler). The router, the `Allow` list of a 405, the OpenAPI paths and
//! operations, and the route-table tests all read that one list
//! (`crate::api::router`, built once from `crate::api::AREAS`); nothing else names a
//! path.
//!
//! Path templates are literal segments, `{name}` for an integer id (anything else is
//! 404 before authentication, SPEC §3) and a last `{*name}` for the rest of the path
//! (non-empty, not ending in `/`). A template ends in `/` exactly when the path must.

use crate::http::query_params::Described;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
pub use warp::http::Method;
use warp::reply::Response;

use super::Req;
use crate::state::AppState;

/// Who may call an endpoint (SPEC §5's "auth" column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Auth {
    /// No authentication: a bearer token is not looked at (health, the schema, files,
    /// and OAuth, which authenticates clients and users its own way).
    None,
    /// Anyone; a bearer token, when sent, must be valid (401 otherwise).
    Public,
    /// (CA) anyone while `configurations.content_availability` is on, callers otherwise.
    Ca,
    /// A caller with any valid token.
    User,
    /// A caller whose token has the `write` scope.
    Write,
    /// A staff caller.
    Staff,
}

impl Auth {
    /// Whether an anonymous caller can ever be served.
    pub fn allows_anonymous(self) -> bool {
        matches!(self, Auth::None | Auth::Public | Auth::Ca)
    }

    /// The name used in the OpenAPI document (`x-hearth-auth`) and the docs.
    pub fn as_str(self) -> &'static str {
        match self {
            Auth::None => "none",
            Auth::Public => "public",
            Auth::Ca => "ca",
            Auth::User => "user",
            Auth::Write => "write",
            Auth::Staff => "staff",
        }
    }
}

/// What a handler is: the request and the path's parameters in, the response out.
pub type Handler = Arc<dyn Fn(Req, Params) -> BoxFuture<'static, Response> + Send + Sync>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    Lit(&'static str),
    Id,
    Tail,
}

/// One endpoint: one method on one path template.
#[derive(Clone)]
pub struct Endpoint {
    /// The method (`GET` endpoints also answer `HEAD`).
    pub method: Method,
    /// The path template, e.g. `/api/v2/course/{id}/section/{section_id}/`.
    pub path: &'static str,
    /// Who may call it.
    pub auth: Auth,
    /// Whether it changes state (a read replica forwards these to the primary).
    pub writes: bool,
    /// The OpenAPI `operationId`, unique over the list.
    pub operation_id: &'static str,
    /// The largest body this endpoint reads, when smaller than its reader's (JSON,
    /// form, multipart) limit: 413 beyond ([`Endpoint::body_limit`]).
    pub body_limit: Option<usize>,
    /// The query's parameters, from the types the handler reads them into
    /// ([`Endpoint::query`]): the OpenAPI document's parameters.
    pub query: Vec<fn() -> Vec<utoipa::openapi::path::Parameter>>,
    /// The body's schema, from the type the handler parses it into ([`Endpoint::body`]):
    /// pushes the schema (and those it refers to) and returns its name.
    pub body: Option<BodySchema>,
    segments: Vec<Segment>,
    handler: Handler,
}

/// See [`Endpoint::body`].
pub type BodySchema =
    fn(&mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) -> String;

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} ({})", self.method, self.path, self.operation_id)
    }
}

impl Endpoint {
    /// An endpoint whose handler takes the raw request. It writes unless it is a `GET`
    /// (see [`Endpoint::writes`] for a `GET` that writes).
    pub fn new<F, Fut>(
        method: Method,
        path: &'static str,
        auth: Auth,
        operation_id: &'static str,
        handler: F,
    ) -> Self
    where
        F: Fn(Req, Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Response> + Send + 'static,
    {
        Endpoint {
            writes: method != Method::GET,
            method,
            path,
            auth,
            operation_id,
            body_limit: None,
            query: Vec::new(),
            body: None,
            segments: parse_template(path),
            // the response names its endpoint (the access line's and metrics' route)
            handler: Arc::new(move |req, params| {
                let handled = handler(req, params);
                Box::pin(async move {
                    let mut resp = handled.await;
                    resp.extensions_mut().insert(Matched { path, operation_id });
                    resp
                })
            }),
        }
    }

    /// Marks a `GET` that changes state (OAuth's authorization endpoint can issue a code).
    #[must_use]
    pub fn writes(mut self) -> Self {
        self.writes = true;
        self
    }

    /// Marks a `POST` that changes nothing (`verify_token`): a replica serves it itself.
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.writes = false;
        self
    }

    /// Caps the body this endpoint reads at `bytes` (413 beyond, before reading when
    /// `Content-Length` says more): an anonymous route that takes a small body must
    /// not let a client reserve a JSON body's megabyte of the memory budget.
    #[must_use]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = Some(bytes);
        self
    }

    /// Declares that the handler reads its query into `T` (a
    /// [`query_params!`](crate::query_params) type): `T`'s fields are this endpoint's
    /// documented query parameters. Several types add up (a list's filters, then
    /// [`Paging`](crate::http::pagination::Paging)).
    #[must_use]
    pub fn query<T: utoipa::IntoParams + Described>(mut self) -> Self {
        self.query.push(crate::http::query_params::documented::<T>);
        self
    }

    /// Declares that the handler parses its body into `T`, whose
    /// `#[derive(utoipa::ToSchema)]` is this endpoint's documented request body (JSON,
    /// and multipart's text fields where the fragment's prose offers multipart).
    #[must_use]
    pub fn body<T: utoipa::ToSchema>(mut self) -> Self {
        self.body = Some(|out| {
            T::schemas(out);
            out.push((T::name().into_owned(), T::schema()));
            T::name().into_owned()
        });
        self
    }

    /// [`Endpoint::query`] with [`Paging`](crate::http::pagination::Paging) after `T`: a list.
    #[must_use]
    pub fn list<T: utoipa::IntoParams + Described>(self) -> Self {
        self.query::<T>().query::<crate::http::pagination::Paging>()
    }

    /// [`Endpoint::query`] of [`Paging`](crate::http::pagination::Paging) alone: a list
    /// without filters.
    #[must_use]
    pub fn paged(self) -> Self {
        self.query::<crate::http::pagination::Paging>()
    }

    /// The names of the template's parameters, in order (`{*tail}` as `tail`).
    pub fn params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .map(|s| s.trim_start_matches('*'))
            .collect()
    }

    /// The parameters of `path` when it matches this template.
    fn matches(&self, path: &[&str]) -> Option<Params> {
        let mut params = Params::default();
        let mut rest = path.iter();
        for (i, seg) in self.segments.iter().enumerate() {
            match seg {
                Segment::Tail => {
                    let tail = path[i..].join("/");
                    if tail.is_empty() || tail.ends_with('/') {
                        return None;
                    }
                    params.tail = tail;
                    return Some(params);
                }
                Segment::Lit(l) => {
                    if rest.next() != Some(l) {
                        return None;
                    }
                }
                Segment::Id => params.ids.push(rest.next()?.parse().ok()?),
            }
        }
        rest.next().is_none().then_some(params)
    }
}

fn parse_template(path: &'static str) -> Vec<Segment> {
    path.strip_prefix('/')
        .unwrap_or(path)
        .split('/')
        .map(|s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) if name.starts_with('*') => Segment::Tail,
            Some(_) => Segment::Id,
            None => Segment::Lit(s),
        })
        .collect()
}

/// The parameters a path matched: its ids in template order, and the tail.
#[derive(Debug, Clone, Default)]
pub struct Params {
    ids: Vec<i64>,
    tail: String,
}

impl Params {
    /// The `n`th id of the template (0 when the template has fewer: a declaration bug
    /// that the route-table tests would show as wrong answers).
    pub fn id(&self, n: usize) -> i64 {
        self.ids.get(n).copied().unwrap_or_default()
    }

    /// The `{*tail}` of the template.
    pub fn tail(&self) -> &str {
        &self.tail
    }
}

/// The endpoint a response came from, in the response's extensions: what access logs
/// and metrics label a request with (a template, never the path as sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched {
    /// The path template.
    pub path: &'static str,
    /// The operationId.
    pub operation_id: &'static str,
}

/// The authenticated caller's user id, in the response's extensions when the handler
/// resolved one (`crate::api::call` puts it there): what the access log shows as
/// `user_id`, without a second database call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller(pub i64);

/// The order methods are listed in an `Allow` header.
const METHOD_ORDER: [Method; 6] =
    [Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE];

/// What the router found for a request.
pub enum Found<'a> {
    /// The endpoint and the path's parameters.
    Endpoint(&'a Arc<Endpoint>, Params),
    /// The path exists but not with this method: the `Allow` list.
    MethodNotAllowed(String),
    /// No template matches the path.
    NotFound,
}

/// Every endpoint, matched by path and then method.
#[derive(Debug, Clone)]
pub struct Router {
    endpoints: Arc<Vec<Arc<Endpoint>>>,
    index: Arc<Index>,
}

/// Which endpoints a path can match, by its number of segments and its third one
/// (`/api/v2/<area>/...`), each list in declaration order: `find` looks at a handful of
/// templates instead of every one (issue 34: the scan over ~300 was 2% of a request's
/// CPU). A template with a parameter or tail at the key's place is in every list of
/// its length; a tail template in every list long enough.
#[derive(Debug, Default)]
struct Index {
    by_key: HashMap<&'static str, HashMap<usize, Vec<usize>>, foldhash::fast::RandomState>,
    /// By length alone: the paths whose third segment no template names.
    by_len: HashMap<usize, Vec<usize>, foldhash::fast::RandomState>,
    /// Paths longer than any template without a tail: the tail templates.
    tails: Vec<usize>,
}

/// The segment a path is keyed by (see [`Index`]).
const KEYED: usize = 2;

impl Index {
    fn new(endpoints: &[Arc<Endpoint>]) -> Index {
        let fits = |e: &Endpoint, n: usize| match e.segments.last() {
            Some(Segment::Tail) => n >= e.segments.len(),
            _ => n == e.segments.len(),
        };
        let literal = |e: &Endpoint| match e.segments.get(KEYED) {
            Some(Segment::Lit(l)) => Some(*l),
            _ => None,
        };
        let longest = endpoints.iter().map(|e| e.segments.len()).max().unwrap_or(0);
        let mut index = Index::default();
        for n in 0..=longest {
            let here: Vec<usize> =
                (0..endpoints.len()).filter(|&i| fits(&endpoints[i], n)).collect();
            let keyed = |i: &usize| n > KEYED && literal(&endpoints[*i]).is_some();
            let open: Vec<usize> = here.iter().copied().filter(|i| !keyed(i)).collect();
            for &i in &here {
                if let (true, Some(l)) = (keyed(&i), literal(&endpoints[i])) {
                    index.by_key.entry(l).or_default().entry(n).or_insert_with(|| {
                        here.iter()
                            .copied()
                            .filter(|j| !keyed(j) || literal(&endpoints[*j]) == Some(l))
                            .collect()
                    });
                }
            }
            index.by_len.insert(n, open);
        }
        index.tails = (0..endpoints.len())
            .filter(|&i| matches!(endpoints[i].segments.last(), Some(Segment::Tail)))
            .collect();
        index
    }

    /// The endpoints `segments` can match, in declaration order.
    fn candidates(&self, segments: &[&str]) -> &[usize] {
        let n = segments.len();
        if let Some(key) = segments.get(KEYED)
            && let Some(list) = self.by_key.get(*key).and_then(|by_len| by_len.get(&n))
        {
            return list;
        }
        self.by_len.get(&n).unwrap_or(&self.tails)
    }
}

impl Router {
    /// A router over `endpoints`.
    pub fn new(endpoints: Vec<Endpoint>) -> Self {
        let endpoints: Vec<Arc<Endpoint>> = endpoints.into_iter().map(Arc::new).collect();
        let index = Arc::new(Index::new(&endpoints));
        Router { endpoints: Arc::new(endpoints), index }
    }

    /// The endpoints, in declaration order.
    pub fn endpoints(&self) -> impl Iterator<Item = &Endpoint> {
        self.endpoints.iter().map(|e| &**e)
    }

    /// The endpoint for `method` on `path`.
    pub fn find(&self, method: &Method, path: &str) -> Found<'_> {
        let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        self.find_among(method, &segments, self.index.candidates(&segments))
    }

    /// [`Router::find`] without the index: every template, in order.
    #[cfg(test)]
    fn find_scanning(&self, method: &Method, path: &str) -> Found<'_> {
        let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        let all: Vec<usize> = (0..self.endpoints.len()).collect();
        self.find_among(method, &segments, &all)
    }

    fn find_among(&self, method: &Method, segments: &[&str], candidates: &[usize]) -> Found<'_> {
        let wanted = if method == Method::HEAD { &Method::GET } else { method };
        let mut allowed: Vec<&Method> = Vec::new();
        for e in candidates.iter().filter_map(|i| self.endpoints.get(*i)) {
            let Some(params) = e.matches(segments) else {
                continue;
            };
            if e.method == *wanted {
                return Found::Endpoint(e, params);
            }
            allowed.push(&e.method);
        }
        if allowed.is_empty() {
            return Found::NotFound;
        }
        Found::MethodNotAllowed(allow_list(&allowed))
    }

    /// The `Allow` list of a path template (what a 405 and a CORS preflight name).
    pub fn allow(&self, path: &str) -> Option<String> {
        match self.find(&Method::OPTIONS, path) {
            Found::MethodNotAllowed(allow) => Some(allow),
            _ => None,
        }
    }

    /// Serves `req`: the endpoint its method and path pick, given the handler's
    /// [`Req`]; a path no template matches is 404 and a method the path does not serve
    /// 405, before anything else about the request is looked at.
    /// The router is the process's (`&'static`): a request holds its endpoint by
    /// reference, not by a clone of an `Arc` that every core would write (issue 34).
    pub fn serve(
        &'static self,
        state: &AppState,
        req: warp::http::Request<hyper::body::Incoming>,
    ) -> BoxFuture<'static, Response> {
        let (e, params) = match self.find(req.method(), req.uri().path()) {
            Found::Endpoint(e, params) => (e, params),
            Found::MethodNotAllowed(allow) => {
                let resp = crate::error::ApiError::MethodNotAllowed(allow).to_response();
                return Box::pin(std::future::ready(resp));
            }
            Found::NotFound => {
                return Box::pin(std::future::ready(
                    crate::error::ApiError::NotFound.to_response(),
                ));
            }
        };
        let mut req = Req::new(state.clone(), req);
        if let Some(limit) = e.body_limit {
            req.body.cap(limit);
        }
        (e.handler)(req, params)
    }
}

fn allow_list(methods: &[&Method]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for m in &METHOD_ORDER {
        let served =
            methods.contains(&m) || (*m == Method::HEAD && methods.contains(&&Method::GET));
        if served {
            out.push(m.as_str());
        }
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(method: Method, path: &'static str) -> Endpoint {
        Endpoint::new(method, path, Auth::Public, "op", |_req, _p| async {
            crate::http::empty(warp::http::StatusCode::OK)
        })
    }

    fn router() -> Router {
        Router::new(vec![
            ep(Method::GET, "/api/v2/course/"),
            ep(Method::POST, "/api/v2/course/"),
            ep(Method::GET, "/api/v2/course/search/"),
            ep(Method::DELETE, "/api/v2/course/{id}/section/{section_id}/"),
            ep(Method::GET, "/media/{*path}"),
            ep(Method::POST, "/oauth/authorize"),
        ])
    }

    #[test]
    fn matches_literals_ids_and_tails() {
        let r = router();
        let found = |m: Method, p: &str| match r.find(&m, p) {
            Found::Endpoint(e, params) => Some((e.path, params)),
            _ => None,
        };
        let (path, params) =
            found(Method::DELETE, "/api/v2/course/7/section/-3/").unwrap_or_default();
        assert_eq!(path, "/api/v2/course/{id}/section/{section_id}/");
        assert_eq!((params.id(0), params.id(1)), (7, -3));
        assert_eq!(
            found(Method::GET, "/api/v2/course/search/").map(|f| f.0),
            Some("/api/v2/course/search/")
        );
        assert_eq!(found(Method::HEAD, "/api/v2/course/").map(|f| f.0), Some("/api/v2/course/"));
        assert_eq!(
            found(Method::GET, "/media/course/1/a.png").map(|f| f.1.tail().to_owned()),
            Some("course/1/a.png".into())
        );
        // an id that is not an integer, a missing or extra slash, an empty or slashed tail
        for p in [
            "/api/v2/course/x/section/1/",
            "/api/v2/course",
            "/api/v2/course/search",
            "/oauth/authorize/",
            "/media/",
            "/media/a/",
            "/api/v2/course//",
        ] {
            assert!(
                matches!(r.find(&Method::GET, p), Found::NotFound | Found::MethodNotAllowed(_))
                    && found(Method::GET, p).is_none(),
                "{p}"
            );
        }
        assert!(matches!(r.find(&Method::GET, "/api/v2/course/1/section/2"), Found::NotFound));
    }

    #[test]
    fn other_methods_get_the_allow_list_in_a_fixed_order() {
        let r = router();
        match r.find(&Method::PUT, "/api/v2/course/") {
            Found::MethodNotAllowed(a) => assert_eq!(a, "GET, HEAD, POST"),
            _ => unreachable!("PUT on the collection is not served"),
        }
        assert_eq!(r.allow("/oauth/authorize").as_deref(), Some("POST"));
        assert_eq!(r.allow("/nowhere/"), None);
    }

    /// The index finds what a scan of every template finds, for a path made from each
    /// of hearth's templates (and variants that must miss), with every method.
    #[test]
    fn the_index_finds_what_a_scan_finds() {
        let r = crate::api::router();
        let mut paths: Vec<String> =
            vec!["/".into(), "/nowhere".into(), "/a/b/c/d/e/f/g/h/i/j/k".into()];
        for e in r.endpoints() {
            let made = e.path.replace("{*path}", "a/b.png");
            let made: String = made
                .split('/')
                .map(|s| if s.starts_with('{') { "7" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            paths.extend([
                made.clone(),
                made.replace('7', "x"),
                format!("{made}extra/"),
                made.trim_end_matches('/').to_owned(),
            ]);
        }
        let key = |f: Found<'_>| match f {
            Found::Endpoint(e, p) => format!("{} {} {:?} {}", e.method, e.path, p.ids, p.tail),
            Found::MethodNotAllowed(a) => format!("405 {a}"),
            Found::NotFound => "404".to_owned(),
        };
        for p in &paths {
            for m in [
                Method::GET,
                Method::HEAD,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
                Method::OPTIONS,
            ] {
                assert_eq!(key(r.find(&m, p)), key(r.find_scanning(&m, p)), "{m} {p}");
            }
        }
    }

    #[test]
    fn params_name_the_template_parameters() {
        assert_eq!(ep(Method::GET, "/a/{id}/b/{section_id}/").params(), ["id", "section_id"]);
        assert_eq!(ep(Method::GET, "/media/{*path}").params(), ["path"]);
    }
}
