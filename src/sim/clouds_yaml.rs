//! The `clouds.yaml` entry that points the `openstack` CLI (and evacdoc's executor) at
//! a running simulator.

use super::scenario::Scenario;

/// A `clouds.yaml` document with the cloud `evacdoc-sim` (password) and, when the
/// scenario has one, `evacdoc-sim-appcred` (application credential).
pub fn clouds_yaml(scenario: &Scenario, auth_url: &str) -> String {
    let auth = &scenario.auth;
    let mut out = format!(
        "clouds:\n  evacdoc-sim:\n    auth:\n      auth_url: {auth_url}\n      username: {}\n      password: {}\n      project_name: {}\n      user_domain_name: {}\n      project_domain_name: {}\n    region_name: {}\n    interface: public\n    identity_api_version: 3\n",
        yaml_str(&auth.user),
        yaml_str(&auth.password),
        yaml_str(&auth.project),
        yaml_str(&auth.domain),
        yaml_str(&auth.domain),
        yaml_str(&auth.region),
    );
    if let Some(credential) = &auth.application_credential {
        out.push_str(&format!(
            "  evacdoc-sim-appcred:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: {auth_url}\n      application_credential_id: {}\n      application_credential_secret: {}\n    region_name: {}\n    interface: public\n    identity_api_version: 3\n",
            yaml_str(&credential.id),
            yaml_str(&credential.secret),
            yaml_str(&auth.region),
        ));
    }
    out
}

/// A YAML scalar, quoted so that any text stays a string.
fn yaml_str(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_reads_back_as_yaml() {
        let scenario = Scenario::parse(
            "[auth]\nuser = \"o'neil\"\npassword = \"p: w\"\n[auth.application_credential]\nid = \"ac1\"\nsecret = \"s\"\n",
        )
        .unwrap();
        let text = clouds_yaml(&scenario, "http://127.0.0.1:5000/identity");
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
        let auth = &doc["clouds"]["evacdoc-sim"]["auth"];
        assert_eq!(auth["username"].as_str(), Some("o'neil"));
        assert_eq!(auth["password"].as_str(), Some("p: w"));
        assert_eq!(auth["user_domain_name"].as_str(), Some("Default"));
        let app = &doc["clouds"]["evacdoc-sim-appcred"]["auth"];
        assert_eq!(app["application_credential_id"].as_str(), Some("ac1"));
    }
}
