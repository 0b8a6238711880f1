//! Which microversion each call asks for, from the maximum the cloud announced.
//! `openstack_sdk` sends the lowest version a request variant allows and does not check
//! Nova's maximum (Nova's version document has `version`, not `max_version`), so the
//! choice is made here and sent explicitly.

/// A microversion, ordered numerically (`2.9 < 2.53`).
pub type Version = (u32, u32);

/// `"2.95"` → `(2, 95)`.
pub fn parse(text: &str) -> Option<Version> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// `(2, 95)` → `"2.95"`.
pub fn show(version: Version) -> String {
    format!("{}.{}", version.0, version.1)
}

/// The version to read servers and services with: the highest the client knows the
/// shape of (2.73 adds `locked_reason`; 2.53 makes service ids UUIDs).
pub fn compute_read(max: Version) -> Version {
    max.min((2, 73))
}

/// How `forced_down` and the disabled reason are set on a service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceUpdate {
    /// `PUT /os-services/{uuid}` (2.53).
    ByUuid,
    /// `PUT /os-services/force-down` and `/disable-log-reason` with host and binary (2.11).
    ByHost,
    /// Before 2.11: `disable-log-reason` only, no `forced_down`.
    Legacy,
}

pub fn service_update(max: Version) -> (ServiceUpdate, Version) {
    if max >= (2, 53) {
        (ServiceUpdate::ByUuid, (2, 53))
    } else if max >= (2, 11) {
        (ServiceUpdate::ByHost, (2, 11))
    } else {
        (ServiceUpdate::Legacy, (2, 1))
    }
}

/// The lock body form: with a reason from 2.73.
pub fn lock_with_reason(max: Version) -> bool {
    max >= (2, 73)
}

/// The evacuate body forms, by the microversion that introduced each. 2.95 is not used:
/// from it Nova leaves every evacuated server SHUTOFF at the destination, and a host
/// recovery must bring running servers back running (as Masakari's flow does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvacuateForm {
    /// 2.68: no `force`.
    V268,
    /// 2.29: optional `force`.
    V229,
    /// 2.14: `onSharedStorage` removed.
    V214,
    /// 2.1: `onSharedStorage` required.
    V21,
}

pub fn evacuate_form(max: Version) -> (EvacuateForm, Version) {
    if max >= (2, 68) {
        (EvacuateForm::V268, (2, 68))
    } else if max >= (2, 29) {
        (EvacuateForm::V229, (2, 29))
    } else if max >= (2, 14) {
        (EvacuateForm::V214, (2, 14))
    } else {
        (EvacuateForm::V21, (2, 1))
    }
}

/// Whether Cinder has the attachments API (3.27), and the version to read volumes with.
pub fn attachments_api(max: Version) -> bool {
    max >= (3, 27)
}

pub fn volume_read(max: Version) -> Version {
    max.min((3, 70))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_numerically() {
        assert!(parse("2.9").unwrap() < parse("2.53").unwrap());
        assert_eq!(parse("2.x"), None);
        assert_eq!(show((3, 27)), "3.27");
    }

    #[test]
    fn each_call_takes_the_highest_form_the_cloud_has() {
        assert_eq!(evacuate_form((2, 96)), (EvacuateForm::V268, (2, 68)));
        assert_eq!(evacuate_form((2, 94)), (EvacuateForm::V268, (2, 68)));
        assert_eq!(evacuate_form((2, 67)), (EvacuateForm::V229, (2, 29)));
        assert_eq!(evacuate_form((2, 28)), (EvacuateForm::V214, (2, 14)));
        assert_eq!(evacuate_form((2, 13)), (EvacuateForm::V21, (2, 1)));
        assert_eq!(service_update((2, 53)).0, ServiceUpdate::ByUuid);
        assert_eq!(service_update((2, 52)), (ServiceUpdate::ByHost, (2, 11)));
        assert_eq!(service_update((2, 10)).0, ServiceUpdate::Legacy);
        assert!(lock_with_reason((2, 73)) && !lock_with_reason((2, 72)));
        assert_eq!(compute_read((2, 95)), (2, 73));
        assert_eq!(compute_read((2, 60)), (2, 60));
        assert!(attachments_api((3, 27)) && !attachments_api((3, 26)));
    }
}
