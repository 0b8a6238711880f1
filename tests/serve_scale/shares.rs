//! Share links made on one API and fetched signed out from both: the same pages and bundle,
//! one stored case map that only grows, never the real host name.

use super::*;

fn post(base: &str, path: &str, body: &Value) -> Value {
    runtime().block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{base}{path}"))
            .bearer_auth(TOKEN)
            .timeout(Duration::from_secs(120))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        assert!(
            status.is_success(),
            "POST {base}{path} {body}: {status} {text}"
        );
        serde_json::from_str(&text).unwrap()
    })
}

/// A public share route, signed out: its bytes.
fn public(base: &str, path: &str) -> Vec<u8> {
    runtime().block_on(async {
        let response = reqwest::Client::new()
            .get(format!("{base}{path}"))
            .timeout(Duration::from_secs(120))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.bytes().await.unwrap().to_vec();
        assert!(
            status.is_success(),
            "GET {base}{path} signed out: {status} {}",
            String::from_utf8_lossy(&bytes)
        );
        bytes
    })
}

/// The case map PostgreSQL keeps for analysis `id`: its version and, per kind, real →
/// pseudonym.
fn stored_map(
    db: &mut postgres::Client,
    id: &str,
) -> (i64, BTreeMap<String, BTreeMap<String, String>>) {
    let row = db
        .query_one(
            "SELECT version, map_json FROM case_maps WHERE analysis_id = $1",
            &[&id],
        )
        .unwrap();
    let map: Value = serde_json::from_str(&row.get::<_, String>(1)).unwrap();
    let entries = serde_json::from_value(map["entries"].clone()).unwrap();
    (row.get(0), entries)
}

/// The text of every file of a `.tar.gz`.
fn tar_text(bytes: &[u8]) -> String {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut text = String::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let mut content = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut content).unwrap();
        text.push_str(&String::from_utf8_lossy(&content));
        text.push('\n');
    }
    text
}

/// Share links of analysis `id` made on API a (the whole analysis, and one finding),
/// their public pages and the redacted bundle fetched signed out from both APIs: the
/// same bytes, one case map in PostgreSQL. API b makes the bundle first, extending the
/// map API a's view made: every pseudonym API a gave stays, and the bundle uses it.
pub(super) fn share_checks(base_a: &str, base_b: &str, id: &str, db: &mut postgres::Client) {
    let findings = get(base_a, &format!("/api/v1/analyses/{id}/findings"));
    let finding = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["failed_host"].is_string())
        .unwrap_or_else(|| panic!("a finding with a failed host: {findings}"))
        .clone();
    let real_host = finding["failed_host"].as_str().unwrap().to_owned();
    let shares = format!("/api/v1/analyses/{id}/shares");
    let whole = post(
        base_a,
        &shares,
        &serde_json::json!({"scope": {"kind": "analysis"}}),
    );
    let one = post(
        base_a,
        &shares,
        &serde_json::json!({"scope": {"kind": "finding", "finding": finding["id"]}}),
    );
    let (whole, one) = (whole["url"].as_str().unwrap(), one["url"].as_str().unwrap());
    let pages = [
        one.to_owned(),
        format!("{one}/data.json"),
        format!("{one}/picture.svg"),
        whole.to_owned(),
        format!("{whole}/data.json"),
        format!("{whole}/findings/0"),
        format!("{whole}/findings/0/picture.svg"),
    ];
    let on_a: Vec<Vec<u8>> = pages.iter().map(|page| public(base_a, page)).collect();
    let shown: Value = serde_json::from_slice(&on_a[1]).unwrap();
    let pseudonym = shown["finding"]["failed_host"].as_str().unwrap().to_owned();
    assert_ne!(pseudonym, real_host, "{shown}");
    let short = real_host.split('.').next().unwrap();
    let (version_a, map_a) = stored_map(db, id);
    assert_eq!(
        map_a.get("host").and_then(|hosts| hosts.get(short)),
        Some(&pseudonym.split('.').next().unwrap().to_owned()),
        "the stored map holds what API a showed"
    );

    // API b makes the bundle (it has neither the upload nor the map locally).
    let bundle_b = public(base_b, &format!("{whole}/bundle.tar.gz"));
    let (version_b, map_b) = stored_map(db, id);
    let pairs = |map: &BTreeMap<String, BTreeMap<String, String>>| {
        map.values().map(BTreeMap::len).sum::<usize>()
    };
    assert!(
        version_b > version_a && pairs(&map_b) > pairs(&map_a),
        "API b extended the map ({} pairs at version {version_a}, {} at {version_b})",
        pairs(&map_a),
        pairs(&map_b)
    );
    for (kind, values) in &map_a {
        for (real, pseudo) in values {
            assert_eq!(
                map_b.get(kind).and_then(|v| v.get(real)),
                Some(pseudo),
                "{kind} {real} keeps the pseudonym API a gave"
            );
        }
    }
    let text = tar_text(&bundle_b);
    assert!(
        text.contains(&pseudonym),
        "the bundle names the failed host {pseudonym}"
    );
    assert!(!text.contains(short), "the bundle never names {short}");

    // Both APIs serve the same bytes, whichever made them.
    for (page, a) in pages.iter().zip(&on_a) {
        assert!(public(base_b, page) == *a, "{page}: the two APIs differ");
    }
    assert!(
        public(base_a, &format!("{whole}/bundle.tar.gz")) == bundle_b,
        "the two APIs serve the same bundle"
    );
    assert_eq!(
        stored_map(db, id),
        (version_b, map_b),
        "nothing new to store"
    );
}
