use serde_json::Value;

use crate::util::{evacdoc, samples, stderr, stdout};

fn json_records(path: &str) -> Vec<Value> {
    let file = samples().join(path);
    let output = evacdoc(&["parse", file.to_str().unwrap(), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

fn find<'a>(records: &'a [Value], needle: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["message"].as_str().is_some_and(|m| m.contains(needle)))
        .unwrap_or_else(|| panic!("no record with {needle:?}"))
}

#[test]
fn json_of_the_seed_recovery_has_the_contract_fields() {
    let records = json_records("parsers/oslo/masakari_host_failure_pre_zed.log");
    let evacuate = find(
        &records,
        "Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96",
    );
    assert_eq!(evacuate["format"], "oslo");
    assert_eq!(evacuate["level"], "INFO");
    assert_eq!(evacuate["logger"], "masakari.compute.nova");
    assert_eq!(evacuate["timestamp"], "2020-12-08T19:51:12.309");
    assert_eq!(
        evacuate["request_id"],
        "req-de081ecf-4201-4542-b092-e21b2f5ce942"
    );
    assert_eq!(evacuate["global_request_id"], Value::Null);
    assert!(evacuate["line"].as_u64().unwrap() >= 1);
    assert_eq!(evacuate["continuation_lines"], serde_json::json!([]));

    let failed = find(&records, "Failed to process notification '9ace2da7");
    assert_eq!(failed["level"], "ERROR");
    assert_eq!(
        failed["error_summary"]["class"],
        "masakari.exception.HostRecoveryFailureException"
    );
}

#[test]
fn json_of_an_access_log_has_http_fields() {
    let records = json_records("parsers/access/ubuntu_combined.log");
    let post = records
        .iter()
        .find(|r| r["http"]["method"] == "POST" && r["http"]["status"] == 400)
        .expect("the seed's 400 on evacuate");
    assert_eq!(post["format"], "access");
    assert_eq!(post["instance"], "56ce6206-3659-495e-a6ea-f4d3d578cc96");
    assert_eq!(post["timestamp"], "2020-12-08T19:51:12.000Z");
    assert_eq!(post["http"]["user_agent"], "python-novaclient");
}

#[test]
fn text_output_and_summary() {
    let file = samples().join("parsers/oslo/traceback_prefixed.log");
    let output = evacdoc(&["parse", file.to_str().unwrap()]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("     ! Traceback (most recent call last):"));
    assert!(stderr(&output).contains("records, 0 unparsed"));
}

#[test]
fn ini_files_are_listed_by_key() {
    let records = json_records("parsers/ini/masakari.conf");
    let wait = records
        .iter()
        .find(|r| r["key"] == "wait_period_after_service_update")
        .expect("the race option");
    assert_eq!(wait["format"], "ini");
    assert_eq!(wait["section"], "DEFAULT");
    assert!(wait["line"].as_u64().unwrap() > 1);
}

#[test]
fn invalid_utf8_is_reported_not_fatal() {
    let file = samples().join("parsers/oslo/non_utf8.log");
    let output = evacdoc(&["parse", file.to_str().unwrap(), "--format", "json"]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("\"invalid_utf8\":true"));
    let summary = stderr(&output);
    assert!(
        !summary.contains(" 0 lines with invalid UTF-8"),
        "{summary}"
    );
}

#[test]
fn a_missing_file_is_a_one_line_error_naming_it() {
    let output = evacdoc(&["parse", "/nonexistent/masakari-engine.log"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/masakari-engine.log"), "{err}");
}
