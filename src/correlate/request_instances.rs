//! A Nova or Cinder line without an `[instance: …]` tag belongs to the instance of its
//! request.
//!
//! nova-api serves `POST /servers/<id>/action` (an evacuation) under its own local request
//! id; the context travels over RPC, so nova-conductor and nova-compute log the rebuild
//! under that same id, and some of their lines (`disk on volume, evacuating using existing
//! volume` in some releases) carry no instance tag. Cinder logs Nova's global id as its
//! own global id. So each request id that is about exactly one instance (a server path, a
//! tagged line, a `server event list` row) lends that instance to its untagged lines. An id
//! seen with two instances (a periodic task, a Masakari notification that moves several
//! instances) lends nothing.

use std::collections::HashMap;

use evacdoc_parsers::capture::Capture;

use crate::correlate::ids::{UuidKind, classified_uuids};
use crate::model::inventory::CaptureFile;
use crate::model::{Event, EventKind, Project, Uuid};

/// What a request id is known to be about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum About {
    /// One instance.
    One(Uuid),
    /// A request about no single instance (a service update, a listing) or about several.
    NotOne,
}

fn note(map: &mut HashMap<Uuid, About>, id: Uuid, instance: Option<Uuid>) {
    let about = match instance {
        Some(i) => About::One(i),
        None => About::NotOne,
    };
    map.entry(id)
        .and_modify(|known| {
            if *known != about {
                *known = About::NotOne;
            }
        })
        .or_insert(about);
}

/// The one server a request path acts on (`/v2.1/servers/<id>/action`), `None` for a
/// path about no single server.
fn server_of_path(path: &str) -> Option<Uuid> {
    let path = path.split('?').next().unwrap_or(path);
    let rest = &path[path.find("/servers/")? + "/servers/".len()..];
    Uuid::parse(rest.split('/').next()?)
}

/// The instance an event is about, when it names exactly one (`Some(None)` when it is
/// about none or several, `None` when it says nothing either way).
fn instance_of(event: &Event) -> Option<Option<Uuid>> {
    if let Some(http) = event.http() {
        return Some(server_of_path(&http.path));
    }
    match event.instances.as_slice() {
        [] => None,
        [one] => Some(Some(*one)),
        _ => Some(None),
    }
}

/// Adds to every untagged Nova or Cinder log line the instance of its request.
/// `project_of(event)` tells which project's log an event comes from.
pub fn attribute_request_instances(
    events: &mut [Event],
    captures: &[CaptureFile],
    project_of: impl Fn(&Event) -> Project,
) {
    // Nova's and Cinder's local ids, and every global id (Masakari's lines included, so
    // that a notification moving several instances lends none of them).
    let mut local: HashMap<Uuid, About> = HashMap::new();
    let mut global: HashMap<Uuid, About> = HashMap::new();
    for event in events.iter() {
        let Some(instance) = instance_of(event) else {
            continue;
        };
        let service_side = matches!(project_of(event), Project::Nova | Project::Cinder);
        if let (Some(r), true) = (event.request_id, service_side) {
            note(&mut local, r, instance);
        }
        if let Some(g) = event.global_request_id {
            note(&mut global, g, instance);
        }
    }
    // `server event list`: each action's request id is about its server.
    for capture in captures {
        let Capture::ServerEvents { server_id, events } = &capture.capture else {
            continue;
        };
        for e in events {
            let server = e.server_id.as_deref().or(server_id.as_deref());
            if let (Some(r), Some(s)) = (
                Uuid::parse_request_id(&e.request_id),
                server.and_then(Uuid::parse),
            ) {
                note(&mut local, r, Some(s));
            }
        }
    }
    for event in events.iter_mut() {
        if !event.instances.is_empty()
            || event.kind != EventKind::Log
            || !matches!(project_of(event), Project::Nova | Project::Cinder)
        {
            continue;
        }
        // Its own request first; Cinder logs Nova's local id as its global id; a
        // request known to be about no single instance lends nothing through its global.
        let found = match event.request_id.and_then(|r| local.get(&r)) {
            Some(About::One(i)) => Some(*i),
            Some(About::NotOne) => None,
            None => event.global_request_id.and_then(|g| {
                match local.get(&g).or_else(|| global.get(&g)) {
                    Some(About::One(i)) => Some(*i),
                    _ => None,
                }
            }),
        };
        // A line naming a UUID as something else (a volume) still gets its instance; one
        // naming an instance in prose already has it.
        if let Some(i) = found
            && !classified_uuids(&event.message())
                .iter()
                .any(|(k, u)| *k == UuidKind::Instance && *u != i)
        {
            event.instances.push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HttpRequest;

    const I: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
    const J: &str = "89606586-ae8d-49a4-aa24-fdaec2e518bb";

    fn event(request: &str, global: Option<&str>, instances: &[&str], path: Option<&str>) -> Event {
        let mut e = Event::new(0, 1, 0, EventKind::Log);
        e.set_logger("nova.compute.manager");
        e.request_id = Uuid::parse_request_id(request);
        e.global_request_id = global.and_then(Uuid::parse_request_id);
        e.instances = instances.iter().filter_map(|i| Uuid::parse(i)).collect();
        if let Some(p) = path {
            e.set_http(HttpRequest {
                method: "POST".into(),
                path: p.into(),
                status: 200,
                user_agent: None,
                duration_ns: None,
            });
        }
        e.set_text("disk on volume, evacuating using existing volume", &[]);
        e.message_len = 48;
        e
    }

    const L: &str = "req-995253fd-49c7-46e5-b38d-3bb4294c4ea3";
    const G: &str = "req-3c6da5d7-4da4-41a6-b8a1-7a97656412a9";

    #[test]
    fn the_evacuation_request_lends_its_instance_to_compute_lines() {
        let mut events = vec![
            event(L, Some(G), &[], Some(&format!("/v2.1/servers/{I}/action"))),
            event(L, Some(G), &[], None),
            // Another request of the same notification, about another instance.
            event(
                "req-6ac9573d-0000-4000-8000-000000000001",
                Some(G),
                &[J],
                None,
            ),
            event(
                "req-6ac9573d-0000-4000-8000-000000000002",
                Some(G),
                &[],
                None,
            ),
        ];
        attribute_request_instances(&mut events, &[], |_| Project::Nova);
        assert_eq!(events[1].instances, [Uuid::parse(I).unwrap()]);
        // The global id is about two instances: it lends neither.
        assert!(events[3].instances.is_empty());
    }

    #[test]
    fn a_request_about_several_instances_lends_nothing() {
        let periodic = "req-c6c75849-7ccc-4e27-a6ab-d494c093fdb5";
        let mut events = vec![
            event(periodic, None, &[I], None),
            event(periodic, None, &[J], None),
            event(periodic, None, &[], None),
        ];
        attribute_request_instances(&mut events, &[], |_| Project::Nova);
        assert!(events[2].instances.is_empty());
    }
}
