//! The support engineer's workbench (issue 28) on a loopback service with real sample
//! bundles: the recoveries table and environment card first on the analysis page, the
//! honest "Nothing readable", Remediate only where something is left to recover, paged
//! and compressed timelines, a notification's timeline holding its own recovery only,
//! the redacted bug text, kept lines of config files and captures, HTML 404s.

use std::io::Read as _;

use reqwest::header;
use serde_json::Value;

use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};

/// A client that follows no redirect (the sign-in answers 303 with its cookie) and
/// leaves a gzipped body as sent (its size is measured).
fn raw_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_gzip()
        .build()
        .unwrap()
}

/// Text of an HTML attribute, unescaped (`&#38;` is how the pages write `&`).
fn unescape(text: &str) -> String {
    text.replace("&#38;", "&").replace("&amp;", "&")
}

/// A signed-in browser of `server`: its session cookie.
async fn session(server: &TestServer) -> String {
    let answer = raw_client()
        .post(server.url("/login"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(format!("token={TOKEN}&next=%2F"))
        .send()
        .await
        .unwrap();
    let set = answer.headers()[header::SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_string()
}

/// A page as the signed-in browser gets it: status and body.
async fn page(server: &TestServer, cookie: &str, path: &str) -> (u16, String) {
    let answer = server
        .client
        .get(server.url(path))
        .header(header::COOKIE, cookie)
        .send()
        .await
        .unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

/// Uploads a sample scenario and waits for it; the analysis id.
async fn analysed(server: &TestServer, name: &str) -> String {
    let id = server
        .upload(&format!("{name}.tar.gz"), scenario_tar_gz(name))
        .await;
    let row = server.wait_done(&id).await;
    assert_eq!(row["status"], "done", "{row}");
    id
}

/// The text between `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .map(|i| i + start.len())
        .unwrap_or_else(|| panic!("{start:?} not in {text}"));
    let len = text[from..].find(end).unwrap();
    &text[from..from + len]
}

/// The rows of the recoveries table: each row's cells' text, tags stripped.
fn recovery_rows(body: &str) -> Vec<Vec<String>> {
    let table = between(body, "<table class=\"list recoveries\">", "</table>");
    let tbody = between(table, "<tbody>", "</tbody>");
    tbody
        .split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| strip_tags(&format!("<td{cell}")).trim().to_string())
                .collect()
        })
        .collect()
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_analysis_page_shows_every_recovery_and_its_outcome_first() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2022-kolla-yoga-two-hosts-interleaved-race").await;
    let (status, body) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    assert_eq!(status, 200, "{body}");

    // Recoveries, then the environment, then the findings.
    let at = |marker: &str| body.find(marker).unwrap_or_else(|| panic!("{marker}"));
    assert!(at("id=\"recoveries\"") < at("id=\"environment\""));
    assert!(at("id=\"environment\"") < at("id=\"findings\""));

    // Both hosts' notifications: cmp02's first run refused (400), its retry `finished`
    // with both instances moved; cmp03's `finished` with its one instance moved. The
    // race's finding is on cmp02's row.
    let rows = recovery_rows(&body);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let row = |notification: &str| {
        rows.iter()
            .find(|r| r[0].starts_with(notification))
            .unwrap_or_else(|| panic!("{notification} not in {rows:?}"))
    };
    let counts = |r: &[String]| (r[6].clone(), r[7].clone(), r[8].clone());
    let cmp02 = row("6916637e");
    assert_eq!(
        (cmp02[1].as_str(), cmp02[2].as_str(), cmp02[5].as_str()),
        ("COMPUTE_HOST", "cmp02", "finished")
    );
    assert_eq!(
        counts(cmp02),
        ("2".into(), "0".into(), "0".into()),
        "{cmp02:?}"
    );
    assert!(cmp02[9].contains("evacuate-400-race"), "{cmp02:?}");
    assert!(cmp02[3].starts_with("2022-06-14 08:42"), "{cmp02:?}");
    let cmp03 = row("cc60c118");
    assert_eq!(
        (cmp03[2].as_str(), cmp03[5].as_str()),
        ("cmp03", "finished")
    );
    assert_eq!(
        counts(cmp03),
        ("1".into(), "0".into(), "0".into()),
        "{cmp03:?}"
    );

    // Its finding: every move done, so Remediate is not offered; it says why.
    let finding =
        format!("/analyses/{id}/findings/evacuate-400-race:6916637e-b48a-42c6-b1ca-c1e4ee82d1e8");
    let (status, finding) = page(&server, &cookie, &finding).await;
    assert_eq!(status, 200, "{finding}");
    assert!(!finding.contains("data-remediation-url"), "no Remediate");
    assert!(finding.contains("Nothing is left to recover"), "{finding}");

    // The environment card: layout, series and versions from the package lists (none in
    // this hand-written bundle: it says so), the logs' time range, files and unparsed.
    let card = between(&body, "id=\"environment\"", "</section>");
    for part in [
        "layout",
        "series",
        "Masakari",
        "log time range",
        "2022-06-14 06:02",
        "unparsed lines",
        "files read",
    ] {
        assert!(card.contains(part), "{part} not in {card}");
    }
    assert!(!body.contains("Nothing readable"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_with_nothing_readable_says_so_not_a_green_all_clear() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    // Bytes that are no file type at all fail the analysis, saying so; a log of lines
    // no format fits is read, and nothing in it is readable.
    let junk: Vec<u8> = (0u32..20_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let id = server.upload("junk.bin", junk).await;
    let row = server.wait_done(&id).await;
    assert_eq!(row["status"], "failed", "{row}");
    let (_, body) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    assert!(body.contains("The analysis failed") && !body.contains("No detector fired"));
    let prose: String = (0..300)
        .map(|i| format!("note {i}: the customer rebooted the rack and called us back\n"))
        .collect();
    let id = server.upload("junk.log", prose.into_bytes()).await;
    let row = server.wait_done(&id).await;
    assert_eq!(row["status"], "done", "{row}");
    let (status, body) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let alert = between(&body, "nothing-readable", "</div>");
    assert!(alert.contains("Nothing readable"), "{alert}");
    assert!(
        alert.contains("junk.log"),
        "the reasons name the file: {alert}"
    );
    assert!(!body.contains("No detector fired"), "{body}");
    assert!(!body.contains("alert good"), "{body}");
    server.stop().await;
}

/// The response to a GET with `accept-encoding: gzip`: status, headers, the body as sent
/// and as read.
async fn gzipped(
    server: &TestServer,
    cookie: &str,
    path: &str,
) -> (u16, header::HeaderMap, usize, String) {
    let answer = raw_client()
        .get(server.url(path))
        .header(header::COOKIE, cookie)
        .header(header::ACCEPT_ENCODING, "gzip")
        .send()
        .await
        .unwrap();
    let (status, headers) = (answer.status().as_u16(), answer.headers().clone());
    let bytes = answer.bytes().await.unwrap();
    let text = if headers
        .get(header::CONTENT_ENCODING)
        .is_some_and(|v| v == "gzip")
    {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (status, headers, bytes.len(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timelines_are_paged_filtered_by_time_and_compressed() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2022-kolla-yoga-two-hosts-interleaved-race").await;

    // The API: every row of the host's day, with their count in `x-total-count`.
    let api = format!("/api/v1/analyses/{id}/timeline?host=ctl01");
    let (status, headers, sent, text) = gzipped(&server, &cookie, &api).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    assert!(
        sent * 3 < text.len(),
        "{sent} bytes sent for {}",
        text.len()
    );
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    let total: usize = headers["x-total-count"].to_str().unwrap().parse().unwrap();
    assert_eq!(rows.len(), total);
    assert!(total > 50, "{total}");

    // From and to, in RFC 3339 or as the pages show times: only the rows between.
    for (from, to) in [
        ("2022-06-14T08:43:11Z", "2022-06-14T08:43:14Z"),
        ("2022-06-14%2008:43:11", "2022-06-14%2008:43:14.000"),
    ] {
        let (status, headers, _, text) =
            gzipped(&server, &cookie, &format!("{api}&from={from}&to={to}")).await;
        assert_eq!(status, 200, "{text}");
        let within: Vec<Value> = serde_json::from_str(&text).unwrap();
        let count: usize = headers["x-total-count"].to_str().unwrap().parse().unwrap();
        assert_eq!(within.len(), count);
        assert!(count > 0 && count < total, "{count} of {total}");
        for row in &within {
            let t = row["timestamp"].as_str().unwrap();
            assert!(
                ("2022-06-14T08:43:11"..="2022-06-14T08:43:14.999").contains(&t),
                "{t}"
            );
        }
    }
    let (status, _, _, text) = gzipped(&server, &cookie, &format!("{api}&from=yesterday")).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("from"), "{text}");

    // The page: the count, the range kept in the form, no pager for one page.
    let (status, _, _, body) = gzipped(
        &server,
        &cookie,
        &format!(
            "/analyses/{id}/timeline?host=ctl01&from=2022-06-14%2008:43:11&to=2022-06-14%2008:43:14"
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("value=\"2022-06-14 08:43:11\""),
        "the form keeps the range"
    );
    assert!(!body.contains("class=\"pager\""));
    assert!(body.contains("lvl-error"), "ERROR lines are marked");
    // Whole-second Apache lines read HH:MM:SS, never a made-up .000.
    assert!(!body.contains("08:43:12.000<"), "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_timeline_holds_only_its_own_recovery() {
    let server = TestServer::start().await;
    let id = analysed(&server, "2022-kolla-yoga-two-hosts-interleaved-race").await;
    let texts = |rows: &Value| -> Vec<String> {
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["text"].as_str().unwrap().to_string())
            .collect()
    };
    let first = texts(
        &server
            .get_json(&format!(
                "/api/v1/analyses/{id}/timeline?notification=6916637e-b48a-42c6-b1ca-c1e4ee82d1e8"
            ))
            .await,
    );
    assert!(
        first.iter().any(|t| t.contains("still in use")),
        "{first:#?}"
    );
    assert!(
        !first.iter().any(|t| t.contains("cc60c118")),
        "the other host's notification stays out: {first:#?}"
    );
    assert!(
        !first.iter().any(|t| t.contains("98ed2355")),
        "the other host's instance stays out: {first:#?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bug_text_is_redacted_and_offered_on_the_analysis_and_finding_pages() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2022-kolla-yoga-two-hosts-interleaved-race").await;
    let (_, analysis) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    assert!(
        analysis.contains("id=\"bug-tracker\""),
        "the panel is on the analysis page"
    );
    let text_url = between(&analysis, "id=\"bug-text\"", ">");
    let text_url = unescape(between(text_url, "data-src=\"", "\""));
    let finding_url = between(&analysis, "class=\"finding-title\" href=\"", "\"").to_string();
    let (_, finding) = page(&server, &cookie, &finding_url).await;
    let finding_text = between(&finding, "id=\"bug-text\"", ">");
    let finding_text = unescape(between(finding_text, "data-src=\"", "\""));
    assert!(finding_text.contains("&finding="), "{finding_text}");

    for url in [
        text_url,
        finding_text.clone(),
        finding_text.replace("format=text", "format=markdown"),
    ] {
        let (status, body) = page(&server, &cookie, &url).await;
        assert_eq!(status, 200, "{url}: {body}");
        assert!(body.contains("is still in use"), "{url}: {body}");
        for raw in ["cmp02", "cmp03", "ctl01", "10.30.0."] {
            assert!(
                !body.contains(raw),
                "{raw} in the bug text of {url}: {body}"
            );
        }
    }
    let (_, markdown) = page(
        &server,
        &cookie,
        &finding_text.replace("format=text", "format=markdown"),
    )
    .await;
    assert!(
        markdown.contains("```"),
        "evidence as a code block: {markdown}"
    );
    let (status, _) = page(
        &server,
        &cookie,
        &format!("/api/v1/analyses/{id}/bug-text?finding=nope"),
    )
    .await;
    assert_eq!(status, 404);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_files_open_as_kept_lines_and_unknown_files_are_html_404s() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2022-kolla-yoga-two-hosts-interleaved-race").await;
    let (_, analysis) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    // The configuration table links its values to the kept lines of their file.
    let kept = between(&analysis, "href=\"/analyses/", "\"");
    let kept = analysis
        .split("href=\"")
        .map(|s| s.split('"').next().unwrap())
        .find(|u| u.contains("/kept?path="))
        .map(unescape)
        .unwrap_or_else(|| panic!("no kept link ({kept})"));
    let (status, body) = page(&server, &cookie, &kept).await;
    assert_eq!(status, 200, "{kept}: {body}");
    assert!(body.contains("class=\"target\""), "the line is highlighted");
    assert!(body.contains(">config<"), "{body}");

    for path in [
        format!("/analyses/{id}/files/abc"),
        format!("/analyses/{id}/kept?path=etc%2Fnothing.conf"),
        "/nope".to_string(),
    ] {
        let answer = server
            .client
            .get(server.url(&path))
            .header(header::COOKIE, &cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), 404, "{path}");
        let kind = answer.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_string();
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_page_of_an_analysis_exceeds_500_kb_compressed() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2020-juju-evacuate-race").await;
    let (_, analysis) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    // Every page the analysis page links to, and the timelines of every host.
    let mut pages: Vec<String> = analysis
        .split("href=\"")
        .skip(1)
        .map(|s| unescape(s.split('"').next().unwrap()))
        .filter(|u| u.starts_with(&format!("/analyses/{id}")))
        .map(|u| u.split('#').next().unwrap().to_string())
        .collect();
    pages.push(format!("/analyses/{id}"));
    pages.sort();
    pages.dedup();
    assert!(pages.len() > 10, "{pages:?}");
    for path in &pages {
        let (status, headers, sent, _) = gzipped(&server, &cookie, path).await;
        assert_eq!(status, 200, "{path}");
        assert!(sent < 500 * 1024, "{path}: {sent} bytes compressed");
        if sent > 1024 {
            assert_eq!(headers[header::CONTENT_ENCODING], "gzip", "{path}");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remediate_is_offered_where_an_instance_is_left_behind() {
    let server = TestServer::start().await;
    let cookie = session(&server).await;
    let id = analysed(&server, "2022-juju-pending-after-finished-yoga").await;
    let (_, body) = page(&server, &cookie, &format!("/analyses/{id}")).await;
    let rows = recovery_rows(&body);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (
            rows[0][5].as_str(),
            rows[0][6].as_str(),
            rows[0][8].as_str()
        ),
        ("finished", "2", "1"),
        "finished, yet one instance pending: {rows:?}"
    );
    assert!(body.contains("<tr class=\"attention\">"));
    let finding = between(&body, "class=\"finding-title\" href=\"", "\"").to_string();
    let (_, finding) = page(&server, &cookie, &finding).await;
    assert!(
        finding.contains("data-remediation-url"),
        "Remediate offered"
    );
    // The database errors around the drop are quoted once each, with their count, and
    // a cut one says so.
    assert!(finding.contains("(3 times)"), "{finding}");
    assert!(!finding.contains("MySQL s;"), "{finding}");
    server.stop().await;
}
