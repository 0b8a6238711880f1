//! The way from an upload to a posted answer, in headless Chromium (issue 28): upload,
//! the recoveries table, a finding from its row, the "Post to the bug tracker" panel
//! (the redacted bug text loaded and copied), a share link made and copied. Screenshots
//! go where the other browser tests put theirs (`$EVACDOC_SCREENSHOTS`).

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::Value;

use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};
use crate::serve_browser::{Driver, enter, shot, wait_for};

/// The value of `attribute` of the element `css`, once it is `wanted`.
async fn wait_attribute(browser: &Client, css: &str, attribute: &str, wanted: &str) {
    let started = Instant::now();
    loop {
        let element = wait_for(browser, css).await;
        let value = element.attr(attribute).await.unwrap();
        if value.as_deref() == Some(wanted) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{css} [{attribute}] is {value:?}, not {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The `value` of a form field, as the page holds it now.
async fn value_of(browser: &Client, css: &str) -> String {
    let value: Value = browser
        .execute(
            "return document.querySelector(arguments[0]).value;",
            vec![Value::String(css.to_string())],
        )
        .await
        .unwrap();
    value.as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_recoveries_finding_and_the_redacted_bug_text_copied_in_chromium() {
    let Some(driver) = Driver::start_or_skip() else {
        return;
    };
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("kolla-two-hosts.tar.gz");
    std::fs::write(
        &bundle,
        scenario_tar_gz("2022-kolla-yoga-two-hosts-interleaved-race"),
    )
    .unwrap();
    let browser = driver.browser().await;
    browser.goto(&server.url("/login")).await.unwrap();
    let token = wait_for(&browser, "input#token").await;
    token.send_keys(TOKEN).await.unwrap();
    token.send_keys(&enter()).await.unwrap();

    // Upload through the page.
    wait_for(&browser, "input#file-input")
        .await
        .send_keys(bundle.to_str().unwrap())
        .await
        .unwrap();
    let started = Instant::now();
    let id = loop {
        let listed = server.get_json("/api/v1/analyses").await;
        let done = listed.as_array().unwrap().iter().find_map(|a| {
            (a["status"] == "done" && a["index"]["state"] == "done")
                .then(|| a["id"].as_str().unwrap().to_string())
        });
        if let Some(id) = done {
            break id;
        }
        assert!(started.elapsed() < Duration::from_secs(90), "{listed}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    // The recoveries table comes first: both hosts, the failed one marked.
    browser
        .goto(&server.url(&format!("/analyses/{id}")))
        .await
        .unwrap();
    wait_for(&browser, "table.recoveries").await;
    let rows = browser
        .find_all(Locator::Css("table.recoveries tbody tr"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    let attention = browser
        .find_all(Locator::Css("table.recoveries tr.attention"))
        .await
        .unwrap();
    assert_eq!(
        attention.len(),
        1,
        "only cmp02's failed recovery stands out"
    );
    shot(&browser, "workbench-analysis.png").await;

    // Its finding, from the row.
    let chip = wait_for(&browser, "table.recoveries tr.attention a.badge").await;
    assert_eq!(chip.text().await.unwrap(), "evacuate-400-race");
    chip.click().await.unwrap();
    wait_for(&browser, "details#bug-tracker").await;

    // The bug tracker panel: opened, the redacted text loaded, copied in one click.
    browser
        .find(Locator::Css("details#bug-tracker > summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_attribute(&browser, "#bug-text", "data-loaded", "yes").await;
    wait_attribute(&browser, "#bug-markdown", "data-loaded", "yes").await;
    let text = value_of(&browser, "#bug-text").await;
    assert!(text.contains("is still in use"), "{text}");
    assert!(
        !text.contains("cmp02") && !text.contains("10.30.0."),
        "the bug text is redacted: {text}"
    );
    let markdown = value_of(&browser, "#bug-markdown").await;
    assert!(
        markdown.contains("### WARNING") && !markdown.contains("cmp02"),
        "{markdown}"
    );
    browser
        .find(Locator::Css("button[data-copy='#bug-text']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_attribute(
        &browser,
        "button[data-copy='#bug-text']",
        "data-copied",
        "yes",
    )
    .await;
    shot(&browser, "workbench-bug-text.png").await;

    // The share link made and copied in one step, shown in the panel, and live.
    let one_step = "button[data-share-api]";
    wait_for(&browser, one_step).await.click().await.unwrap();
    wait_attribute(&browser, one_step, "data-copied", "yes").await;
    shot(&browser, "workbench-share-one-step.png").await;
    let made = value_of(&browser, "#bug-share-url").await;
    assert!(
        made.starts_with(&server.url("/s/")),
        "{made} is a whole link"
    );
    let shares = server
        .get_json(&format!("/api/v1/analyses/{id}/shares"))
        .await;
    assert_eq!(shares[0]["scope"]["kind"], "finding", "{shares}");
    assert_eq!(shares[0]["state"], "live", "{shares}");
    browser.goto(&made).await.unwrap();
    let public = wait_for(&browser, "main").await.text().await.unwrap();
    assert!(
        public.contains("is still in use") && !public.contains("cmp02"),
        "{public}"
    );
    browser.back().await.unwrap();
    wait_for(&browser, "details#bug-tracker").await;

    // A share link, made from the preview and copied.
    wait_for(&browser, "a.share-link")
        .await
        .click()
        .await
        .unwrap();
    let make = "form[action$='/share'] button[type=submit]";
    wait_for(&browser, make).await.click().await.unwrap();
    let link = wait_for(&browser, "input#share-url").await;
    assert!(link.attr("value").await.unwrap().unwrap().contains("/s/"));
    browser
        .find(Locator::Css("button[data-copy='#share-url']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_attribute(
        &browser,
        "button[data-copy='#share-url']",
        "data-copied",
        "yes",
    )
    .await;
    // Revoke is a visible destructive button.
    let revoke = wait_for(&browser, "#shares button.danger").await;
    assert!(revoke.is_displayed().await.unwrap());
    shot(&browser, "workbench-share.png").await;

    browser.close().await.unwrap();
    server.stop().await;
}
