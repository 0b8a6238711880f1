//! Every seeded value, in every encoding, stays off every public answer of every scope.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seeded_value_leaves_through_any_share_of_any_scope() {
    let server = started(GENEROUS).await;
    let id = server.upload(UPLOAD_NAME, seeded_bundle()).await;
    let view = server.wait_done(&id).await;
    assert_eq!(view["status"], "done", "{view}");
    // The private view does hold the seeded values: the test would catch them.
    let private = server
        .get(&format!(
            "/api/v1/analyses/{id}/timeline?instance={RACE_INSTANCE}"
        ))
        .await
        .text()
        .await
        .unwrap();
    for seeded in [
        "jdoe-operator",
        "ops-oncall@acme-corp.example",
        "rabbit-ctl7",
        "node02ob100.maas",
    ] {
        assert!(
            private.contains(seeded),
            "{seeded} is not in the private timeline"
        );
    }
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    let scopes = [
        json!({"kind": "finding", "finding": race["id"]}),
        json!({"kind": "timeline", "instance": RACE_INSTANCE}),
        json!({"kind": "timeline", "notification": RACE_NOTIFICATION}),
        json!({"kind": "timeline", "host": "node02ob100.maas", "from": "2020-12-08T19:40:00Z", "to": "2020-12-08T20:00:00Z"}),
        json!({"kind": "timeline", "host": "juju-4f2a1c-3-lxd-6"}),
        json!({"kind": "analysis"}),
    ];
    let mut fetched = 0;
    let mut bundle_checked = false;
    for scope in scopes {
        let created = create_share(
            &server,
            &id,
            json!({"scope": scope, "note": "for launchpad"}),
        )
        .await;
        let url = created["url"].as_str().unwrap().to_string();
        let token = url.strip_prefix("/s/").unwrap();
        assert_eq!(token.len(), 64, "{url}");
        assert_eq!(created["state"], "live");
        let mut paths = vec![
            url.clone(),
            format!("{url}/data.json"),
            format!("{url}/picture.svg"),
        ];
        if scope["kind"] == "analysis" {
            for n in 0..findings.as_array().unwrap().len() {
                paths.push(format!("{url}/findings/{n}"));
                paths.push(format!("{url}/findings/{n}/picture.svg"));
            }
        }
        for path in paths {
            let response = public(&server, &path).await;
            assert_public_headers(&path, &response);
            let status = response.status();
            let body = response.text().await.unwrap();
            if path.ends_with("picture.svg")
                && scope["kind"] == "analysis"
                && !path.contains("/findings/")
            {
                assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{path}");
                continue;
            }
            assert_eq!(status, reqwest::StatusCode::OK, "{path}: {body}");
            assert_no_leak(&format!("{scope} {path}"), &body);
            if scope["kind"] == "timeline"
                && scope["instance"].is_string()
                && path.ends_with("picture.svg")
            {
                // The tooltips carry the lines as the public step gives them (the seeded
                // lines, one fold of repeated lines, show their secrets hidden).
                assert!(
                    body.contains("<title>") && body.contains("********"),
                    "the seeded lines' public form is not in the picture's tooltips"
                );
            }
            if scope["kind"] == "timeline"
                && scope["instance"].is_string()
                && path.ends_with("data.json")
            {
                // The seeded lines are shown, redacted, with their shape kept.
                for kept in [
                    "X-Auth-Token: ********",
                    r#"\"password\": \"********\""#,
                    "transport_url=********",
                    "@example.invalid",
                    "fd00::",
                    "02:00:",
                    "user-",
                    "project-",
                ] {
                    assert!(body.contains(kept), "{kept} not in {body}");
                }
            }
            fetched += 1;
        }
        if scope["kind"] == "analysis" {
            let response = public(&server, &format!("{url}/bundle.tar.gz")).await;
            assert_public_headers("bundle", &response);
            assert_eq!(response.status(), reqwest::StatusCode::OK);
            let bytes = response.bytes().await.unwrap();
            let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
            let mut files = 0;
            let mut report_seen = false;
            for entry in archive.entries().unwrap() {
                let mut entry = entry.unwrap();
                let name = entry.path().unwrap().to_string_lossy().into_owned();
                // The upload's content under a neutral name, never its own.
                let top = name.trim_start_matches("./").split('/').next().unwrap();
                assert!(
                    matches!(top, "" | "bundle" | "redaction-report.json"),
                    "{name}"
                );
                report_seen |= name.ends_with("redaction-report.json");
                assert_no_leak(&format!("bundle entry name {name}"), &name);
                if let Ok(Some(target)) = entry.link_name() {
                    assert_no_leak(&format!("bundle link {name}"), &target.to_string_lossy());
                }
                let mut content = Vec::new();
                entry.read_to_end(&mut content).unwrap();
                let text = if name.ends_with(".gz") {
                    let mut s = String::new();
                    flate2::read::MultiGzDecoder::new(&content[..])
                        .read_to_string(&mut s)
                        .unwrap();
                    s
                } else {
                    String::from_utf8_lossy(&content).into_owned()
                };
                assert_no_leak(&format!("bundle file {name}"), &text);
                files += 1;
            }
            assert!(files > 20, "{files} files in the bundle");
            assert!(report_seen, "the bundle holds its redaction report");
            bundle_checked = true;
        }
    }
    assert!(fetched >= 15, "{fetched} answers checked");
    assert!(bundle_checked);
    // The redacted bug template: the same engine, the story and the instance kept.
    let template = server
        .get(&format!(
            "/api/v1/analyses/{id}/triage?format=bug-template&redact=true"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert_no_leak("redacted bug template", &template);
    assert!(template.contains(RACE_INSTANCE), "{template}");
    assert!(template.contains("is still in use"), "{template}");
    let plain = server
        .get(&format!("/api/v1/analyses/{id}/triage?format=bug-template"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        plain.contains("node02ob100"),
        "the private template is not redacted"
    );
    // The map and the seeds are private files of the analysis, never under the output.
    let share_dir = server
        .data
        .path()
        .join("data/analyses")
        .join(&id)
        .join("share");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for name in ["map.json", "seeds.json"] {
            let mode = std::fs::metadata(share_dir.join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
    }
    server.stop().await;
}

#[test]
fn the_leak_check_catches_every_encoding() {
    let value = "ops-oncall@acme-corp.example";
    for form in encodings(value) {
        let page = format!("<p>before {form} after</p>");
        let caught = std::panic::catch_unwind(|| assert_no_leak("page", &page)).is_err();
        assert!(caught, "{form} not caught");
    }
    let data_url = format!(
        "<img src=\"data:text/plain;base64,{}\">",
        base64(format!("xx{value}").as_bytes())
    );
    assert!(std::panic::catch_unwind(|| assert_no_leak("data url", &data_url)).is_err());
    assert_no_leak("clean", "<p>user-1a2b3c@example.invalid on host-4d5e6f</p>");
}
