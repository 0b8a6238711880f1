//! The addresses the "Post to the bug tracker" panel (`bug_panel.html`) loads its
//! redacted texts from, and the share preview it offers.

use super::format::encode_component;

/// The panel of an analysis or of one finding.
pub(super) struct BugPanel {
    pub text_url: String,
    pub markdown_url: String,
    pub share_url: String,
}

impl BugPanel {
    /// Every finding of analysis `id`.
    pub(super) fn analysis(id: &str) -> BugPanel {
        BugPanel {
            text_url: format!("/api/v1/analyses/{id}/bug-text?format=text"),
            markdown_url: format!("/api/v1/analyses/{id}/bug-text?format=markdown"),
            share_url: format!("/analyses/{id}/share?scope=analysis"),
        }
    }

    /// One finding.
    pub(super) fn finding(id: &str, finding: &str) -> BugPanel {
        let f = encode_component(finding);
        BugPanel {
            text_url: format!("/api/v1/analyses/{id}/bug-text?format=text&finding={f}"),
            markdown_url: format!("/api/v1/analyses/{id}/bug-text?format=markdown&finding={f}"),
            share_url: format!("/analyses/{id}/share?scope=finding&finding={f}"),
        }
    }
}
