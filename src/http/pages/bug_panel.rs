//! The addresses the "Post to the bug tracker" panel (`bug_panel.html`) loads its
//! redacted texts from, the share preview it offers and what its one-step share button
//! sends to the share API.

use super::format::encode_component;
use crate::share::Scope;

/// The panel of an analysis or of one finding.
pub(super) struct BugPanel {
    pub text_url: String,
    pub markdown_url: String,
    pub share_url: String,
    /// The share API the one-step button posts to, and the scope it posts (JSON).
    pub shares_api: String,
    pub scope_json: String,
}

impl BugPanel {
    /// Every finding of analysis `id`.
    pub(super) fn analysis(id: &str) -> BugPanel {
        BugPanel {
            text_url: format!("/api/v1/analyses/{id}/bug-text?format=text"),
            markdown_url: format!("/api/v1/analyses/{id}/bug-text?format=markdown"),
            share_url: format!("/analyses/{id}/share?scope=analysis"),
            shares_api: format!("/api/v1/analyses/{id}/shares"),
            scope_json: scope_json(&Scope::Analysis),
        }
    }

    /// One finding.
    pub(super) fn finding(id: &str, finding: &str) -> BugPanel {
        let f = encode_component(finding);
        BugPanel {
            text_url: format!("/api/v1/analyses/{id}/bug-text?format=text&finding={f}"),
            markdown_url: format!("/api/v1/analyses/{id}/bug-text?format=markdown&finding={f}"),
            share_url: format!("/analyses/{id}/share?scope=finding&finding={f}"),
            shares_api: format!("/api/v1/analyses/{id}/shares"),
            scope_json: scope_json(&Scope::Finding {
                finding: finding.to_string(),
            }),
        }
    }
}

/// A scope as the share API reads it (a scope always serialises: strings and a tag).
fn scope_json(scope: &Scope) -> String {
    serde_json::to_string(scope).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_step_share_posts_the_panels_scope() {
        let panel = BugPanel::finding("a1", "evacuate-400-race:x");
        assert_eq!(panel.shares_api, "/api/v1/analyses/a1/shares");
        let scope: Scope = serde_json::from_str(&panel.scope_json).unwrap();
        assert_eq!(
            scope,
            Scope::Finding {
                finding: "evacuate-400-race:x".into()
            }
        );
        assert_eq!(
            BugPanel::analysis("a1").scope_json,
            r#"{"kind":"analysis"}"#
        );
    }
}
