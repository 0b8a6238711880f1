//! Which cloud to talk to, found as the `openstack` CLI finds it: `--cloud NAME`, else
//! `OS_CLOUD`, each looked up in `clouds.yaml`; else the `OS_*` variables. Pure over the
//! environment (passed as a map) so the lookup is testable without touching process env.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openstack_sdk::config::{Auth, CloudConfig, ConfigFile, ConfigFileBuilderError};

use crate::openstack::cloud::CloudError;

/// How to find the cloud.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--cloud NAME`: an entry of `clouds.yaml` (else `OS_CLOUD`, else the `OS_*` variables).
    pub cloud: Option<String>,
    /// A `clouds.yaml` to read instead of the usual places (`OS_CLIENT_CONFIG_FILE`,
    /// `./clouds.yaml`, `~/.config/openstack/clouds.yaml`, `/etc/openstack/clouds.yaml`).
    pub config_file: Option<PathBuf>,
}

/// A cloud configuration and where it came from (for messages).
#[derive(Debug, Clone)]
pub struct ResolvedCloud {
    pub config: CloudConfig,
    /// `cloud 'prod' of /etc/openstack/clouds.yaml`, or `OS_* variables`.
    pub source: String,
}

/// The configuration `options` and `env` (the process environment) designate.
pub fn resolve(
    options: &ConnectOptions,
    env: &BTreeMap<String, String>,
) -> Result<ResolvedCloud, CloudError> {
    let var = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let name = options.cloud.as_deref().or_else(|| var("OS_CLOUD"));
    if let Some(name) = name {
        let explicit = options
            .config_file
            .clone()
            .or_else(|| var("OS_CLIENT_CONFIG_FILE").map(PathBuf::from));
        return from_clouds_yaml(name, explicit.as_deref());
    }
    if var("OS_AUTH_URL").is_some() {
        return Ok(ResolvedCloud {
            config: from_env_vars(env)?,
            source: "OS_* variables".into(),
        });
    }
    Err(CloudError::Config(
        "no cloud given: pass --cloud NAME, set OS_CLOUD, or set OS_AUTH_URL and credentials"
            .into(),
    ))
}

/// The entry `name` of `explicit` (or of the first `clouds.yaml` in the usual places).
fn from_clouds_yaml(name: &str, explicit: Option<&Path>) -> Result<ResolvedCloud, CloudError> {
    let mut files: Vec<PathBuf> = Vec::new();
    match explicit {
        Some(path) => {
            if !path.is_file() {
                return Err(CloudError::Config(format!(
                    "{}: no such clouds.yaml file",
                    path.display()
                )));
            }
            files.push(path.to_path_buf());
        }
        None => {
            // Profiles first, then the clouds, then secrets over them: the merge order
            // of openstacksdk.
            files.extend(openstack_sdk::config::find_vendor_file());
            let Some(clouds) = openstack_sdk::config::find_clouds_file() else {
                return Err(CloudError::Config(format!(
                    "cloud '{name}' asked for, but no clouds.yaml found (looked at OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml)"
                )));
            };
            files.push(clouds);
            files.extend(openstack_sdk::config::find_secure_file());
        }
    }
    let shown = files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut builder = ConfigFile::builder();
    for file in &files {
        builder = builder.add_source(file).map_err(|e| bad_file(file, e))?;
    }
    let loaded = builder
        .build()
        .map_err(|e| CloudError::Config(format!("{shown}: {}", builder_reason(&e))))?;
    let config = loaded
        .get_cloud_config(name)
        .map_err(|e| CloudError::Config(format!("{shown}: cloud '{name}': {e}")))?;
    let Some(mut config) = config else {
        let mut known = loaded.get_available_clouds();
        known.sort();
        let known = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        return Err(CloudError::Config(format!(
            "{shown}: no cloud named '{name}' (clouds: {known})"
        )));
    };
    normalize_auth_type(&mut config)?;
    Ok(ResolvedCloud {
        config,
        source: format!("cloud '{name}' of {shown}"),
    })
}

fn bad_file(path: &Path, error: ConfigFileBuilderError) -> CloudError {
    CloudError::Config(format!("{}: {}", path.display(), builder_reason(&error)))
}

/// The reason of a config error, without the path the caller already names.
fn builder_reason(error: &ConfigFileBuilderError) -> String {
    match error {
        ConfigFileBuilderError::FileParse { source, .. } => format!("not valid YAML: {source}"),
        ConfigFileBuilderError::ConfigDeserialize { source, .. } => {
            format!("not a clouds.yaml document: {source}")
        }
        ConfigFileBuilderError::ConfigBuild { source } => source.to_string(),
        other => other.to_string(),
    }
}

/// A cloud from `OS_*` variables, as keystoneauth reads them.
pub fn from_env_vars(env: &BTreeMap<String, String>) -> Result<CloudConfig, CloudError> {
    let var = |name: &str| {
        env.get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let secret = |name: &str| var(name).map(Into::into);
    let auth = Auth {
        auth_url: var("OS_AUTH_URL"),
        username: var("OS_USERNAME"),
        user_id: var("OS_USER_ID"),
        password: secret("OS_PASSWORD"),
        user_domain_name: var("OS_USER_DOMAIN_NAME"),
        user_domain_id: var("OS_USER_DOMAIN_ID"),
        project_name: var("OS_PROJECT_NAME").or_else(|| var("OS_TENANT_NAME")),
        project_id: var("OS_PROJECT_ID").or_else(|| var("OS_TENANT_ID")),
        project_domain_name: var("OS_PROJECT_DOMAIN_NAME"),
        project_domain_id: var("OS_PROJECT_DOMAIN_ID"),
        application_credential_id: var("OS_APPLICATION_CREDENTIAL_ID"),
        application_credential_name: var("OS_APPLICATION_CREDENTIAL_NAME"),
        application_credential_secret: secret("OS_APPLICATION_CREDENTIAL_SECRET"),
        ..Auth::default()
    };
    // keystoneauth's default domain for names given without one.
    let mut auth = auth;
    if let Some(domain) = var("OS_DEFAULT_DOMAIN") {
        auth.user_domain_id.get_or_insert(domain.clone());
        auth.project_domain_id.get_or_insert(domain);
    }
    let app_cred =
        auth.application_credential_id.is_some() || auth.application_credential_name.is_some();
    let auth_type = var("OS_AUTH_TYPE").or_else(|| {
        Some(if app_cred {
            "v3applicationcredential".to_string()
        } else {
            "password".to_string()
        })
    });
    let mut config = CloudConfig {
        auth: Some(auth),
        auth_type,
        region_name: var("OS_REGION_NAME"),
        interface: Some(
            var("OS_INTERFACE")
                .or_else(|| var("OS_ENDPOINT_TYPE"))
                .map(|i| i.trim_end_matches("URL").to_string())
                .unwrap_or_else(|| "public".into()),
        ),
        cacert: var("OS_CACERT"),
        name: Some("env".into()),
        ..CloudConfig::default()
    };
    normalize_auth_type(&mut config)?;
    Ok(config)
}

/// Maps the spellings operators use (`password`, `v3password`, `application_credential`,
/// `v3applicationcredential`) to what `openstack_sdk` knows, and refuses the rest here
/// rather than after a round trip to Keystone.
fn normalize_auth_type(config: &mut CloudConfig) -> Result<(), CloudError> {
    let Some(given) = config.auth_type.clone() else {
        return Ok(());
    };
    let key = given.to_ascii_lowercase().replace(['_', '-'], "");
    let normalized = match key.as_str() {
        "password" | "v3password" => "v3password",
        "applicationcredential" | "v3applicationcredential" => "v3applicationcredential",
        "token" | "v3token" => "v3token",
        // Swift's own v1 auth (tempauth, swauth): only the Swift blob store takes it.
        "v1password" => "v1password",
        _ => {
            return Err(CloudError::Config(format!(
                "auth_type '{given}' is not supported (password or v3applicationcredential)"
            )));
        }
    };
    config.auth_type = Some(normalized.into());
    let auth = config.auth.as_ref();
    let by_name_only = auth.is_some_and(|a| {
        a.application_credential_id.is_none() && a.application_credential_name.is_some()
    });
    if normalized == "v3applicationcredential" && by_name_only {
        // openstack-sdk-auth-applicationcredential 0.22.7 leaves the name out of the
        // values it asks for, so by-name auth would fail at Keystone with a misleading
        // "id or name must be present".
        return Err(CloudError::Config(
            "application credentials by name are not supported (openstack_sdk drops the name): give application_credential_id".into(),
        ));
    }
    Ok(())
}

/// The process environment as a map.
pub fn process_env() -> BTreeMap<String, String> {
    std::env::vars().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const CLOUDS: &str = "clouds:\n  prod:\n    auth:\n      auth_url: http://keystone:5000/v3\n      username: admin\n      password: pw\n      project_name: admin\n      user_domain_name: Default\n      project_domain_name: Default\n    region_name: RegionTwo\n  appcred:\n    auth_type: application_credential\n    auth:\n      auth_url: http://keystone:5000/v3\n      application_credential_id: ac\n      application_credential_secret: s\n";

    fn clouds_file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clouds.yaml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn os_variables_make_a_password_or_application_credential_cloud() {
        let password = resolve(
            &ConnectOptions::default(),
            &env(&[
                ("OS_AUTH_URL", "http://keystone:5000/v3"),
                ("OS_USERNAME", "admin"),
                ("OS_PASSWORD", "pw"),
                ("OS_PROJECT_NAME", "admin"),
                ("OS_USER_DOMAIN_NAME", "Default"),
                ("OS_PROJECT_DOMAIN_NAME", "Default"),
                ("OS_REGION_NAME", "RegionOne"),
                ("OS_INTERFACE", "internal"),
            ]),
        )
        .unwrap();
        assert_eq!(password.source, "OS_* variables");
        let config = password.config;
        assert_eq!(config.auth_type.as_deref(), Some("v3password"));
        assert_eq!(config.region_name.as_deref(), Some("RegionOne"));
        assert_eq!(config.interface.as_deref(), Some("internal"));
        let auth = config.auth.unwrap();
        assert_eq!(auth.username.as_deref(), Some("admin"));
        assert_eq!(auth.project_domain_name.as_deref(), Some("Default"));

        let credential = from_env_vars(&env(&[
            ("OS_AUTH_URL", "http://keystone:5000/v3"),
            ("OS_APPLICATION_CREDENTIAL_ID", "ac"),
            ("OS_APPLICATION_CREDENTIAL_SECRET", "s"),
            ("OS_ENDPOINT_TYPE", "publicURL"),
        ]))
        .unwrap();
        assert_eq!(
            credential.auth_type.as_deref(),
            Some("v3applicationcredential")
        );
        assert_eq!(credential.interface.as_deref(), Some("public"));

        let by_name = from_env_vars(&env(&[
            ("OS_AUTH_URL", "http://keystone:5000/v3"),
            ("OS_APPLICATION_CREDENTIAL_NAME", "recovery"),
            ("OS_APPLICATION_CREDENTIAL_SECRET", "s"),
            ("OS_USERNAME", "admin"),
        ]))
        .unwrap_err();
        assert!(
            by_name.to_string().contains("application_credential_id"),
            "{by_name}"
        );
    }

    #[test]
    fn the_cloud_name_comes_from_the_option_then_os_cloud() {
        let (_dir, path) = clouds_file(CLOUDS);
        let file = path.display().to_string();
        let by_option = resolve(
            &ConnectOptions {
                cloud: Some("prod".into()),
                config_file: None,
            },
            &env(&[("OS_CLIENT_CONFIG_FILE", &file), ("OS_CLOUD", "appcred")]),
        )
        .unwrap();
        assert_eq!(by_option.config.region_name.as_deref(), Some("RegionTwo"));
        assert_eq!(by_option.source, format!("cloud 'prod' of {file}"));
        let by_env = resolve(
            &ConnectOptions::default(),
            &env(&[
                ("OS_CLIENT_CONFIG_FILE", &file),
                ("OS_CLOUD", "appcred"),
                ("OS_AUTH_URL", "http://elsewhere"),
            ]),
        )
        .unwrap();
        assert_eq!(
            by_env.config.auth_type.as_deref(),
            Some("v3applicationcredential")
        );
    }

    #[test]
    fn missing_unknown_and_broken_configuration_name_the_file_and_the_reason() {
        let none = resolve(&ConnectOptions::default(), &env(&[])).unwrap_err();
        assert!(none.to_string().contains("no cloud given"), "{none}");

        let (_dir, path) = clouds_file(CLOUDS);
        let unknown = resolve(
            &ConnectOptions {
                cloud: Some("staging".into()),
                config_file: Some(path.clone()),
            },
            &env(&[]),
        )
        .unwrap_err();
        let text = unknown.to_string();
        assert!(text.contains("no cloud named 'staging'"), "{text}");
        assert!(text.contains("(clouds: appcred, prod)"), "{text}");
        assert!(text.contains(&path.display().to_string()), "{text}");

        let (_bad_dir, bad) = clouds_file("clouds:\n  prod: [unclosed\n");
        let broken = resolve(
            &ConnectOptions {
                cloud: Some("prod".into()),
                config_file: Some(bad.clone()),
            },
            &env(&[]),
        )
        .unwrap_err();
        let text = broken.to_string();
        assert!(matches!(broken, CloudError::Config(_)));
        assert!(text.contains(&bad.display().to_string()), "{text}");
        assert!(text.contains("not valid YAML"), "{text}");

        let absent = resolve(
            &ConnectOptions {
                cloud: Some("prod".into()),
                config_file: Some(PathBuf::from("/nonexistent/clouds.yaml")),
            },
            &env(&[]),
        )
        .unwrap_err();
        assert!(
            absent.to_string().contains("/nonexistent/clouds.yaml"),
            "{absent}"
        );
    }
}
