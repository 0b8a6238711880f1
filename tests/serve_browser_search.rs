//! In headless Chromium: one sosreport per node chosen together in the home page's file
//! input make one analysis; a pasted instance id on its search page shows every line
//! holding it, the histogram and the facets; a bar zooms, a drag across bars searches
//! within them, "±30 s" opens every host's lines around a line.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};

use crate::analysis::scenario;
use crate::serve_api::{TOKEN, TestServer};
use crate::serve_browser::{Driver, enter, shot, wait_for};

const INSTANCE: &str = "8acc20ac-82f7-42de-8532-14468beddf91";

fn tar_gz(dir: &std::path::Path, name: &str) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    tar.append_dir_all(name, dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_sosreports_upload_as_one_and_a_pasted_id_is_searched_in_chromium() {
    let Some(driver) = Driver::start_or_skip() else {
        return;
    };
    let server = TestServer::start().await;
    let files = tempfile::tempdir().unwrap();
    let root = scenario("2024-sosreports-two-timezones");
    let mut paths = Vec::new();
    for node in [
        "sosreport-cmp2-2024-05-21-ab12cd",
        "sosreport-cmp3-2024-05-21-ef34gh",
        "sosreport-ctl1-2024-05-21-xkqpwz",
    ] {
        let path = files.path().join(format!("{node}.tar.gz"));
        std::fs::write(&path, tar_gz(&root.join(node), node)).unwrap();
        paths.push(path.to_str().unwrap().to_string());
    }
    let browser = driver.browser().await;
    browser.goto(&server.url("/")).await.unwrap();
    let token = wait_for(&browser, "input#token").await;
    token.send_keys(TOKEN).await.unwrap();
    token.send_keys(&enter()).await.unwrap();

    // The three files chosen at once: one upload, one analysis.
    let input = wait_for(&browser, "input#file-input").await;
    input.send_keys(&paths.join("\n")).await.unwrap();
    let started = Instant::now();
    let id = loop {
        let listed = server.get_json("/api/v1/analyses").await;
        let rows = listed.as_array().unwrap();
        assert!(rows.len() <= 1, "{listed}");
        let done = rows.iter().find_map(|a| {
            (a["status"] == "done" && a["index"]["state"] == "done")
                .then(|| a["id"].as_str().unwrap().to_string())
        });
        if let Some(id) = done {
            break id;
        }
        assert!(started.elapsed() < Duration::from_secs(90), "{listed}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let view = server.get_json(&format!("/api/v1/analyses/{id}")).await;
    assert!(
        view["name"].as_str().unwrap().ends_with("-and-2-more"),
        "{}",
        view["name"]
    );
    let read = view["result"]["analysis"]["files"].to_string();
    for node in ["cmp2", "cmp3", "ctl1"] {
        assert!(read.contains(&format!("sosreport-{node}")), "{node}");
    }

    // The pasted id: every line holding it, the bars and the facets.
    let api = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/search?q={INSTANCE}&per_page=500"
        ))
        .await;
    let total = api["total"].as_u64().unwrap();
    assert!((4..=50).contains(&total), "{total}");
    browser
        .goto(&server.url(&format!("/analyses/{id}/search")))
        .await
        .unwrap();
    let q = wait_for(&browser, "input#q").await;
    q.send_keys(INSTANCE).await.unwrap();
    q.send_keys(&enter()).await.unwrap();
    wait_for(&browser, "svg.histogram").await;
    let rows = browser.find_all(Locator::Css("li.log-row")).await.unwrap();
    assert_eq!(rows.len() as u64, total);
    let marks = browser
        .find_all(Locator::Css("li.log-row mark"))
        .await
        .unwrap();
    assert!(marks.len() as u64 >= total);
    assert_eq!(marks[0].text().await.unwrap(), INSTANCE);
    let facets = browser
        .find_all(Locator::Css(".facet[data-facet='Host'] a.chip"))
        .await
        .unwrap();
    assert!(!facets.is_empty());
    shot(&browser, "search-id.png").await;

    // A bar zooms to its range, the query kept.
    let bar = browser.find(Locator::Css("svg.histogram a")).await.unwrap();
    bar.click().await.unwrap();
    wait_for(&browser, "li.log-row").await;
    let url = browser.current_url().await.unwrap();
    let query = url.query().unwrap_or_default().to_string();
    assert!(
        query.contains("from=") && query.contains("to=") && query.contains(INSTANCE),
        "{query}"
    );

    // A drag from the first bar to the third: the search within their range.
    browser
        .goto(&server.url(&format!("/analyses/{id}/search?q={INSTANCE}")))
        .await
        .unwrap();
    wait_for(&browser, "svg.histogram").await;
    let bars = browser
        .find_all(Locator::Css("svg.histogram a"))
        .await
        .unwrap();
    assert!(bars.len() >= 3, "{} bars", bars.len());
    let from = bars[0].attr("data-from").await.unwrap().unwrap();
    let to = bars[2].attr("data-to").await.unwrap().unwrap();
    let drag = MouseActions::new("mouse".to_string())
        .then(PointerAction::MoveToElement {
            element: bars[0].clone(),
            duration: None,
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveToElement {
            element: bars[2].clone(),
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    browser.perform_actions(drag).await.unwrap();
    let started = Instant::now();
    let pairs = loop {
        let url = browser.current_url().await.unwrap();
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        if pairs.iter().any(|(k, _)| k == "from") {
            break pairs;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{url}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let value = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        (value("q"), value("from"), value("to")),
        (INSTANCE.to_string(), from, to),
        "{pairs:?}"
    );
    wait_for(&browser, "li.log-row").await;

    // ±30 s around a line: no query, every host's lines of that minute.
    browser
        .goto(&server.url(&format!("/analyses/{id}/search?q={INSTANCE}")))
        .await
        .unwrap();
    wait_for(&browser, "a.log-around")
        .await
        .click()
        .await
        .unwrap();
    wait_for(&browser, "li.log-row").await;
    let url = browser.current_url().await.unwrap();
    let query = url.query().unwrap_or_default().to_string();
    assert!(
        query.starts_with("from=") && !query.contains("q="),
        "{query}"
    );
    let around = browser.find_all(Locator::Css("li.log-row")).await.unwrap();
    assert!(!around.is_empty());
    shot(&browser, "search-around.png").await;
    browser.close().await.unwrap();
    server.stop().await;
}
