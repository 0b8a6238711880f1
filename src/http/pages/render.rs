//! Sending a page: the template rendered, with the headers every page carries (a strict
//! Content-Security-Policy, no caching); and the error page.

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::assets;
use crate::http::error::ApiError;

/// The policy of every page: nothing from elsewhere, no inline script (the JS is
/// `/static/app.js`), inline styles allowed for the SVG pictures that carry their own.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
    style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; \
    base-uri 'none'; form-action 'self'";

/// What the frame around every page shows: its title, the analysis it belongs to, the
/// session's CSRF token (for the upload and the sign-out form).
#[derive(Debug, Clone, Default)]
pub struct Chrome {
    /// The page's title (before `· evacdoc`).
    pub title: String,
    /// The session's CSRF token; empty when signed out.
    pub csrf: String,
    /// The analysis the page is about, for the header's link and search box.
    pub analysis: Option<Crumb>,
    /// The assets' version, to make their URLs change when they do.
    pub assets: &'static str,
}

/// The analysis a page belongs to.
#[derive(Debug, Clone)]
pub struct Crumb {
    pub id: String,
    pub name: String,
}

impl Chrome {
    /// The frame of a page titled `title`, for a session with `csrf`.
    pub fn new(title: impl Into<String>, csrf: &str) -> Chrome {
        Chrome {
            title: title.into(),
            csrf: csrf.to_string(),
            analysis: None,
            assets: assets::version(),
        }
    }

    /// The same frame, on the pages of analysis `id` called `name`.
    pub fn within(mut self, id: &str, name: &str) -> Chrome {
        self.analysis = Some(Crumb {
            id: id.to_string(),
            name: name.to_string(),
        });
        self
    }

    /// Whether a session is signed in (the sign-out form and the CSRF meta tag).
    pub fn signed_in(&self) -> bool {
        !self.csrf.is_empty()
    }
}

/// A rendered page with `status`, or the error page when the template fails.
pub fn page(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => with_page_headers((status, html).into_response()),
        Err(e) => PageError::from(ApiError::internal(format!("template: {e}"))).into_response(),
    }
}

/// A rendered page, 200.
pub fn ok(template: &impl Template) -> Response {
    page(StatusCode::OK, template)
}

/// Adds the headers of a page to `response`.
pub fn with_page_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

/// A page that could not be shown: its status and a message for a person.
#[derive(Debug, Clone)]
pub struct PageError {
    pub status: StatusCode,
    pub message: String,
}

impl PageError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> PageError {
        PageError {
            status,
            message: message.into(),
        }
    }
}

impl From<ApiError> for PageError {
    fn from(error: ApiError) -> PageError {
        PageError {
            status: error.status,
            message: error.message,
        }
    }
}

impl From<tokio::task::JoinError> for PageError {
    fn from(error: tokio::task::JoinError) -> PageError {
        ApiError::internal(error).into()
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    chrome: Chrome,
    status: u16,
    reason: &'a str,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let template = ErrorPage {
            chrome: Chrome::new(self.status.canonical_reason().unwrap_or("Error"), ""),
            status: self.status.as_u16(),
            reason: self.status.canonical_reason().unwrap_or("Error"),
            message: &self.message,
        };
        match template.render() {
            Ok(html) => with_page_headers((self.status, html).into_response()),
            // The error page is static text: this cannot fail in practice, but never panic.
            Err(_) => (self.status, self.message).into_response(),
        }
    }
}
