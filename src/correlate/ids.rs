//! Finding what the ids in a message refer to: instances, notifications, volumes, hosts.
//!
//! Masakari and Nova name things in prose (`Call evacuate command for instance <uuid>`,
//! `Processing notification <uuid> of type`, `Attaching volume <uuid> to instance
//! <uuid>`): the word before a UUID says what it is.

use evacdoc_parsers::text::uuids_in;

use crate::model::Uuid;

/// What a UUID in a message refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UuidKind {
    /// A Nova instance (server).
    Instance,
    /// A Masakari notification.
    Notification,
    /// A Cinder volume.
    Volume,
}

/// How far back (in words) to look for the noun naming a UUID.
const LOOKBACK_WORDS: usize = 4;

fn kind_of_word(word: &str) -> Option<UuidKind> {
    match word.to_ascii_lowercase().as_str() {
        "instance" | "instances" | "server" | "servers" | "server_id" | "instance_uuid" => {
            Some(UuidKind::Instance)
        }
        "notification" | "notifications" | "notification_uuid" => Some(UuidKind::Notification),
        "volume" | "volumes" | "volume_id" => Some(UuidKind::Volume),
        _ => None,
    }
}

/// Every classified UUID of `text`, in order. A UUID right after another one and a comma
/// (`'u1,u2'`) is of the same kind.
pub fn classified_uuids(text: &str) -> Vec<(UuidKind, Uuid)> {
    let mut out = Vec::new();
    let mut last: Option<(usize, UuidKind)> = None;
    for uuid in uuids_in(text) {
        // `uuids_in` yields slices of `text`: their offset is a pointer difference.
        let start = uuid.as_ptr() as usize - text.as_ptr() as usize;
        let before = text.get(..start).unwrap_or("");
        let listed = last.and_then(|(end, kind)| {
            let between = text.get(end..start)?;
            between
                .trim_matches([' ', '\'', '"'])
                .eq(",")
                .then_some(kind)
        });
        let kind = listed.or_else(|| {
            before
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .take(LOOKBACK_WORDS)
                .find_map(kind_of_word)
        });
        if let (Some(kind), Some(id)) = (kind, Uuid::parse(uuid)) {
            out.push((kind, id));
            last = Some((start + uuid.len(), kind));
        } else {
            last = None;
        }
    }
    out
}

/// Host names a Masakari or Nova message mentions (`Disable nova-compute on X`,
/// `from host 'X'`, `Compute service of X is still in use`).
pub fn mentioned_hosts(text: &str) -> Vec<&str> {
    const MARKERS: [&str; 9] = [
        "nova-compute on ",
        "Server list on ",
        " host '",
        " host: '",
        "failed_host: '",
        "failed_host '",
        "Compute service of ",
        "service state on ",
        "recovery for host ",
    ];
    // Searchers built once: `str::find` builds one per call, nine per line here.
    static FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 9]> =
        std::sync::LazyLock::new(|| MARKERS.map(memchr::memmem::Finder::new));
    let mut hosts = Vec::new();
    for (marker, finder) in MARKERS.iter().zip(FINDERS.iter()) {
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| finder.find(t.as_bytes())) {
            let start = from + at + marker.len();
            let rest = text.get(start..).unwrap_or("");
            let len = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
                .count();
            let name = rest.get(..len).unwrap_or("").trim_end_matches('.');
            if !name.is_empty() && name != "None" && !hosts.contains(&name) {
                hosts.push(name);
            }
            from = start;
        }
    }
    hosts
}

/// The short form of a host name: `node02ob100.maas` → `node02ob100`, lowercase.
pub fn short_host(name: &str) -> String {
    name.split('.').next().unwrap_or(name).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(UuidKind, String)> {
        classified_uuids(text)
            .into_iter()
            .map(|(k, u)| (k, u.to_string()))
            .collect()
    }

    #[test]
    fn masakari_messages() {
        assert_eq!(
            kinds(
                "Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None"
            ),
            vec![(
                UuidKind::Instance,
                "56ce6206-3659-495e-a6ea-f4d3d578cc96".into()
            )]
        );
        let k = kinds(
            "Failed to process notification '9ace2da7-97d1-48cb-a96a-08ad4624481b'. Reason: \
             Failed to evacuate instances '56ce6206-3659-495e-a6ea-f4d3d578cc96,7d1e5f0a-0000-4000-8000-000000000001' from host 'node02ob100.maas'",
        );
        assert_eq!(k[0].0, UuidKind::Notification);
        assert_eq!(k[1].0, UuidKind::Instance);
        assert_eq!(
            k[2],
            (
                UuidKind::Instance,
                "7d1e5f0a-0000-4000-8000-000000000001".into()
            )
        );
        assert_eq!(
            kinds("Evacuation of instance started: 'caad8b3d-c2c3-43ec-845f-7c5f056ebcd4'")[0].0,
            UuidKind::Instance
        );
        // A taskflow task id is not an instance, although the task's name says "Instances".
        assert!(
            kinds(
                "Task 'EvacuateInstancesTask' (8a1b2c3d-0000-4000-8000-00000000000a) transitioned"
            )
            .is_empty()
        );
    }

    #[test]
    fn paths_and_cinder_messages() {
        assert_eq!(
            kinds("POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1")[0].0,
            UuidKind::Instance
        );
        let k = kinds(
            "Attaching volume 35ab2ef8-5508-4401-bff4-06c2f119c225 to instance caad8b3d-c2c3-43ec-845f-7c5f056ebcd4 at mountpoint /dev/vda",
        );
        assert_eq!(k[0].0, UuidKind::Volume);
        assert_eq!(k[1].0, UuidKind::Instance);
    }

    #[test]
    fn host_mentions() {
        assert_eq!(
            mentioned_hosts("Disable nova-compute on node02ob100.maas"),
            vec!["node02ob100.maas"]
        );
        assert_eq!(
            mentioned_hosts("Failed to evacuate instances 'x' from host 'node02ob100.maas'"),
            vec!["node02ob100.maas"]
        );
        assert_eq!(
            mentioned_hosts("HTTP exception thrown: Compute service of compute-1 is still in use."),
            vec!["compute-1"]
        );
        assert!(mentioned_hosts("Call evacuate command for instance x on host None").is_empty());
        assert_eq!(short_host("Node02ob100.maas"), "node02ob100");
    }
}
