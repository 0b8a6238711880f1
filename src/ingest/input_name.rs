//! How reports name an input: by the bundle's own name (`sosreport-cmp1-2024.tar.xz`,
//! `2020-juju-evacuate-race`), never by the folders it sits in. Those folders often carry
//! a case number or a customer name, and a report is meant for a public tracker.

use std::path::Path;

/// The input's own name: its last path component, or for `.`, `..` and the like the last
/// component of where it points; `input` when it has none (`/`).
pub fn input_name(input: &Path) -> String {
    let own = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
    };
    own(input)
        .or_else(|| input.canonicalize().ok().as_deref().and_then(own))
        .unwrap_or_else(|| "input".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_component_is_kept() {
        assert_eq!(
            input_name(Path::new("/home/eng/case-01234-acme/sosreport-cmp1.tar.xz")),
            "sosreport-cmp1.tar.xz"
        );
        assert_eq!(input_name(Path::new("bundles/2020-race/")), "2020-race");
        assert_eq!(input_name(Path::new("/")), "input");
    }

    #[test]
    fn a_relative_dot_is_named_after_the_folder_it_points_to() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("juju-crashdump-7f3a");
        std::fs::create_dir_all(inner.join("sub")).unwrap();
        assert_eq!(input_name(&inner.join(".")), "juju-crashdump-7f3a");
        assert_eq!(
            input_name(&inner.join("sub").join("..")),
            "juju-crashdump-7f3a"
        );
    }
}
