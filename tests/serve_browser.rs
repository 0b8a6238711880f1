//! `evacdoc serve` in a real browser: headless Chromium driven through chromedriver
//! (Debian `chromium` and `chromium-driver`, installed by `.ci/run`). A user signs in,
//! drops a bundle on the home page, opens the finding and its timeline picture,
//! searches, and shares the finding (preview, link, public page). Screenshots of the
//! pages go to `$EVACDOC_SCREENSHOTS` (CI artefacts) or `target/screenshots`.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::serve_api::{RACE_INSTANCE, TOKEN, TestServer, scenario_tar_gz};

/// chromedriver on a free loopback port, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// [`Driver::start`], or `None` and a note that the test is skipped when chromedriver
    /// is not installed (in CI that fails: `.ci/run` installs it).
    pub(crate) fn start_or_skip() -> Option<Driver> {
        let driver = Driver::start();
        if driver.is_none() {
            assert!(
                std::env::var_os("CI").is_none(),
                "chromedriver is missing: .ci/run installs Debian's chromium-driver"
            );
            eprintln!("skipped: chromedriver is not installed (apt-get install chromium-driver)");
        }
        driver
    }

    /// Starts chromedriver; `None` when it is not installed.
    pub(crate) fn start() -> Option<Driver> {
        let port = TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(driver)
    }

    pub(crate) async fn browser(&self) -> Client {
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".to_string(),
            json!({ "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--window-size=1400,1800"] }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a chromium session")
    }
}

/// The Enter key, as text for `send_keys`.
pub(crate) fn enter() -> String {
    char::from(fantoccini::key::Key::Enter).to_string()
}

fn screenshots() -> PathBuf {
    let dir = std::env::var_os("EVACDOC_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) async fn shot(browser: &Client, name: &str) {
    let png = browser.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// Waits until `css` matches an element.
pub(crate) async fn wait_for(browser: &Client, css: &str) -> fantoccini::elements::Element {
    browser
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
}

/// Types the service's token into the sign-in form on the page.
async fn sign_in_with_the_token(browser: &Client) {
    let token = wait_for(browser, "input#token").await;
    token.send_keys(TOKEN).await.unwrap();
    token.send_keys(&enter()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_signs_in_uploads_reads_the_finding_and_searches_in_chromium() {
    let Some(driver) = Driver::start_or_skip() else {
        return;
    };
    let server = TestServer::start().await;
    let bundle_dir = tempfile::tempdir().unwrap();
    let bundle = bundle_dir.path().join("juju-crashdump-race.tar.gz");
    std::fs::write(&bundle, scenario_tar_gz("2020-juju-evacuate-race")).unwrap();
    let browser = driver.browser().await;

    // Signed out: the home page sends to the sign-in form.
    browser.goto(&server.url("/")).await.unwrap();
    let token = wait_for(&browser, "input#token").await;
    assert!(
        browser
            .current_url()
            .await
            .unwrap()
            .path()
            .starts_with("/login")
    );
    token.send_keys("wrong").await.unwrap();
    token.send_keys(&enter()).await.unwrap();
    let alert = wait_for(&browser, ".alert").await;
    assert!(!alert.text().await.unwrap().is_empty());
    sign_in_with_the_token(&browser).await;

    // Upload through the page's file input; the list shows it running, then done.
    let input = wait_for(&browser, "input#file-input").await;
    input.send_keys(bundle.to_str().unwrap()).await.unwrap();
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
    // The list is redrawn by its poll: the row is found, then followed by its address.
    wait_for(&browser, &format!("tr[data-id='{id}'] a")).await;
    shot(&browser, "home.png").await;
    browser
        .goto(&server.url(&format!("/analyses/{id}")))
        .await
        .unwrap();

    // The analysis page lists the finding; its page shows the evidence and the picture.
    let finding = wait_for(&browser, "a.finding-title").await;
    assert!(finding.text().await.unwrap().contains("raced"));
    shot(&browser, "analysis.png").await;
    let href = finding.attr("href").await.unwrap().unwrap();
    browser.goto(&server.url(&href)).await.unwrap();
    wait_for(&browser, "svg text").await;
    let page = browser.source().await.unwrap();
    assert!(page.contains("Compute service of node02ob100.maas is still in use"));
    assert!(page.contains("wait_period_after_service_update"));
    let picture: Value = browser
        .execute(
            "const s = document.querySelector('main svg[role=img], main svg.timeline, main figure svg'); \
             return s ? s.getBoundingClientRect().width : 0;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        picture.as_f64().unwrap_or(0.0) > 300.0,
        "the timeline picture is drawn: {picture}"
    );
    shot(&browser, "finding.png").await;

    // The instance's timeline page.
    browser
        .goto(&server.url(&format!(
            "/analyses/{id}/timeline?kind=instance&value={RACE_INSTANCE}&instance={RACE_INSTANCE}"
        )))
        .await
        .unwrap();
    wait_for(&browser, "main table, main ol, main .rows").await;
    assert!(
        browser
            .source()
            .await
            .unwrap()
            .contains("Instance spawned successfully")
    );
    shot(&browser, "timeline.png").await;

    // Search from the keyboard: `/` focuses the box.
    browser
        .goto(&server.url(&format!("/analyses/{id}")))
        .await
        .unwrap();
    wait_for(&browser, "input#top-q").await;
    // The header's search box is readable: its text against its own background (a later
    // `input[type=search]` rule once gave it a white background under light text).
    let contrast: Value = browser
        .execute(
            "const s = getComputedStyle(document.getElementById('top-q')); \
             const lum = c => { const v = c.match(/[\\d.]+/g).slice(0, 3).map(x => x / 255) \
               .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4)); \
               return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }; \
             const a = lum(s.color), b = lum(s.backgroundColor); \
             return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        contrast.as_f64().unwrap_or(0.0) >= 4.5,
        "the search box's text contrast is {contrast}"
    );
    let body = browser.find(Locator::Css("body")).await.unwrap();
    body.send_keys("/").await.unwrap();
    let focused: Value = browser
        .execute(
            "return document.activeElement && document.activeElement.id",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(focused, json!("top-q"));
    let q = browser.find(Locator::Css("input#top-q")).await.unwrap();
    q.send_keys("\"still in use\"").await.unwrap();
    q.send_keys(&enter()).await.unwrap();
    let mark = wait_for(&browser, "mark").await;
    assert_eq!(mark.text().await.unwrap(), "still in use");
    shot(&browser, "search.png").await;

    // Share the finding: the redacted preview, the link made and shown once, the public
    // page (no session, no script) redacted with its picture.
    browser.goto(&server.url(&href)).await.unwrap();
    wait_for(&browser, "a.share-link")
        .await
        .click()
        .await
        .unwrap();
    let make = "form[action$='/share'] button[type=submit]";
    wait_for(&browser, make).await;
    let preview = browser.source().await.unwrap();
    assert!(preview.contains("is still in use") && !preview.contains("node02ob100"));
    shot(&browser, "share-preview.png").await;
    browser
        .find(Locator::Css(make))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let link = wait_for(&browser, "input[aria-label='Share link']").await;
    let url = link.attr("value").await.unwrap().unwrap();
    assert!(url.contains("/s/"), "{url}");
    browser.goto(&url).await.unwrap();
    wait_for(&browser, "svg text").await;
    let public = browser.source().await.unwrap();
    assert!(public.contains("is still in use") && !public.contains("node02ob100"));
    shot(&browser, "share-public.png").await;

    browser.close().await.unwrap();
    server.stop().await;
}

/// The finding page's Remediate panel in Chromium: plan, a wrong confirmation refused,
/// the right one applied, the progress followed until the recovery is finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_finding_page_plans_confirms_applies_and_follows_a_remediation_in_chromium() {
    use crate::serve_remediation::analysed_race;
    use fantoccini::Locator;
    let Some(driver) = Driver::start_or_skip() else {
        return;
    };
    let (bench, server, id, finding) = analysed_race().await;

    let browser = driver.browser().await;
    open_the_finding_signed_in(&browser, &server, &id, &finding).await;
    wait_for(&browser, "[data-remediation-plan] button").await;
    // Apply is offered only once a plan is shown.
    let apply = browser
        .find(Locator::Css("[data-remediation-apply]"))
        .await
        .unwrap();
    assert!(!apply.is_displayed().await.unwrap());
    // Planned before the host is declared fenced: the plan carries the data-corruption
    // warning, shown above it.
    browser
        .find(Locator::Css("[data-remediation-plan] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let warning = wait_for(&browser, "[data-remediation-output] .plan-warning").await;
    let warned = warning.text().await.unwrap();
    assert!(
        warned.contains("compute-1 is not declared fenced") && warned.contains("data corruption"),
        "{warned}"
    );
    shot(&browser, "remediation-plan-unfenced.png").await;
    browser
        .find(Locator::Css(
            "[data-remediation-plan] input[name=host_fenced]",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .find(Locator::Css("[data-remediation-plan] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let plan = wait_for(&browser, "[data-remediation-output] ol.plan li").await;
    assert!(plan.text().await.unwrap().contains("/os-services"));
    let warnings = browser
        .find_all(Locator::Css("[data-remediation-output] .plan-warning"))
        .await
        .unwrap();
    assert!(warnings.is_empty(), "declared fenced: no warning is left");
    let before = bench.servers().await;
    assert!(
        before
            .iter()
            .all(|s| s.host.as_deref() == Some("compute-1"))
    );

    // A wrong confirmation is refused, and nothing runs.
    let confirm = wait_for(&browser, "[data-remediation-apply] input[name=confirm]").await;
    confirm.send_keys("evacuate-400-race:wrong").await.unwrap();
    confirm.send_keys(&enter()).await.unwrap();
    let refused = wait_for(&browser, "[data-remediation-progress] li.error").await;
    assert!(
        refused.text().await.unwrap().contains("does not match"),
        "{}",
        refused.text().await.unwrap()
    );
    confirm.clear().await.unwrap();
    confirm.send_keys(&finding).await.unwrap();
    confirm.send_keys(&enter()).await.unwrap();
    let done = wait_for(&browser, "[data-remediation-progress] li.good").await;
    assert!(
        !apply.is_displayed().await.unwrap(),
        "applied: the form is gone"
    );
    assert!(done.text().await.unwrap().contains("finished"));
    let progress = browser
        .find(Locator::Css("[data-remediation-progress]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        progress.contains("evacuate") || progress.contains("/action"),
        "{progress}"
    );
    assert!(progress.contains("succeeded"), "{progress}");
    shot(&browser, "remediation.png").await;
    for server in bench.servers().await {
        assert_eq!(server.status, "ACTIVE", "{server:?}");
        assert_ne!(server.host.as_deref(), Some("compute-1"), "{server:?}");
    }
    browser.close().await.unwrap();
    server.stop().await;
    bench.sim.shutdown().await;
}

/// Signs in with the token and opens the page of finding `finding` of analysis `id`.
async fn open_the_finding_signed_in(
    browser: &Client,
    server: &TestServer,
    id: &str,
    finding: &str,
) {
    use crate::serve_remediation::segment;
    browser.goto(&server.url("/login")).await.unwrap();
    sign_in_with_the_token(browser).await;
    wait_for(browser, "form.sign-out").await;
    browser
        .goto(&server.url(&format!("/analyses/{id}/findings/{}", segment(finding))))
        .await
        .unwrap();
}

/// InstanceHA's guards refuse a plan on the finding page as a safety guard, by name, and
/// no Apply is offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guard_refusal_is_shown_on_the_finding_page_and_nothing_can_be_applied_in_chromium() {
    use crate::serve_remediation::analysed_race_with;
    use fantoccini::Locator;
    let Some(driver) = Driver::start_or_skip() else {
        return;
    };
    // No compute may be down: the failed host alone is 1 of 3.
    let (bench, server, id, finding) = analysed_race_with(|o| o.max_down_percent = 0).await;
    let browser = driver.browser().await;
    open_the_finding_signed_in(&browser, &server, &id, &finding).await;
    wait_for(&browser, "[data-remediation-plan] button")
        .await
        .click()
        .await
        .unwrap();
    let refusal = wait_for(&browser, "[data-remediation-output] .guard").await;
    let text = refusal.text().await.unwrap();
    assert!(
        text.contains("Refused by a safety guard (too many computes down)")
            && text.contains("1 of 3 nova-compute services are down"),
        "{text}"
    );
    let apply = browser
        .find(Locator::Css("[data-remediation-apply]"))
        .await
        .unwrap();
    assert!(!apply.is_displayed().await.unwrap());
    shot(&browser, "remediation-guard.png").await;
    browser.close().await.unwrap();
    server.stop().await;
    bench.sim.shutdown().await;
}
