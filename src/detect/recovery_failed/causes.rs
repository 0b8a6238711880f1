//! The failures Masakari's lines name often enough to be told by their words.

/// Known causes: (text in the failure lines, reason, what to do).
pub(super) const CAUSES: [(&str, &str, &str); 9] = [
    (
        "Unauthorized",
        "Keystone rejected Masakari's service credentials (HTTP 401)",
        "Check os_privileged_user_name/password in masakari.conf against Keystone (a rotated password is the usual cause), restart masakari-engine, then re-run the recovery.",
    ),
    (
        "No reserved_hosts available",
        "no reserved host was available for the segment's reserved_host recovery",
        "Add reserved hosts to the failover segment (or switch it to auto / auto_priority), then evacuate the instances left on the failed host.",
    ),
    (
        "ignored as host_status is not provided",
        "the notification was ignored: its payload had no host_status",
        "Make the monitor that sent it include host_status (NORMAL) in the payload; evacuate the failed host's instances by hand meanwhile.",
    ),
    (
        "ignored as host_status",
        "the notification was ignored: its host_status was not NORMAL",
        "Masakari recovers only notifications with host_status NORMAL; check the host monitor's view of the host, and evacuate by hand if the host is really down.",
    ),
    (
        "An unknown exception occurred",
        "Nova or Keystone could not be reached (connection error or timeout)",
        "Check Masakari's connectivity to the Nova and Keystone endpoints, then re-run the recovery.",
    ),
    (
        "Timeout for instance",
        "an evacuation did not complete within wait_period_after_evacuation",
        "Check the destination host's nova-compute for the rebuild, and raise wait_period_after_evacuation if rebuilds are slow.",
    ),
    (
        "No valid host was found",
        "Nova's scheduler found no destination host (NoValidHost)",
        "Free capacity or relax scheduling constraints for the HA instances, then evacuate them.",
    ),
    (
        "is already under maintenance",
        "the host was already under maintenance",
        "Take the host out of maintenance in Masakari once it is recovered.",
    ),
    (
        "Failover segment is disabled",
        "the failover segment is disabled",
        "Enable the segment if recovery is wanted.",
    ),
];
