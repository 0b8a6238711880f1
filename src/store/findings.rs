//! A finding as the store keeps it: the typed [`Finding`] the API serves and the pages
//! show, serialized with serde, with the picture's highlights beside it (they are not part
//! of the public JSON), and read back to the same type. One source of truth: nothing
//! reads a finding's fields back by name, nothing recomputes them.

use serde::{Deserialize, Serialize};

use crate::detect::Finding;
use crate::detect::finding::Highlight;

/// What is written: the finding's own fields, then its highlights.
#[derive(Serialize)]
struct Written<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    highlights: &'a [Highlight],
}

/// What is read back (rows stored before highlights were kept have none).
#[derive(Deserialize)]
struct Read {
    #[serde(flatten)]
    finding: Finding,
    #[serde(default)]
    highlights: Vec<Highlight>,
}

/// The stored text of `finding`.
pub(crate) fn to_json(finding: &Finding) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Written {
        finding,
        highlights: &finding.highlights,
    })
}

/// The finding stored as `json`.
pub(crate) fn from_json(json: &str) -> Result<Finding, serde_json::Error> {
    let read: Read = serde_json::from_str(json)?;
    Ok(Finding {
        highlights: read.highlights,
        ..read.finding
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finding of a real bundle, its highlights with it, reads back equal, and its
    /// public JSON is what `analyze --format json` prints for it.
    #[test]
    fn the_findings_of_a_bundle_round_trip_typed_with_their_highlights() {
        let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/scenarios/2023-kolla-evacuate-race-zed");
        let report =
            crate::run::analyze_inputs(&[scenario], &crate::run::RunOptions::default()).unwrap();
        assert!(
            report.findings.iter().any(|f| !f.highlights.is_empty()),
            "some finding highlights something"
        );
        let document = crate::triage::report::json_document(&report.analysis, &report.findings);
        for (finding, public) in report
            .findings
            .iter()
            .zip(document["findings"].as_array().unwrap())
        {
            let back = from_json(&to_json(finding).unwrap()).unwrap();
            assert_eq!(&back, finding);
            assert_eq!(&serde_json::to_value(&back).unwrap(), public);
        }
    }

    #[test]
    fn a_finding_of_an_unknown_detector_is_refused() {
        let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/scenarios/2023-kolla-evacuate-race-zed");
        let report =
            crate::run::analyze_inputs(&[scenario], &crate::run::RunOptions::default()).unwrap();
        let finding = &report.findings[0];
        let json = to_json(finding).unwrap().replace(
            &format!("\"detector\":\"{}\"", finding.detector),
            "\"detector\":\"no-such-detector\"",
        );
        let error = from_json(&json).unwrap_err();
        assert!(error.to_string().contains("unknown detector"), "{error}");
    }
}
