//! Nova's migration records: `openstack server migration list` (columns `Id, UUID,
//! Source Node, Dest Node, Source Compute, Dest Compute, Dest Host, Status, Server UUID,
//! Old Flavor, New Flavor, Type, Created At, Updated At`), the older `nova migration-list`
//! (`Instance UUID` instead of `Server UUID`) and the API's `os-migrations` JSON
//! (`instance_uuid`, `migration_type`, `created_at`, …).
//!
//! An evacuation creates its record (type `evacuation`, status `accepted`) when Nova
//! accepts the evacuate call, so `Created At` is a time of acceptance that survives even
//! when the API logs are gone.

use serde::{Deserialize, Serialize};

use super::fields::{Obj, has, text};

/// One migration record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Migration {
    /// `Id` (the database id).
    pub id: Option<String>,
    /// `UUID`.
    pub uuid: Option<String>,
    /// `Server UUID` / `Instance UUID` / `instance_uuid`.
    pub server_id: String,
    /// `Source Compute`: the host the instance left.
    pub source_compute: Option<String>,
    /// `Dest Compute`.
    pub dest_compute: Option<String>,
    /// `Status`: `accepted`, `pre-migrating`, `done`, `completed`, `error`, `failed`, …
    pub status: Option<String>,
    /// `Type` / `migration_type`: `evacuation`, `migration`, `live-migration`, `resize`.
    pub migration_type: Option<String>,
    /// `Created At`, as printed.
    pub created_at: Option<String>,
    /// `Updated At`, as printed.
    pub updated_at: Option<String>,
}

const SERVER: &[&str] = &[
    "Server UUID",
    "Instance UUID",
    "instance_uuid",
    "server_uuid",
];
const SOURCE: &[&str] = &["Source Compute", "source_compute"];

impl Migration {
    /// True when `obj` has the fields of a migration record.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(obj, SERVER) && has(obj, SOURCE)
    }

    pub(crate) fn from_obj(obj: &Obj) -> Option<Migration> {
        Some(Migration {
            id: text(obj, &["Id", "id"]),
            uuid: text(obj, &["UUID", "uuid"]),
            server_id: text(obj, SERVER)?,
            source_compute: text(obj, SOURCE),
            dest_compute: text(obj, &["Dest Compute", "dest_compute"]),
            status: text(obj, &["Status", "status"]),
            migration_type: text(obj, &["Type", "Migration Type", "migration_type"]),
            created_at: text(obj, &["Created At", "created_at"]),
            updated_at: text(obj, &["Updated At", "updated_at"]),
        })
    }

    /// True for the record of an evacuation.
    pub fn is_evacuation(&self) -> bool {
        self.migration_type
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("evacuation"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::list_table;
    use super::super::{Capture, parse_capture};

    const CAAD: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";

    fn migrations(c: Option<Capture>) -> Vec<super::Migration> {
        match c {
            Some(Capture::Migrations(m)) => m,
            other => panic!("not migrations: {other:?}"),
        }
    }

    #[test]
    fn osc_table_with_command() {
        let table = list_table(
            &[
                "Id",
                "UUID",
                "Source Node",
                "Dest Node",
                "Source Compute",
                "Dest Compute",
                "Dest Host",
                "Status",
                "Server UUID",
                "Old Flavor",
                "New Flavor",
                "Type",
                "Created At",
                "Updated At",
            ],
            &[vec![
                "41",
                "0b8d3c2e-7a6f-4e1d-9c5b-3a2f1e0d9c8b",
                "cmp-01.maas",
                "cmp-03.maas",
                "cmp-01",
                "cmp-03",
                "10.0.0.13",
                "done",
                CAAD,
                "2",
                "2",
                "evacuation",
                "2024-05-02T19:37:51.000000",
                "2024-05-02T19:38:40.000000",
            ]],
        );
        let text =
            format!("$ openstack --os-compute-api-version 2.59 server migration list\n{table}");
        let m = migrations(parse_capture(&text));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].server_id, CAAD);
        assert_eq!(m[0].source_compute.as_deref(), Some("cmp-01"));
        assert_eq!(m[0].status.as_deref(), Some("done"));
        assert!(m[0].is_evacuation());
        assert_eq!(
            m[0].created_at.as_deref(),
            Some("2024-05-02T19:37:51.000000")
        );
    }

    #[test]
    fn nova_client_table_without_command() {
        // `nova migration-list`: `Instance UUID`, `Type` last.
        let table = list_table(
            &[
                "Id",
                "UUID",
                "Source Node",
                "Dest Node",
                "Source Compute",
                "Dest Compute",
                "Dest Host",
                "Status",
                "Instance UUID",
                "Old Flavor",
                "New Flavor",
                "Created At",
                "Updated At",
                "Type",
            ],
            &[
                vec![
                    "7",
                    "5c4b3a29-1807-4f6e-8d5c-4b3a29180766",
                    "node02ob100.maas",
                    "-",
                    "node02ob100",
                    "-",
                    "-",
                    "accepted",
                    CAAD,
                    "1",
                    "1",
                    "2020-12-08T19:51:12.000000",
                    "2020-12-08T19:51:12.000000",
                    "evacuation",
                ],
                vec![
                    "6",
                    "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
                    "node01ob100.maas",
                    "node03ob100.maas",
                    "node01ob100",
                    "node03ob100",
                    "10.0.0.3",
                    "confirmed",
                    CAAD,
                    "1",
                    "3",
                    "2020-11-30T08:00:00.000000",
                    "2020-11-30T08:05:00.000000",
                    "resize",
                ],
            ],
        );
        let m = migrations(parse_capture(&table));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].dest_compute, None, "`-` is absent");
        assert!(m[0].is_evacuation());
        assert!(!m[1].is_evacuation());
    }

    #[test]
    fn api_json_envelope() {
        let json = format!(
            r#"{{"migrations": [{{"id": 41, "uuid": "0b8d3c2e-7a6f-4e1d-9c5b-3a2f1e0d9c8b",
  "source_compute": "cmp-01", "dest_compute": "cmp-03", "status": "accepted",
  "instance_uuid": "{CAAD}", "migration_type": "evacuation",
  "created_at": "2024-05-02T19:37:51.000000", "updated_at": null}}]}}"#
        );
        let m = migrations(parse_capture(&json));
        assert_eq!(m[0].id.as_deref(), Some("41"));
        assert_eq!(m[0].status.as_deref(), Some("accepted"));
        assert_eq!(m[0].updated_at, None);
        assert!(m[0].is_evacuation());
    }
}
