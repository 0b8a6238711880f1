"""Class 4, kubernetes half, without the monitor's log: an openstack-helm support bundle of
the control-plane nodes (the masakari-host-monitor DaemonSet runs on the computes, whose pod
logs were not collected), the chart's masakarimonitors.conf as `kubectl get secret
masakari-etc` decodes it (`[host] monitoring_driver = kubernetes`: masakarimonitors/conf/
host.py, the `kubernetes` entry point of setup.cfg's `hostmonitor.driver`, 20.0.0 and
later; `[kubernetes] monitoring_node_labels`, masakarimonitors/conf/kubernetes.py), and
`openstack notification show` of the ignored notification (its payload, which neither
masakari-api nor the engine logs). The engine's texts are those of k8s.py (masakari/engine/
manager.py: `Processing notification %(notification_uuid)s of type: %(type)s`,
`Notification '%(uuid)s' ignored as host_status is not provided.`, `Notification
%(notification_uuid)s exits with status: %(status)s.`). The look-alike: the same layout on
2026.1 (masakari-monitors 21.0.0 sends host_status NORMAL), the recovery of
2025-kolla-healthy-recovery moved in time as k8s.py's look-alike does.
"""
import os
import re
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

# As k8s.py (importing it would rewrite its samples).
ENG_POD = "openstack_masakari-engine-7d4b9c6f8-w5m2q_8e2a4c6d-1f3b-4d5e-9a7c-2b6d8f0e1c34"
USER = "5f2a9c7e1b3d4e6f8a0c2e4b6d8f1a3c"
PROJECT = "9b1d3f5a7c2e4a6c8e0b2d4f6a8c1e3b"
HOST_UUID = "a4c2e8f6-3b1d-4f9e-8c7a-5d2b1e0f9c38"


def ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)


def cri(t, line):
    c = t + timedelta(microseconds=317)
    return c.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d" % c.microsecond + "451Z stdout F " + line

CONF = "cluster/openstack/secret-masakari-etc/masakarimonitors.conf"


def monitors_conf():
    # helm-toolkit's to_oslo_conf of the chart's conf.masakarimonitors with the operator's
    # host and kubernetes overrides (sections and keys in map order).
    return "\n".join([
        "[DEFAULT]", "debug = False", "",
        "[api]", "api_interface = internal", "api_version = v1",
        "auth_url = http://keystone-api.openstack.svc.cluster.local:5000/v3",
        "password = Zr7qW2pLx9cV4nTb", "project_domain_name = service", "project_name = service",
        "region = RegionOne", "user_domain_name = service", "username = masakari", "",
        "[callback]", "retry_interval = 10", "retry_max = 10", "",
        "[host]", "corosync_multicast_ports = 5405", "disable_ipmi_checks = true",
        "monitoring_driver = kubernetes", "monitoring_interval = 60", "monitoring_samples = 3",
        "pacemaker_node_type = remote", "",
        "[introspectiveinstancemonitor]", "guest_monitor_interval = 10", "guest_monitor_timeout = 5", "",
        "[kubernetes]", "monitoring_node_labels = openstack-compute-node=enabled",
    ])


def show(uuid, status, created, payload):
    rows = [("created_at", created), ("updated_at", created), ("notification_uuid", uuid),
            ("type", "COMPUTE_HOST"), ("status", status), ("source_host_uuid", HOST_UUID),
            ("generated_time", created), ("payload", payload)]
    w = max(len(v) for _, v in rows)
    line = "+" + "-" * 24 + "+" + "-" * (w + 2) + "+"
    out = [f"$ openstack notification show {uuid}", line, f"| {'Field':<22} | {'Value':<{w}} |", line]
    out += [f"| {k:<22} | {v:<{w}} |" for k, v in rows]
    return "\n".join(out + [line])


def failure(name):
    d = fresh(name)
    uuid = "5a1d7e3c-9b4f-4c2a-8e6d-1f0b3a9c7e52"
    t = datetime(2025, 12, 9, 14, 27, 51, 609220)
    ctx = f"[None req-8c2e5a1f-3d7b-4f9e-a6c0-2b4d6f8e1a37 {USER} {PROJECT} - - default default]"
    eng = [cri(t - timedelta(hours=5), f"{ts(t - timedelta(hours=5))} 1 INFO masakari.service [-] Starting engine (version 20.0.0)")]
    for dt, level, msg in [
        (0, "INFO", f"Processing notification {uuid} of type: COMPUTE_HOST"),
        (31, "WARNING", f"Notification '{uuid}' ignored as host_status is not provided."),
        (35, "INFO", f"Notification {uuid} exits with status: ignored."),
    ]:
        u = t + timedelta(milliseconds=dt)
        eng.append(cri(u, f"{ts(u)} 1 {level} masakari.engine.manager {ctx} {msg}"))
    write(d, f"ctl-1/var/log/pods/{ENG_POD}/masakari-engine/0.log", "\n".join(eng))
    write(d, CONF, monitors_conf())
    created = (t - timedelta(milliseconds=187)).strftime("%Y-%m-%dT%H:%M:%S.000000")
    write(d, f"cluster/openstack/notification-show-{uuid}.txt", show(uuid, "ignored", created, "{'event': 'STOPPED'}"))


def lookalike(name):
    d = fresh(name)
    src = os.path.join(SCENARIOS, "2025-kolla-healthy-recovery/ctl01/var/log/kolla/masakari/masakari-engine.log")
    old = [l for l in open(src).read().splitlines() if "req-3ceb3ffd" in l]
    uuid = re.search(r"Processing notification (\S+)", old[0]).group(1)
    first = datetime.strptime(old[0][:23], "%Y-%m-%d %H:%M:%S.%f")
    start = datetime(2026, 4, 21, 8, 3, 12, 418337)
    shift = start - first
    eng = [cri(start - timedelta(hours=3), f"{ts(start - timedelta(hours=3))} 1 INFO masakari.service [-] Starting engine (version 21.0.0)")]
    for l in old:
        when = datetime.strptime(l[:23], "%Y-%m-%d %H:%M:%S.%f") + shift
        rest = l[23:].replace(" 31 ", " 1 ", 1).replace("cmp02", "compute-2")
        eng.append(cri(when, ts(when) + rest))
    write(d, f"ctl-1/var/log/pods/{ENG_POD}/masakari-engine/0.log", "\n".join(eng))
    write(d, CONF, monitors_conf())
    created = (start - timedelta(milliseconds=187)).strftime("%Y-%m-%dT%H:%M:%S.000000")
    write(d, f"cluster/openstack/notification-show-{uuid}.txt",
          show(uuid, "finished", created, "{'event': 'STOPPED', 'host_status': 'NORMAL'}"))


failure("2025-helm-k8s-config-no-monitor-log")
lookalike("2026-helm-k8s-config-host-status")
