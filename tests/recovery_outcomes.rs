//! What became of each instance of the sample scenarios' recoveries (moved, failed,
//! pending, ignored): the analysis page's recoveries table and the Remediate panel's
//! "nothing left to recover" read these.

use evacdoc::correlate::recovery::RecoveryStatus;
use evacdoc::correlate::recovery_outcome::{fully_recovered, outcomes};

use crate::analysis::analyze_scenario;

/// A recovery's final status and its instances moved, failed, pending and ignored.
type Row = (Option<RecoveryStatus>, [usize; 4], bool);

/// `(notification prefix, row)` of every recovery of scenario `name`.
fn table(name: &str) -> Vec<(String, Row)> {
    let a = analyze_scenario(name);
    a.recoveries
        .iter()
        .map(|r| {
            let o = outcomes(&a, r);
            let counts = [
                o.moved.len(),
                o.failed.len(),
                o.pending.len(),
                o.ignored.len(),
            ];
            (
                r.notification.to_string()[..8].to_string(),
                (r.final_status(), counts, fully_recovered(&a, r)),
            )
        })
        .collect()
}

fn row(name: &str, notification: &str) -> Row {
    table(name)
        .into_iter()
        .find(|(n, _)| n == notification)
        .unwrap_or_else(|| panic!("{notification} not in {name}"))
        .1
}

use RecoveryStatus::{Failed, Finished, Ignored};

#[test]
fn a_finished_notification_with_an_instance_left_behind_is_not_recovered() {
    // LP#2158101: two evacuated, the third fetched and dropped, the notification
    // `finished` all the same.
    assert_eq!(
        row("2022-juju-pending-after-finished-yoga", "653ee3e5"),
        (Some(Finished), [2, 0, 1, 0], false)
    );
}

#[test]
fn retried_and_healthy_recoveries_moved_everything() {
    assert_eq!(
        row("2025-kolla-healthy-recovery", "9c1f4e2a"),
        (Some(Finished), [2, 0, 0, 0], true)
    );
    // The race's first run was refused (400); the periodic retry moved the instance.
    assert_eq!(
        row("2020-juju-evacuate-race", "9ace2da7"),
        (Some(Finished), [1, 0, 0, 0], true)
    );
    // Two hosts at once on one engine: each recovery counts its own instances.
    let both = table("2022-kolla-yoga-two-hosts-interleaved-race");
    assert_eq!(
        both,
        vec![
            ("6916637e".to_string(), (Some(Finished), [2, 0, 0, 0], true)),
            ("cc60c118".to_string(), (Some(Finished), [1, 0, 0, 0], true)),
        ]
    );
}

#[test]
fn failed_and_ignored_recoveries_are_never_recovered() {
    assert_eq!(
        row("2023-keystone-401-failure", "4e9b2f7a"),
        (Some(Failed), [0, 0, 0, 0], false)
    );
    for (n, (status, counts, recovered)) in table("2024-ignored-no-host-status") {
        assert_eq!(
            (status, counts, recovered),
            (Some(Ignored), [0; 4], false),
            "{n}"
        );
    }
}
