//! Cinder calls: a volume with its attachments, and clearing one attachment with the
//! attachments API (3.27) or, on older clouds, `os-force_detach`.

use openstack_sdk::api::block_storage::v3::{attachment, volume};
use serde_json::Value;

use super::call::{Call, Service, send, version_headers};
use super::session::Api;
use super::versions::{self, Version};
use crate::openstack::cloud::{CloudError, Volume, VolumeAttachment};

/// A volume from its JSON view.
pub fn parse_volume(call: &Call, value: &Value) -> Result<Volume, CloudError> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let id = text(value, "id").ok_or_else(|| call.unexpected("a volume without an id"))?;
    let attachments = value
        .get("attachments")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|a| {
                    Some(VolumeAttachment {
                        // Cinder's `id` in this list is the volume's; `attachment_id` is
                        // the attachment's.
                        attachment_id: text(a, "attachment_id")?,
                        server_id: text(a, "server_id").unwrap_or_default(),
                        host: text(a, "host_name").filter(|h| !h.is_empty()),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Volume {
        id,
        status: text(value, "status").unwrap_or_default(),
        multiattach: value
            .get("multiattach")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        attachments,
    })
}

/// `GET /volumes/{id}`.
pub async fn get_volume(session: &Api, max: Version, id: &str) -> Result<Volume, CloudError> {
    let call = Call::new("GET", format!("/volumes/{id}"));
    let request = call.built(
        volume::get::Request::builder()
            .id(id)
            .headers(version_headers(Service::Volume, versions::volume_read(max)).into_iter())
            .build(),
    )?;
    let body = send(session, &call, request).await?;
    let value = body
        .get("volume")
        .ok_or_else(|| call.unexpected("no volume in the answer"))?;
    parse_volume(&call, value)
}

/// `DELETE /attachments/{id}` (3.27+), else `os-force_detach` with the attachment id.
/// Clouds with the bug #2004555 guard (Cinder 2023.2, backported to yoga) refuse the
/// delete of an attachment whose server still exists with 409 "Detach volume from
/// instance … using the Compute API" unless Nova sends it; the admin `os-force_detach`
/// is not guarded, so that answer is followed by it.
pub async fn clear_attachment(
    session: &Api,
    max: Version,
    target: &Volume,
    attachment: &VolumeAttachment,
) -> Result<(), CloudError> {
    if versions::attachments_api(max) {
        match delete_attachment(session, attachment).await {
            Err(error) if is_nova_guard(&error) => {}
            other => return other,
        }
    }
    force_detach(session, target, attachment).await
}

/// Whether an error is the bug #2004555 guard's 409.
fn is_nova_guard(error: &CloudError) -> bool {
    matches!(error, CloudError::Status { status: 409, message, .. } if message.contains("using the Compute API"))
}

async fn delete_attachment(session: &Api, attachment: &VolumeAttachment) -> Result<(), CloudError> {
    let call = Call::new(
        "DELETE",
        format!("/attachments/{}", attachment.attachment_id),
    );
    let request = call.built(
        attachment::delete_327::Request::builder()
            .id(attachment.attachment_id.as_str())
            .headers(version_headers(Service::Volume, (3, 27)).into_iter())
            .build(),
    )?;
    send(session, &call, request).await?;
    Ok(())
}

async fn force_detach(
    session: &Api,
    target: &Volume,
    attachment: &VolumeAttachment,
) -> Result<(), CloudError> {
    let call = Call::new(
        "POST",
        format!("/volumes/{}/action os-force_detach", target.id),
    );
    let body = call.built(
        volume::os_force_detach::OsForceDetachBuilder::default()
            .attachment_id(Some(attachment.attachment_id.clone().into()))
            .build(),
    )?;
    let request = call.built(
        volume::os_force_detach::Request::builder()
            .id(target.id.as_str())
            .os_force_detach(body)
            .headers(version_headers(Service::Volume, (3, 0)).into_iter())
            .build(),
    )?;
    send(session, &call, request).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn attachments_keep_their_own_id_and_host() {
        let call = Call::new("GET", "/volumes/v");
        let volume = parse_volume(
            &call,
            &json!({"id": "v1", "status": "in-use", "multiattach": false, "attachments": [
                {"id": "v1", "attachment_id": "a1", "volume_id": "v1", "server_id": "s1",
                 "host_name": "compute-1", "device": "/dev/vda"}]}),
        )
        .unwrap();
        assert_eq!(volume.attachments.len(), 1);
        assert_eq!(volume.attachments[0].attachment_id, "a1");
        assert_eq!(volume.attachments[0].host.as_deref(), Some("compute-1"));
        assert!(!volume.multiattach);
    }
}
