//! The oslo.log context bracket: `[<global> <request> <user identity>]`.
//!
//! Forms seen in real logs (section 1.5 of the reference):
//!
//! | form | example |
//! |---|---|
//! | no context | `[-]` |
//! | Zed+ (oslo.log 4.8.0+) | `[None req-<uuid> <user> <project> - - <ud> <pd>]`, `[req-<G> req-<L> nova - - - - -]` |
//! | pre-Zed | `[req-<uuid> <user> <project> - default default]`, `[req-<uuid> - - - - -]` |
//! | DevStack and other custom formats | `[req-<uuid> <project_name> <user_name>]` |

use serde::Serialize;

use crate::error::{PResult, expected};
use crate::text::is_request_id;

/// Which bracket layout a line used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContextForm {
    /// `[-]`: no request context.
    Empty,
    /// `[req-L user project domain user_domain project_domain]`.
    PreZed,
    /// `[G req-L user project domain system_scope user_domain project_domain]`, `G` a
    /// request id or `None`.
    Zed,
    /// Anything else; only the request id is read when one is there.
    Custom,
}

/// A parsed context bracket. Identity fields are `None` where the line has `-`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Context<'a> {
    /// The bracket's content as written, without the brackets.
    pub raw: &'a str,
    /// The layout.
    pub form: ContextForm,
    /// Global request id (Zed+ only): the id of the request that started the work in
    /// another service. Masakari passes its own to Nova, so it joins the two logs.
    pub global_request_id: Option<&'a str>,
    /// This service's request id.
    pub request_id: Option<&'a str>,
    /// User id or name.
    pub user: Option<&'a str>,
    /// Project id or name.
    pub project: Option<&'a str>,
    /// Domain id.
    pub domain: Option<&'a str>,
    /// System scope (Zed+ only).
    pub system_scope: Option<&'a str>,
    /// User domain id.
    pub user_domain: Option<&'a str>,
    /// Project domain id.
    pub project_domain: Option<&'a str>,
}

fn field(token: Option<&str>) -> Option<&str> {
    token.filter(|t| *t != "-" && *t != "None")
}

impl<'a> Context<'a> {
    fn empty(raw: &'a str, form: ContextForm) -> Context<'a> {
        Context {
            raw,
            form,
            global_request_id: None,
            request_id: None,
            user: None,
            project: None,
            domain: None,
            system_scope: None,
            user_domain: None,
            project_domain: None,
        }
    }

    /// Interprets the text between the brackets.
    pub fn from_inner(raw: &'a str) -> Context<'a> {
        // One pass over the bracket (this is the hottest code of an oslo line): the
        // first tokens, and their count up to one more than any form has.
        let mut tokens = [""; 8];
        let mut count = 0;
        for token in (Tokens { rest: raw }) {
            if let Some(slot) = tokens.get_mut(count) {
                *slot = token;
            }
            count += 1;
            if count > tokens.len() {
                break;
            }
        }
        let token = |i: usize| tokens.get(i).copied().filter(|_| i < count);
        if count == 0 {
            return Context::empty(raw, ContextForm::Custom);
        }
        let first = tokens[0];
        if raw.bytes().all(|b| b == b'-' || b == b' ') {
            return Context::empty(raw, ContextForm::Empty);
        }
        let first_is_id = is_request_id(first);
        if (first_is_id || first == "None") && token(1).is_some_and(is_request_id) {
            Context {
                global_request_id: field(Some(first)),
                request_id: token(1),
                user: field(token(2)),
                project: field(token(3)),
                domain: field(token(4)),
                system_scope: field(token(5)),
                user_domain: field(token(6)),
                project_domain: field(token(7)),
                ..Context::empty(raw, ContextForm::Zed)
            }
        } else if first_is_id && count == 6 {
            Context {
                request_id: Some(first),
                user: field(token(1)),
                project: field(token(2)),
                domain: field(token(3)),
                user_domain: field(token(4)),
                project_domain: field(token(5)),
                ..Context::empty(raw, ContextForm::PreZed)
            }
        } else {
            Context {
                request_id: Tokens { rest: raw }.find(|t| is_request_id(t)),
                ..Context::empty(raw, ContextForm::Custom)
            }
        }
    }
}

/// The non-empty tokens of a bracket, split on spaces (`str::split` with a `char`
/// pattern is several times slower here: it compares each match with `memcmp`).
struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.rest.as_bytes();
        let start = bytes.iter().position(|b| *b != b' ')?;
        let end = memchr::memchr(b' ', bytes.get(start..).unwrap_or_default())
            .map_or(bytes.len(), |len| start + len);
        // `start` and `end` are at spaces or the ends: char boundaries.
        let token = self.rest.get(start..end).unwrap_or("");
        self.rest = self.rest.get(end..).unwrap_or("");
        Some(token)
    }
}

/// Reads a context bracket: `[` content `]`, followed by a space or the end of the line.
/// The `[instance: <uuid>]` prefix is not a context.
///
/// ```
/// use evacdoc_parsers::context::{context, ContextForm};
/// let (rest, ctx) = context("[None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data").unwrap();
/// assert_eq!(rest, " Global data");
/// assert_eq!(ctx.form, ContextForm::Zed);
/// assert_eq!(ctx.request_id, Some("req-e6ffeac2-d6b5-469e-83e7-4169ad520421"));
/// assert_eq!(ctx.global_request_id, None);
/// ```
pub fn context(input: &str) -> PResult<'_, Context<'_>> {
    let (rest, raw) = context_span(input)?;
    Ok((rest, Context::from_inner(raw)))
}

/// Finds a context bracket without interpreting it: its content, and the input after
/// `]`. Reading the fields ([`Context::from_inner`]) is left to the lines that need them.
pub fn context_span(input: &str) -> PResult<'_, &str> {
    let Some(inner) = input.strip_prefix('[') else {
        return expected(input, "context bracket");
    };
    if inner.starts_with("instance: ") {
        return expected(input, "context bracket");
    }
    let Some(end) = memchr::memchr(b']', inner.as_bytes()) else {
        return expected(input, "end of context bracket");
    };
    let (raw, rest) = inner.split_at(end);
    let rest = &rest[1..];
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return expected(rest, "space after context bracket");
    }
    Ok((rest, raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(s: &str) -> Context<'_> {
        let (rest, c) = context(s).unwrap();
        assert_eq!(rest, " msg");
        c
    }

    #[test]
    fn empty_forms() {
        assert_eq!(ctx("[-] msg").form, ContextForm::Empty);
        assert_eq!(ctx("[- - - - - - -] msg").form, ContextForm::Empty);
    }

    #[test]
    fn zed_forms() {
        let c = ctx(
            "[None req-11111111-2222-3333-4444-555555555555 0f1e2d3c4b5a69788796a5b4c3d2e1f0 \
             a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] msg",
        );
        assert_eq!(c.form, ContextForm::Zed);
        assert_eq!(c.global_request_id, None);
        assert_eq!(
            c.request_id,
            Some("req-11111111-2222-3333-4444-555555555555")
        );
        assert_eq!(c.user, Some("0f1e2d3c4b5a69788796a5b4c3d2e1f0"));
        assert_eq!(c.project, Some("a1b2c3d4e5f60718293a4b5c6d7e8f90"));
        assert_eq!(c.domain, None);
        assert_eq!(c.system_scope, None);
        assert_eq!(c.user_domain, Some("default"));
        assert_eq!(c.project_domain, Some("default"));

        let c = ctx(
            "[req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be \
             nova - - - - -] msg",
        );
        assert_eq!(c.form, ContextForm::Zed);
        assert_eq!(
            c.global_request_id,
            Some("req-11111111-2222-3333-4444-555555555555")
        );
        assert_eq!(
            c.request_id,
            Some("req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be")
        );
        assert_eq!(c.user, Some("nova"));

        let c = ctx("[None req-a49b59c8-ae66-4306-938a-49d97c4d3c44 - - - - - -] msg");
        assert_eq!(c.form, ContextForm::Zed);
        assert_eq!(c.user, None);
    }

    #[test]
    fn pre_zed_forms() {
        let c = ctx("[req-ceba6651-a42e-4c80-aec9-8128099a8ded nova - - - -] msg");
        assert_eq!(c.form, ContextForm::PreZed);
        assert_eq!(
            c.request_id,
            Some("req-ceba6651-a42e-4c80-aec9-8128099a8ded")
        );
        assert_eq!(c.user, Some("nova"));
        let c = ctx(
            "[req-de76dedd-c998-4325-9546-0034cfab78e3 9942eb4321644336a0c7383d9f1c2bed \
             a7d812868cb74f1a978035530f55f1d0 - default default] msg",
        );
        assert_eq!(c.form, ContextForm::PreZed);
        assert_eq!(c.project, Some("a7d812868cb74f1a978035530f55f1d0"));
        assert_eq!(c.user_domain, Some("default"));
        let c = ctx("[req-7590b5c4-185f-48d7-95aa-baa178d73d3a - - - - -] msg");
        assert_eq!(c.form, ContextForm::PreZed);
        assert_eq!(c.user, None);
    }

    #[test]
    fn custom_forms_keep_raw_and_request_id() {
        let c = ctx("[req-5b7a5ab3-5a6e-4e0c-9f8a-3c1d2b4a5e6f demo admin] msg");
        assert_eq!(c.form, ContextForm::Custom);
        assert_eq!(
            c.request_id,
            Some("req-5b7a5ab3-5a6e-4e0c-9f8a-3c1d2b4a5e6f")
        );
        assert_eq!(c.raw, "req-5b7a5ab3-5a6e-4e0c-9f8a-3c1d2b4a5e6f demo admin");
        let c = ctx("[admin|demo] msg");
        assert_eq!((c.form, c.request_id), (ContextForm::Custom, None));
    }

    #[test]
    fn not_a_context() {
        assert!(context("[instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] x").is_err());
        assert!(context("[req-x unterminated").is_err());
        assert!(context("[-]x").is_err());
        assert!(context("no bracket").is_err());
        assert_eq!(
            context("[-]").map(|(r, c)| (r, c.form)),
            Ok(("", ContextForm::Empty))
        );
    }
}
