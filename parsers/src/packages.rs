//! Installed package lists as sosreports keep them: `dpkg -l` (`sos_commands/dpkg/dpkg_-l`,
//! `installed-debs`), `rpm -qa` (`installed-rpms`) and `snap list`.

use serde::Serialize;

/// An installed package.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Package<'a> {
    /// Package name (architecture suffix removed).
    pub name: &'a str,
    /// Version as the package manager writes it.
    pub version: &'a str,
    /// `deb`, `rpm` or `snap`.
    pub kind: &'static str,
}

fn dpkg_line(line: &str) -> Option<Package<'_>> {
    let mut fields = line.split_whitespace();
    let status = fields.next()?;
    // `ii` installed; `hi` held. Removed (`rc`) packages are not installed.
    if !(status.len() == 2 && status.ends_with('i')) {
        return None;
    }
    let name = fields.next()?;
    let version = fields.next()?;
    Some(Package {
        name: name.split(':').next().unwrap_or(name),
        version,
        kind: "deb",
    })
}

fn rpm_line(line: &str) -> Option<Package<'_>> {
    let line = line.trim();
    // name-version-release.arch, where the name may hold dashes.
    let without_arch = line.rsplit_once('.').map_or(line, |(rest, arch)| {
        if ["x86_64", "noarch", "aarch64", "ppc64le", "s390x", "i686"].contains(&arch) {
            rest
        } else {
            line
        }
    });
    let (rest, _release) = without_arch.rsplit_once('-')?;
    let (name, _) = rest.rsplit_once('-')?;
    let version = without_arch.get(name.len() + 1..)?;
    (!name.is_empty() && version.starts_with(|c: char| c.is_ascii_digit())).then_some(Package {
        name,
        version,
        kind: "rpm",
    })
}

/// Reads a package list, recognising its format from its content.
///
/// ```
/// use evacdoc_parsers::packages::parse_packages;
/// let dpkg = "ii  masakari-engine  17.0.0-0ubuntu1  all  OpenStack Instance HA - engine\n";
/// let p = &parse_packages(dpkg)[0];
/// assert_eq!((p.name, p.version, p.kind), ("masakari-engine", "17.0.0-0ubuntu1", "deb"));
/// ```
pub fn parse_packages(text: &str) -> Vec<Package<'_>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    let first = lines.peek().copied().unwrap_or("");
    if first.starts_with("Name") && first.contains("Version") && first.contains("Rev") {
        // snap list: Name Version Rev Tracking Publisher Notes
        return lines
            .skip(1)
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                Some(Package {
                    name: f.next()?,
                    version: f.next()?,
                    kind: "snap",
                })
            })
            .collect();
    }
    let dpkg: Vec<Package<'_>> = text.lines().filter_map(dpkg_line).collect();
    if !dpkg.is_empty() {
        return dpkg;
    }
    text.lines().filter_map(rpm_line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpkg_list() {
        let text = "Desired=Unknown/Install/Remove/Purge/Hold\n\
                    ||/ Name   Version   Architecture Description\n\
                    +++-======-=========-============-===========\n\
                    ii  nova-api-os-compute  3:29.0.1-0ubuntu1  all  OpenStack Compute - OpenStack Compute API frontend\n\
                    rc  old-thing  1.0  all  removed\n\
                    ii  libc6:amd64  2.35-0ubuntu3.8  amd64  GNU C Library\n";
        let p = parse_packages(text);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].version, "3:29.0.1-0ubuntu1");
        assert_eq!(p[1].name, "libc6");
    }

    #[test]
    fn rpm_and_snap_lists() {
        let p = parse_packages(
            "openstack-nova-api-27.1.1-17.1.20240105130809.el9ost.noarch\npython3-masakari-17.0.0-1.el9.noarch\n",
        );
        assert_eq!(p[0].name, "openstack-nova-api");
        assert_eq!(p[0].version, "27.1.1-17.1.20240105130809.el9ost");
        assert_eq!(p[1].name, "python3-masakari");
        let p = parse_packages(
            "Name                  Version   Rev   Tracking        Publisher   Notes\nopenstack             2024.1    667   2024.1/stable   canonical✓  -\n",
        );
        assert_eq!(
            (p[0].name, p[0].version, p[0].kind),
            ("openstack", "2024.1", "snap")
        );
        assert!(parse_packages("random text\n").is_empty());
    }
}
