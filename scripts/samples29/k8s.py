"""Class 4, kubernetes half: the k8s host monitor's notification has no host_status and the
engine ignores it (and the look-alike where the fixed monitor's notification is recovered).

Formats: masakari-monitors 20.0.0 kubernetes driver (masakarimonitors/hostmonitor/
kubernetes_check/manager.py at 20.0.0: `Monitoring data: %s` every loop, `Host %s needs
recovery, health status: %s.` from `_event`, whose payload is `{'event': 'STOPPED'}` alone;
21.0.0, commit 99b6ad8, adds `'host_status': 'NORMAL'`); the notifier's `Send a
notification. %s` and `Response: %s` (masakarimonitors/ha/masakari.py); masakari engine
`Notification '%(uuid)s' ignored as host_status is not provided.` (masakari/engine/
manager.py:181, 15.0.0 and later). openstack-helm layout: Deployment masakari-host-monitor
(container masakari-host-monitor, kubelet CRI logs under var/log/pods), the engine likewise.
The look-alike's recovery is the engine's recovery of 2025-kolla-healthy-recovery, moved in
time and to compute-2.
"""
import os
import re
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

MON = "masakarimonitors.hostmonitor.kubernetes_check.manager"
HA = "masakarimonitors.ha.masakari"
NODES = ["compute-1", "compute-2", "compute-3"]
SAMPLES = 3
MON_POD = "openstack_masakari-host-monitor-6f9c8d7b5-k2x8p_3b1e7c9a-5d2f-4e8b-a6c0-9f1d2e3b4a57"
ENG_POD = "openstack_masakari-engine-7d4b9c6f8-w5m2q_8e2a4c6d-1f3b-4d5e-9a7c-2b6d8f0e1c34"
USER = "5f2a9c7e1b3d4e6f8a0c2e4b6d8f1a3c"
PROJECT = "9b1d3f5a7c2e4a6c8e0b2d4f6a8c1e3b"
HOST_UUID = "a4c2e8f6-3b1d-4f9e-8c7a-5d2b1e0f9c38"


def ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)


def cri(t, line):
    # the kubelet stamps the line a few hundred microseconds after the process wrote it
    c = t + timedelta(microseconds=317)
    return c.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d" % c.microsecond + "451Z stdout F " + line


def data(history):
    return "{" + ", ".join(
        f"'{n}': deque([{', '.join(repr(s) for s in history[n])}], maxlen={SAMPLES})" for n in NODES
    ) + "}"


def monitor(t0, fail_at, loops, uuid, payload):
    """The host monitor's loop every 60 s; compute-2's Ready condition goes Unknown at
    loop `fail_at` (the node controller's verdict on a node whose kubelet stopped posting)."""
    out = []
    history = {n: [] for n in NODES}
    alive = {n: True for n in NODES}
    for k in range(loops):
        t = t0 + timedelta(seconds=60 * k, microseconds=(k * 7919) % 900000)
        for n in NODES:
            s = "Unknown" if n == "compute-2" and k >= fail_at else "True"
            history[n] = ([s] + history[n])[:SAMPLES]
        out.append(cri(t, f"{ts(t)} 1 INFO {MON} [-] Monitoring data: {data(history)}"))
        for n in NODES:
            if len(history[n]) < SAMPLES:
                continue
            now = "True" in history[n]
            if not now and alive[n]:
                t1 = t + timedelta(milliseconds=2)
                gen = t1 + timedelta(microseconds=411)
                g = f"datetime.datetime({gen.year}, {gen.month}, {gen.day}, {gen.hour}, {gen.minute}, {gen.second}, {gen.microsecond})"
                out.append(cri(t1, f"{ts(t1)} 1 INFO {MON} [-] Host {n} needs recovery, health status: False."))
                t2 = t1 + timedelta(milliseconds=1)
                out.append(cri(t2, f"{ts(t2)} 1 INFO {HA} [-] Send a notification. {{'notification': {{'type': 'COMPUTE_HOST', 'hostname': '{n}', 'generated_time': {g}, 'payload': {payload}}}}}"))
                t3 = t2 + timedelta(milliseconds=386)
                created = t3.strftime("%Y-%m-%dT%H:%M:%S.000000")
                out.append(cri(t3, f"{ts(t3)} 1 INFO {HA} [-] Response: openstack.instance_ha.v1.notification.Notification("
                               f"type=COMPUTE_HOST, hostname={n}, generated_time={gen.strftime('%Y-%m-%dT%H:%M:%S.%f')}, payload={payload}, "
                               f"id=143, notification_uuid={uuid}, source_host_uuid={HOST_UUID}, status=new, created_at={created}, "
                               "updated_at=None, location=Munch({'cloud': 'envvars', 'region_name': 'RegionOne', 'zone': None, "
                               f"'project': Munch({{'id': '{PROJECT}', 'name': 'service', 'domain_id': None, 'domain_name': 'service'}})}}))"))
            alive[n] = now
    return out, t0 + timedelta(seconds=60 * fail_at + 60 * (SAMPLES - 1))



def failure(name):
    d = fresh(name)
    uuid = "e7c3a91f-4d2b-4f8e-b6a5-0c9d1e2f3a84"
    t0 = datetime(2025, 11, 4, 3, 1, 17, 204118)
    mon, sent = monitor(t0, 13, 41, uuid, "{'event': 'STOPPED'}")
    write(d, f"ctl-2/var/log/pods/{MON_POD}/masakari-host-monitor/0.log", "\n".join(mon))
    ctx = f"[None req-1d7f3b9e-6a2c-4e8d-b5f1-3c9a7e2d4b60 {USER} {PROJECT} - - default default]"
    t = sent + timedelta(milliseconds=271)
    eng = []
    for dt, level, msg in [
        (0, "INFO", f"Processing notification {uuid} of type: COMPUTE_HOST"),
        (29, "WARNING", f"Notification '{uuid}' ignored as host_status is not provided."),
        (33, "INFO", f"Notification {uuid} exits with status: ignored."),
    ]:
        u = t + timedelta(milliseconds=dt)
        eng.append(cri(u, f"{ts(u)} 1 {level} masakari.engine.manager {ctx} {msg}"))
    write(d, f"ctl-1/var/log/pods/{ENG_POD}/masakari-engine/0.log", "\n".join(eng))


def lookalike(name):
    d = fresh(name)
    t0 = datetime(2026, 3, 17, 9, 12, 41, 530912)
    src = os.path.join(SCENARIOS, "2025-kolla-healthy-recovery/ctl01/var/log/kolla/masakari/masakari-engine.log")
    old = [l for l in open(src).read().splitlines() if "req-3ceb3ffd" in l]
    uuid = re.search(r"Processing notification (\S+)", old[0]).group(1)
    mon, sent = monitor(t0, 9, 30, uuid, "{'event': 'STOPPED', 'host_status': 'NORMAL'}")
    write(d, f"ctl-2/var/log/pods/{MON_POD}/masakari-host-monitor/0.log", "\n".join(mon))
    first = datetime.strptime(old[0][:23], "%Y-%m-%d %H:%M:%S.%f")
    shift = sent + timedelta(milliseconds=271) - first
    eng = []
    for l in old:
        when = datetime.strptime(l[:23], "%Y-%m-%d %H:%M:%S.%f") + shift
        rest = l[23:].replace(" 31 ", " 1 ", 1).replace("cmp02", "compute-2")
        eng.append(cri(when, ts(when) + rest))
    write(d, f"ctl-1/var/log/pods/{ENG_POD}/masakari-engine/0.log", "\n".join(eng))


failure("2025-helm-k8s-monitor-no-host-status")
lookalike("2026-helm-k8s-monitor-host-status")
