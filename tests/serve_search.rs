//! Search through the service: a pasted id finds what `grep -F` finds, the filters and
//! their facets, the histogram, a time range alone in RFC 3339 or as the pages show
//! times, and the search page's histogram bars, facet links and ±30 s links.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::analysis::scenario;
use crate::search::grep_f;
use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};

const SCENARIO: &str = "2022-kolla-yoga-two-hosts-interleaved-race";
const REQUEST: &str = "req-fc71d7b6-265b-4e44-9682-88b9094ed4f8";

fn sum(list: &Value) -> u64 {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v["count"].as_u64().unwrap())
        .sum()
}

/// The facets and the histogram add up to the total.
fn adds_up(page: &Value) {
    let total = page["total"].as_u64().unwrap();
    for facet in ["host", "service", "level"] {
        assert_eq!(sum(&page["facets"][facet]), total, "{facet}: {page}");
    }
    let histogram = &page["histogram"];
    assert_eq!(
        sum(&histogram["buckets"]) + histogram["untimed"].as_u64().unwrap(),
        total,
        "{histogram}"
    );
    assert!(histogram["buckets"].as_array().unwrap().len() <= 61);
}

/// A page as a signed-in browser gets it: status and body.
async fn ui_page(server: &TestServer, path: &str) -> (reqwest::StatusCode, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let signed = client
        .post(server.url("/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={TOKEN}&next=%2F"))
        .send()
        .await
        .unwrap();
    let cookie = signed.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let answer = client
        .get(server.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    (answer.status(), answer.text().await.unwrap())
}

fn encode(text: &str) -> String {
    text.replace(' ', "%20")
        .replace(':', "%3A")
        .replace('+', "%2B")
        .replace('"', "%22")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_filters_facets_histogram_and_time_ranges_over_the_api() {
    let server = TestServer::start().await;
    let id = server
        .upload(&format!("{SCENARIO}.tar.gz"), scenario_tar_gz(SCENARIO))
        .await;
    let view = server.wait_done(&id).await;
    assert_eq!(view["index"]["state"], "done", "{view}");
    let search = |query: String| {
        let server = &server;
        let id = &id;
        async move {
            server
                .get_json(&format!(
                    "/api/v1/analyses/{id}/search?per_page=500&{query}"
                ))
                .await
        }
    };

    // A pasted request id: every line `grep -F` finds in the logs read (the upload's
    // paths are under the archive's name, then the folder it holds).
    let analysis = evacdoc::run::analyze_inputs(&[scenario(SCENARIO)], &Default::default())
        .unwrap()
        .analysis;
    let expected: BTreeSet<(String, u64)> = grep_f(&scenario(SCENARIO), &analysis, REQUEST)
        .into_iter()
        .map(|(path, line)| (format!("{SCENARIO}/{SCENARIO}/{path}"), line))
        .collect();
    let page = search(format!("q={REQUEST}")).await;
    assert_eq!(page["literal"], true);
    assert_eq!(page["total"].as_u64().unwrap() as usize, expected.len());
    let got: BTreeSet<(String, u64)> = page["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    adds_up(&page);

    // Each facet value, given as a filter (param or field), finds as many as it counts.
    let all = search(String::new()).await;
    adds_up(&all);
    assert!(all["total"].as_u64().unwrap() > 100, "{}", all["total"]);
    for (facet, field) in [("host", "host"), ("service", "service"), ("level", "level")] {
        for value in all["facets"][facet].as_array().unwrap() {
            let name = value["value"].as_str().unwrap();
            if name == evacdoc::index::NO_LEVEL {
                continue;
            }
            let count = value["count"].as_u64().unwrap();
            let by_param = search(format!("{field}={}", encode(name))).await;
            assert_eq!(by_param["total"].as_u64().unwrap(), count, "{field}={name}");
            adds_up(&by_param);
            let by_field = search(format!("q={}", encode(&format!("{field}:\"{name}\"")))).await;
            assert_eq!(by_field["total"].as_u64().unwrap(), count, "{field}:{name}");
        }
    }
    let errors = search("level=ERROR&service=masakari-engine".into()).await;
    assert!(errors["total"].as_u64().unwrap() >= 1, "{errors}");
    assert!(
        errors["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["level"] == "ERROR" && h["service"] == "masakari-engine")
    );
    // The id beside a filter: its lines of that service only.
    let id_api = search(format!("q={REQUEST}&service=masakari-engine")).await;
    assert_eq!(id_api["literal"], true);
    assert!(id_api["total"].as_u64().unwrap() >= 1);
    assert!(id_api["total"].as_u64().unwrap() <= page["total"].as_u64().unwrap());

    // ±30 s around the id's first line, no query: every record with its own time in the
    // range (from the unfiltered listing), and nothing outside it; the bound given as
    // RFC 3339 or as the pages show times (UTC, a space, milliseconds) finds the same.
    let first = page["hits"][0]["timestamp"].as_str().unwrap();
    let at: jiff::Timestamp = first.parse().unwrap();
    let half = jiff::SignedDuration::from_secs(30);
    let (from, to) = (at.checked_sub(half).unwrap(), at.checked_add(half).unwrap());
    let shown = |t: jiff::Timestamp| {
        format!(
            "{}.{:03}",
            t.strftime("%Y-%m-%d %H:%M:%S"),
            t.subsec_millisecond()
        )
    };
    let ranged = search(format!(
        "from={}&to={}",
        encode(&from.to_string()),
        encode(&to.to_string())
    ))
    .await;
    let as_shown = search(format!(
        "from={}&to={}",
        encode(&shown(from)),
        encode(&shown(to))
    ))
    .await;
    assert_eq!(ranged["total"], as_shown["total"]);
    adds_up(&ranged);
    let key = |h: &Value| {
        (
            h["path"].as_str().unwrap().to_string(),
            h["line"].as_u64().unwrap(),
        )
    };
    let in_range: BTreeSet<(String, u64)> =
        ranged["hits"].as_array().unwrap().iter().map(key).collect();
    let mut expected_in_range = BTreeSet::new();
    let pages = all["total"].as_u64().unwrap().div_ceil(500);
    for n in 1..=pages {
        let listing = search(format!("page={n}")).await;
        for h in listing["hits"].as_array().unwrap() {
            if let Some(t) = h["timestamp"].as_str() {
                let t: jiff::Timestamp = t.parse().unwrap();
                if from <= t && t <= to {
                    expected_in_range.insert(key(h));
                }
            }
        }
    }
    assert!(expected_in_range.len() >= 4, "{expected_in_range:?}");
    assert!(in_range.is_superset(&expected_in_range));
    for h in ranged["hits"].as_array().unwrap() {
        if let Some(t) = h["timestamp"].as_str() {
            let t: jiff::Timestamp = t.parse().unwrap();
            assert!(from <= t && t <= to, "{h}");
        }
    }
    // A minute: buckets of a second or two.
    assert!(ranged["histogram"]["bucket_seconds"].as_i64().unwrap() <= 2);

    let bad = server
        .get(&format!("/api/v1/analyses/{id}/search?from=yesterday"))
        .await;
    assert_eq!(bad.status(), reqwest::StatusCode::BAD_REQUEST);
    let said = bad.text().await.unwrap();
    assert!(said.contains("2024-05-21 08:05:00.123"), "{said}");

    // The OpenAPI document names the filters and the counts.
    let openapi = server.get_json("/api/v1/openapi.json").await;
    let params: Vec<&str> = openapi["paths"]["/api/v1/analyses/{id}/search"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in ["q", "from", "to", "host", "service", "level", "page"] {
        assert!(params.contains(&name), "{params:?}");
    }
    let page_schema = &openapi["components"]["schemas"]["SearchPage"]["properties"];
    assert!(page_schema["facets"].is_object() && page_schema["histogram"].is_object());

    // The page: histogram bars that zoom, facet links with counts, ±30 s links; a time
    // range alone is a search.
    let (status, html) = ui_page(&server, &format!("/analyses/{id}/search?q={REQUEST}")).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{html}");
    let html = html.replace("&#38;", "&").replace("&amp;", "&");
    assert!(html.contains("<svg class=\"histogram\""), "{html}");
    assert!(html.contains(&format!("/analyses/{id}/search?q={REQUEST}&from=")));
    assert!(html.contains("±30 s around this line on all hosts"));
    assert!(html.contains(&format!("/analyses/{id}/search?from=")));
    assert!(html.contains(&format!("/analyses/{id}/search?q={REQUEST}&service=")));
    assert!(html.contains("as grep -F finds it"));
    let (status, alone) = ui_page(
        &server,
        &format!(
            "/analyses/{id}/search?from={}&to={}",
            encode(&shown(from)),
            encode(&shown(to))
        ),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{alone}");
    let total = ranged["total"].as_u64().unwrap();
    assert!(
        alone.contains(&format!("{total} lines match")),
        "{total}: {alone}"
    );
    server.stop().await;
}
