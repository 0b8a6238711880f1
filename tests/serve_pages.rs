//! The UI pages of `evacdoc serve`, in process (`tower::ServiceExt::oneshot` on the
//! service's router): signing in and out, pages refused when signed out, and the pages
//! of a real uploaded scenario.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use evacdoc::http::{ServeConfig, Service, router, start};
use tower::ServiceExt as _;

use crate::util::samples;

const TOKEN: &str = "pages-test-token";

/// A service over a temporary data folder, with a known token.
async fn service() -> (Service, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut config = ServeConfig::new(listen, dir.path().join("data"));
    config.token = Some(TOKEN.to_string());
    let service = start(config).await.unwrap();
    (service, dir)
}

/// An answer: status, headers, body as text.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap())
            .unwrap_or("")
    }
}

async fn send(service: &Service, request: Request<Body>) -> Answer {
    let response = router(service.state().clone())
        .oneshot(request)
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

async fn get(service: &Service, uri: &str, cookie: Option<&str>) -> Answer {
    let mut request = Request::get(uri);
    if let Some(c) = cookie {
        request = request.header(header::COOKIE, c);
    }
    send(service, request.body(Body::empty()).unwrap()).await
}

async fn post_form(service: &Service, uri: &str, form: &str, cookie: Option<&str>) -> Answer {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(uri)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        request = request.header(header::COOKIE, c);
    }
    send(service, request.body(Body::from(form.to_string())).unwrap()).await
}

/// Signs in: the cookie to send, and the session's CSRF token (from the home page).
async fn sign_in(service: &Service) -> (String, String) {
    let answer = post_form(service, "/login", &format!("token={TOKEN}&next=%2F"), None).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let set = answer.header(header::SET_COOKIE).to_string();
    let cookie = set.split(';').next().unwrap().to_string();
    let home = get(service, "/", Some(&cookie)).await;
    assert_eq!(home.status, StatusCode::OK);
    let csrf = between(&home.body, "<meta name=\"csrf-token\" content=\"", "\"").to_string();
    assert_eq!(csrf.len(), 64, "{}", home.body);
    (cookie, csrf)
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .map(|i| i + start.len())
        .unwrap_or_else(|| panic!("{start:?} not in page"));
    let len = text[from..].find(end).unwrap();
    &text[from..from + len]
}

/// Uploads `bytes` as `name`; the analysis id.
async fn upload(service: &Service, cookie: &str, csrf: &str, name: &str, bytes: Vec<u8>) -> String {
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("/api/v1/analyses?name={name}"))
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(header::COOKIE, cookie)
        .header("x-csrf-token", csrf)
        .body(Body::from(bytes))
        .unwrap();
    let answer = send(service, request).await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let created: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    created["id"].as_str().unwrap().to_string()
}

/// Waits until the analysis and its search index are done.
async fn wait_done(service: &Service, cookie: &str, id: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let answer = get(service, &format!("/api/v1/analyses/{id}"), Some(cookie)).await;
        let row: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert_ne!(row["status"], "failed", "{row}");
        if row["status"] == "done"
            && row["index"]["state"] != "pending"
            && row["index"]["state"] != "running"
        {
            assert_eq!(row["index"]["state"], "done", "{row}");
            return row;
        }
        assert!(
            Instant::now() < deadline,
            "analysis not done in time: {row}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A `.tar.gz` of a folder, under a top folder named after it.
fn tar_gz(folder: &Path) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut archive = tar::Builder::new(encoder);
    let top = folder.file_name().unwrap();
    archive.append_dir_all(top, folder).unwrap();
    let mut encoder = archive.into_inner().unwrap();
    encoder.flush().unwrap();
    encoder.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_in_and_out() {
    let (service, _dir) = service().await;

    let login = get(&service, "/login", None).await;
    assert_eq!(login.status, StatusCode::OK);
    assert!(login.body.contains("name=\"token\""), "{}", login.body);
    assert!(
        login
            .header(header::CONTENT_SECURITY_POLICY)
            .contains("script-src 'self'")
    );
    assert_eq!(login.header(header::CACHE_CONTROL), "no-store");

    let wrong = post_form(&service, "/login", "token=nope&next=%2F", None).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.body.contains("not this service"), "{}", wrong.body);
    assert!(wrong.header(header::SET_COOKIE).is_empty());

    // Signed out, pages send to the sign-in page and come back to where they were.
    let home = get(&service, "/", None).await;
    assert_eq!(home.status, StatusCode::SEE_OTHER);
    assert_eq!(home.header(header::LOCATION), "/login");
    let deep = get(
        &service,
        "/analyses/00000000-0000-4000-8000-000000000000/search?q=a",
        None,
    )
    .await;
    assert_eq!(deep.status, StatusCode::SEE_OTHER);
    assert_eq!(
        deep.header(header::LOCATION),
        "/login?next=%2Fanalyses%2F00000000-0000-4000-8000-000000000000%2Fsearch%3Fq%3Da"
    );
    let forged = get(&service, "/", Some("evacdoc_session=forged")).await;
    assert_eq!(forged.status, StatusCode::SEE_OTHER);

    // Signing in sets an HttpOnly, SameSite=Strict cookie and goes to `next` (only a
    // path of this site).
    let ok = post_form(
        &service,
        "/login",
        &format!("token={TOKEN}&next=%2Fanalyses%2Fx"),
        None,
    )
    .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    assert_eq!(ok.header(header::LOCATION), "/analyses/x");
    let set = ok.header(header::SET_COOKIE);
    assert!(set.starts_with("evacdoc_session="), "{set}");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    let away = post_form(
        &service,
        "/login",
        &format!("token={TOKEN}&next=https%3A%2F%2Fevil.example%2F"),
        None,
    )
    .await;
    assert_eq!(away.header(header::LOCATION), "/");

    let (cookie, csrf) = sign_in(&service).await;
    let home = get(&service, "/", Some(&cookie)).await;
    assert_eq!(home.status, StatusCode::OK);
    assert!(home.body.contains("No analyses yet"), "{}", home.body);

    // Signing out needs the session's CSRF token.
    let refused = post_form(&service, "/logout", "csrf=wrong", Some(&cookie)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let missing = post_form(&service, "/logout", "", Some(&cookie)).await;
    assert_eq!(missing.status, StatusCode::FORBIDDEN);
    assert_eq!(
        get(&service, "/", Some(&cookie)).await.status,
        StatusCode::OK
    );
    let out = post_form(&service, "/logout", &format!("csrf={csrf}"), Some(&cookie)).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.header(header::SET_COOKIE).contains("Max-Age=0"));
    assert_eq!(
        get(&service, "/", Some(&cookie)).await.status,
        StatusCode::SEE_OTHER
    );

    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_of_an_uploaded_scenario() {
    let (service, _dir) = service().await;
    let (cookie, csrf) = sign_in(&service).await;
    let bundle = tar_gz(&samples().join("scenarios/2020-juju-evacuate-race"));
    let id = upload(&service, &cookie, &csrf, "juju-race.tar.gz", bundle).await;

    // While it runs or once done, the home page lists it.
    let home = get(&service, "/", Some(&cookie)).await;
    assert!(home.body.contains("juju-race.tar.gz"), "{}", home.body);
    assert!(home.body.contains(&format!("/analyses/{id}")));
    wait_done(&service, &cookie, &id).await;
    let home = get(&service, "/", Some(&cookie)).await;
    assert!(home.body.contains("status-done"), "{}", home.body);

    // The analysis page: findings, hosts with zones, configuration, files.
    let page = get(&service, &format!("/analyses/{id}"), Some(&cookie)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    for part in [
        "Findings",
        "Clock skew",
        "wait_period_after_service_update",
        "service_down_time",
        "masakari-engine",
    ] {
        assert!(page.body.contains(part), "{part} not on the analysis page");
    }
    let finding_url = between(&page.body, "class=\"finding-title\" href=\"", "\"").to_string();
    assert!(
        finding_url.starts_with(&format!("/analyses/{id}/findings/evacuate-400-race")),
        "{finding_url}"
    );

    // The finding page: evidence linking to raw lines, config change, timeline links.
    let finding = get(&service, &finding_url, Some(&cookie)).await;
    assert_eq!(finding.status, StatusCode::OK, "{}", finding.body);
    assert!(finding.body.contains("Evidence"));
    assert!(
        finding.body.contains("<svg"),
        "the timeline picture is inline"
    );
    assert!(
        finding.body.contains("is still in use"),
        "the 400 is evidence"
    );
    assert!(
        finding.body.contains(&format!("/analyses/{id}/files/")),
        "evidence links to raw lines"
    );
    assert!(
        finding
            .body
            .contains(&format!("/analyses/{id}/timeline?instance="))
    );
    assert!(finding.body.contains("wait_period_after_service_update"));

    // Each evidence line's Copy control carries it as Markdown: host, time, the text fenced.
    let row = between(&finding.body, "<li class=\"log-row", "</li>");
    let host = between(row, "<span class=\"log-host mono\">", "<");
    let text = unescape(between(row, "<code class=\"log-text\">", "</code>"));
    let markdown = unescape(between(row, "data-copy-text=\"", "\""));
    assert!(markdown.starts_with(&format!("`{host}` 20")), "{markdown}");
    assert!(markdown.contains(" UTC `"), "{markdown}");
    assert!(
        markdown.ends_with(&format!("\n```\n{}\n```\n", text.trim_end())),
        "{markdown}"
    );
    assert!(
        finding
            .header(header::CONTENT_SECURITY_POLICY)
            .contains("frame-ancestors 'none'")
    );

    // A raw line the evidence links to is shown, highlighted.
    let files = format!("href=\"/analyses/{id}/files/");
    let raw_url = format!(
        "/analyses/{id}/files/{}",
        between(&finding.body, &files, "\"")
    )
    .replace("&amp;", "&");
    let raw = get(&service, raw_url.split('#').next().unwrap(), Some(&cookie)).await;
    assert_eq!(raw.status, StatusCode::OK, "{}", raw.body);
    assert!(
        raw.body.contains("class=\"target\""),
        "the linked line is highlighted"
    );

    // The timeline of an instance of the finding.
    let timeline_url =
        between(&finding.body, "class=\"chip mono\" href=\"", "\"").replace("&amp;", "&");
    let timeline = get(&service, &timeline_url, Some(&cookie)).await;
    assert_eq!(timeline.status, StatusCode::OK, "{}", timeline.body);
    assert!(timeline.body.contains("log-row"), "{}", timeline.body);

    // Search marks the words found; a bad query says why.
    let search = get(
        &service,
        &format!("/analyses/{id}/search?q=evacuate"),
        Some(&cookie),
    )
    .await;
    assert_eq!(search.status, StatusCode::OK);
    assert!(search.body.contains("<mark>"), "{}", search.body);
    let hit = unescape(between(&search.body, "data-copy-text=\"", "\""));
    assert!(hit.contains("evacuate") && hit.contains("\n```\n"), "{hit}");
    assert!(search.body.contains("lines match") || search.body.contains("1 line matches"));
    let bad = get(
        &service,
        &format!("/analyses/{id}/search?q=%22unclosed&from=yesterday"),
        Some(&cookie),
    )
    .await;
    assert!(bad.body.contains("class=\"alert bad\""), "{}", bad.body);

    // Unknown analyses and findings are a page saying so, not a crash.
    let none = get(
        &service,
        &format!("/analyses/{id}/findings/nope"),
        Some(&cookie),
    )
    .await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
    assert!(none.body.contains("finding not found"));

    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lines_are_escaped() {
    let (service, _dir) = service().await;
    let (cookie, csrf) = sign_in(&service).await;
    let line = "2024-10-08 06:25:03.123 1234 ERROR nova.api.openstack.wsgi [req-5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11 - - - - -] bad name <script>alert('x')</script> & more\n";
    let id = upload(
        &service,
        &cookie,
        &csrf,
        "nova-api.log",
        line.as_bytes().to_vec(),
    )
    .await;
    wait_done(&service, &cookie, &id).await;

    let search = get(
        &service,
        &format!("/analyses/{id}/search?q=alert"),
        Some(&cookie),
    )
    .await;
    assert_eq!(search.status, StatusCode::OK, "{}", search.body);
    assert!(!search.body.contains("<script>alert"), "{}", search.body);
    assert!(search.body.contains("&lt;script&gt;"), "{}", search.body);
    assert!(
        search.body.contains("<mark>alert</mark>"),
        "{}",
        search.body
    );

    let raw = get(
        &service,
        &format!("/analyses/{id}/files/0?line=1"),
        Some(&cookie),
    )
    .await;
    assert_eq!(raw.status, StatusCode::OK, "{}", raw.body);
    assert!(!raw.body.contains("<script>alert"), "{}", raw.body);
    assert!(
        raw.body
            .contains("&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62; &#38; more"),
        "{}",
        raw.body
    );

    service.shutdown().await;
}

/// Text of an HTML attribute, unescaped.
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&gt;", ">")
        .replace("&#38;", "&")
        .replace("&amp;", "&")
}

/// Every byte but letters and digits as `%XX`.
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_is_previewed_shared_once_and_revoked_from_the_pages() {
    let (service, _dir) = service().await;
    let (cookie, csrf) = sign_in(&service).await;
    let bundle = tar_gz(&samples().join("scenarios/2020-juju-evacuate-race"));
    let id = upload(&service, &cookie, &csrf, "juju-race.tar.gz", bundle).await;
    wait_done(&service, &cookie, &id).await;
    let page = get(&service, &format!("/analyses/{id}"), Some(&cookie)).await;
    assert!(
        page.body
            .contains(&format!("/analyses/{id}/share?scope=analysis"))
    );
    let finding_url = between(&page.body, "class=\"finding-title\" href=\"", "\"").to_string();
    let finding = get(&service, &finding_url, Some(&cookie)).await;
    let share_url = unescape(between(&finding.body, "class=\"share-link\" href=\"", "\""));
    assert!(
        share_url.starts_with(&format!("/analyses/{id}/share?scope=finding&finding=")),
        "{share_url}"
    );

    // The preview: the redacted finding, nothing shared yet.
    let preview = get(&service, &share_url, Some(&cookie)).await;
    assert_eq!(preview.status, StatusCode::OK, "{}", preview.body);
    assert!(preview.body.contains("Share: preview"));
    assert!(preview.body.contains("is still in use"));
    assert!(preview.body.contains("Compute service of host-"));
    assert!(
        !preview.body.contains("node02ob100"),
        "the preview is redacted"
    );
    assert!(!preview.body.contains("/s/"), "no link yet");
    // The redaction report beside the button: lines shown and replacements by kind.
    let report = between(&preview.body, "id=\"redaction-report\"", "</div>");
    assert!(report.contains("lines shown"), "{report}");
    // How many lines are of a known message and how many were reduced to the
    // vocabulary, adding up to the lines shown.
    let number = |id: &str| -> u64 {
        between(report, &format!("id=\"{id}\">"), "<")
            .trim()
            .parse()
            .unwrap()
    };
    let shown: u64 = between(report, "id=\"redaction-lines\">", " lines shown")
        .trim()
        .parse()
        .unwrap();
    assert!(number("redaction-templated") > 0, "{report}");
    assert_eq!(
        number("redaction-templated") + number("redaction-vocabulary"),
        shown,
        "{report}"
    );
    assert!(report.contains("<code>host</code>"), "{report}");
    assert!(
        preview.body.find("Make the link") < preview.body.find("id=\"redaction-report\""),
        "after the form's button"
    );
    let scope = unescape(between(&preview.body, "name=\"scope\" value=\"", "\""));

    // Made with the session's CSRF token only; the link is shown once.
    let form = format!("scope={}&days=7&note=for+launchpad", form_encode(&scope));
    let forged = post_form(
        &service,
        &format!("/analyses/{id}/share"),
        &format!("csrf=nope&{form}"),
        Some(&cookie),
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let made = post_form(
        &service,
        &format!("/analyses/{id}/share"),
        &format!("csrf={csrf}&{form}"),
        Some(&cookie),
    )
    .await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.body);
    let link = between(&made.body, "readonly value=\"", "\"").to_string();
    let path = &link[link.find("/s/").unwrap()..];
    assert_eq!(path.len(), 3 + 64, "{link}");
    let public = get(&service, path, None).await;
    assert_eq!(public.status, StatusCode::OK, "{}", public.body);
    assert!(public.body.contains("is still in use"));
    assert!(!public.body.contains("node02ob100"));
    // Its lines come as Markdown too, redacted as shown (the host name is not above), to
    // select by hand: a public page runs no script.
    let copied = unescape(between(
        &public.body,
        "<pre class=\"line-markdown mono\">",
        "</pre>",
    ));
    assert!(copied.contains("\n```\n"), "{copied}");
    assert!(
        !public.body.contains("csrf"),
        "nothing of the session on a public page"
    );
    assert_eq!(public.header(header::REFERRER_POLICY), "no-referrer");
    let again = get(&service, &share_url, Some(&cookie)).await;
    assert!(!again.body.contains(path), "the link is never shown again");
    assert!(again.body.contains("for launchpad") && again.body.contains(">live<"));

    // Revoked from the list: the link answers 404.
    let share_id = between(&again.body, &format!("/analyses/{id}/shares/"), "/revoke").to_string();
    let revoke_url = format!("/analyses/{id}/shares/{share_id}/revoke");
    let forged = post_form(&service, &revoke_url, "csrf=nope", Some(&cookie)).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let revoked = post_form(
        &service,
        &revoke_url,
        &format!("csrf={csrf}"),
        Some(&cookie),
    )
    .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    assert_eq!(
        get(&service, path, None).await.status,
        StatusCode::NOT_FOUND
    );
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_addresses_get_the_ui_error_page_or_the_api_error() {
    let (service, _dir) = service().await;
    let (cookie, _csrf) = sign_in(&service).await;
    // A page address nobody serves: the UI's own 404 page, not the browser's bare one.
    for cookie in [Some(cookie.as_str()), None] {
        let page = get(&service, "/nope", cookie).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND);
        assert!(page.header(header::CONTENT_TYPE).starts_with("text/html"));
        assert!(
            page.body.contains("That page could not be shown"),
            "{}",
            page.body
        );
    }
    // Under /api/ the API's JSON error, as every other API answer.
    let api = get(&service, "/api/v1/nope", Some(&cookie)).await;
    assert_eq!(api.status, StatusCode::NOT_FOUND);
    assert!(
        api.header(header::CONTENT_TYPE)
            .starts_with("application/json")
    );
    assert!(api.body.contains("not_found"), "{}", api.body);
    service.shutdown().await;
}
