#!/usr/bin/env python3
"""Unseen bundles for issue 29: for each of the 14 failure classes a failing bundle and a
healthy look-alike (same deployment, the mechanism absent), with a ground truth.

    python3 scripts/unseen29/gen.py OUTDIR

writes OUTDIR/<bundle>/... and OUTDIR/truth.json. Stdlib only, deterministic.

Built from the upstream sources (masakari, masakari-monitors, nova, pacemaker, openstacksdk
at the releases each class needs) and /work/shared/reference, independently of
scripts/samples29 and samples/scenarios.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lib import (NOCTX, Bundle, Host, Log, Rng, apache_combined, apache_kolla, cri, ctx_pre,  # noqa: E402
                 ctx_zed, ctx_zed_admin, dump_truth, journal_prefix, nc_frames, oslo_ts, pebble, sec,
                 sos_base, sos_root, syslog_prefix, t, truth)
from flows import (SITE, Era, api_accept, compute_noise, host_recovery, noise_debug,  # noqa: E402
                   notification_response, nova_call, scheduler_down_lines, send_notification_lines, spawned)

USER = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
PROJ = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
HM = "masakarimonitors.hostmonitor.host_handler.handle_host"

TRUTH = []


# ------------------------------------------------------------------------------------------
# Class 1: hostmonitor on Pacemaker >= 2.1.7 (crmd holds a join time) never notifies
# ------------------------------------------------------------------------------------------
def hostmonitor_cycle(mon, utc, peers, me, changed=()):
    """One monitoring cycle of a pacemaker-remote hostmonitor before 21.0.0: a status line per
    peer; a peer whose stabilised status changed to a value other than online/offline gets
    the 'doesn't send' line right after its own status line."""
    mon.add(utc, "INFO", HM, NOCTX, "Works on pacemaker-remote.")
    for i, (name, status) in enumerate(peers):
        if name == me:
            continue
        mon.add(utc + sec(0.2 + 0.01 * i), "INFO", HM, NOCTX, "'%s' is '%s' (current: '%s')." % (name, status, status))
        if name in changed:
            mon.add(utc + sec(0.2 + 0.01 * i + 0.001), "INFO", HM, NOCTX,
                    "Since host status is '%s', hostmonitor doesn't send a notification." % status)


def kolla_cloud(rng, skew3=35.0, tz="UTC"):
    hosts = {n: Host(n, tz, 0.0) for n in ["controller-1", "controller-2", "compute-1", "compute-2"]}
    hosts["compute-3"] = Host("compute-3", tz, skew3)
    return hosts


def c1_fail(out):
    name = "u01-kolla-joinepoch-2025"
    b = Bundle(out, name)
    rng = Rng(name)
    H = kolla_cloud(rng)
    era = Era(20)
    t0 = t("2025-03-11 02:10:00.120")
    death = t("2025-03-11 02:41:07.000")
    joined = {"compute-1": "1741651201", "compute-2": "1741651198", "compute-3": "1741651204"}
    for me in ["compute-1", "compute-3"]:
        mon = Log(H[me], rng.pid())
        mon.add(t0 - sec(30), "INFO", "masakarimonitors.hostmonitor.host", NOCTX, "Starting masakari-hostmonitor")
        for peer, v in joined.items():
            if peer != me:
                mon.add(t0 - sec(29), "INFO", HM, NOCTX,
                        "Recognized '%s' as a new member of cluster. Host status is '%s'." % (peer, v))
        k = 0
        tt = t0
        while tt < death + sec(3600):
            peers = [(n, ("0" if (n == "compute-2" and tt > death + sec(20)) else v)) for n, v in joined.items()]
            # the 'Since ...' line follows its host's status line in the same loop iteration
            changed = {"compute-2"} if death + sec(20) < tt < death + sec(81) else set()
            hostmonitor_cycle(mon, tt, peers, me, changed)
            tt += sec(60)
            k += 1
        b.log("%s/var/log/kolla/masakari/masakari-hostmonitor.log" % me, mon,
              rotate_at=death - sec(600) if me == "compute-1" else None)
    # nova-compute on the dead host stops; the others keep DEBUG chatter
    for n in ["compute-1", "compute-2", "compute-3"]:
        nc = Log(H[n], rng.pid(), level_debug=True)
        compute_noise(nc, t0, 120 if n != "compute-2" else 55, rng, n)
        nc.lines = [x for x in nc.lines if n != "compute-2" or x[0] < death]
        b.log("%s/var/log/kolla/nova/nova-compute.log" % n, nc)
    # controllers: engine idle, scheduler sees compute-2 down
    eng = Log(H["controller-1"], rng.pid())
    eng.add(t0 - sec(3000), "INFO", "masakari.engine.manager", NOCTX, "Starting masakari-engine (version 19.0.1)")
    b.log("controller-1/var/log/kolla/masakari/masakari-engine.log", eng)
    sch = Log(H["controller-1"], rng.pid(), level_debug=True)
    scheduler_down_lines(sch, death + sec(70), 40, rng, "nova-compute", "compute-2", death)
    b.log("controller-1/var/log/kolla/nova/nova-scheduler.log", sch)
    TRUTH.append(truth(name, 1, "fail", [{"detector": "hostmonitor-join-epoch", "host": "compute-2"}],
                       note="monitors 20.0.0 on pacemaker 2.1.7: crmd join times, compute-2 goes to '0', no notification"))


def c1_healthy(out):
    name = "u01-kolla-joinepoch-fixed-healthy"
    b = Bundle(out, name)
    rng = Rng(name)
    H = kolla_cloud(rng)
    era = Era(19)
    t0 = t("2025-03-11 02:10:00.120")
    death = t("2025-03-11 02:41:07.000")
    insts = [rng.uuid(), rng.uuid()]
    api = Log(H["controller-1"], rng.pid())
    eng = Log(H["controller-2"], rng.pid())
    napi = Log(H["controller-1"], rng.pid())
    dests = [Log(H["compute-1"], rng.pid()), Log(H["compute-3"], rng.pid())]
    for me in ["compute-1", "compute-3"]:
        mon = Log(H[me], rng.pid())
        for n in ["compute-1", "compute-2", "compute-3"]:
            if n != me:
                mon.add(t0 - sec(29), "INFO", HM, NOCTX, "Recognized '%s' as a new member of cluster. Host status is 'online'." % n)
        tt = t0
        sent = False
        while tt < death + sec(1800):
            down = tt > death + sec(20)
            peers = [(n, "offline" if (n == "compute-2" and down) else "online") for n in ["compute-1", "compute-2", "compute-3"]]
            mon.add(tt, "INFO", HM, NOCTX, "Works on pacemaker-remote.")
            for n, s in peers:
                if n == me:
                    continue
                st = s
                if n == "compute-2" and down and not sent and me == "compute-3" and tt < death + sec(81):
                    st = "_uncertain"
                mon.add(tt + sec(0.2), "INFO", HM, NOCTX, "'%s' is '%s' (current: '%s')." % (n, st, s))
                if st == "_uncertain":
                    mon.add(tt + sec(0.3), "INFO", HM, NOCTX,
                            "Since host status is '_uncertain', hostmonitor doesn't send a notification.")
                elif n == "compute-2" and down and not sent:
                    sent = True
                    gen = tt + sec(0.3)
                    payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                    send_notification_lines(mon, gen, "compute-2", payload, gen)
                    if me == "compute-1":
                        nid = rng.uuid()
                        req = rng.req()
                        api_accept(api, gen + sec(0.4), era, req, USER, PROJ, "192.168.20.11")
                        notification_response(mon, gen + sec(0.6), rng, nid, "compute-2", payload, gen)
                        host_recovery(eng, napi, [(d, None) for d in dests], rng, era, gen + sec(0.7), nid, req,
                                      "compute-2", insts, USER, PROJ)
                    else:
                        api_accept(api, gen + sec(0.5), era, rng.req(), USER, PROJ, "192.168.20.13", status=409,
                                   explanation="Notification received from host compute-2 of type COMPUTE_HOST is duplicate.")
                        mon.add(gen + sec(0.6), "INFO", "masakarimonitors.ha.masakari", NOCTX,
                                "ConflictException: 409: Client Error for url: http://192.168.20.250:15868/v1/notifications, "
                                "Notification received from host compute-2 of type COMPUTE_HOST is duplicate.")
            tt += sec(60)
        b.log("%s/var/log/kolla/masakari/masakari-hostmonitor.log" % me, mon)
    b.log("controller-1/var/log/kolla/masakari/masakari-api.log", api)
    b.log("controller-2/var/log/kolla/masakari/masakari-engine.log", eng)
    b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
    b.log("compute-1/var/log/kolla/nova/nova-compute.log", dests[0])
    b.log("compute-3/var/log/kolla/nova/nova-compute.log", dests[1])
    TRUTH.append(truth(name, 1, "healthy", [], note="monitors 21.0.0 normalise crmd; one '_uncertain' cycle, then notified and recovered"))


# ------------------------------------------------------------------------------------------
# Class 2: the monitor stands down exactly when a host dies
# ------------------------------------------------------------------------------------------
def juju_status(b, root, units):
    y = ["model:", "  name: openstack", "  type: iaas", "machines:"]
    for m, host in units["machines"]:
        y += ['  "%s":' % m, "    juju-status:", "      current: started", "    hostname: %s" % host]
    y.append("applications:")
    for app, lst in units["apps"].items():
        y += ["  %s:" % app, "    units:"]
        for u, m in lst:
            y += ["      %s:" % u, "        machine: \"%s\"" % m, "        workload-status:", "          current: active"]
    b.write(root + "/juju_status.yaml", "\n".join(y) + "\n")


def c2(out, healthy):
    name = "u02-juju-monitor-standsdown" + ("-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    root = "juju-crashdump-%s" % rng.uuid()
    H = {"compute-1": Host("node-01.maas", "UTC", 0), "compute-2": Host("node-02.maas", "UTC", 0),
         "compute-3": Host("node-03.maas", "UTC", -22), "ctl": Host("juju-7c1a2e-1-lxd-3", "UTC", 0)}
    dirs = {"compute-1": "1/baremetal", "compute-2": "2/baremetal", "compute-3": "3/baremetal", "ctl": "1/lxd/3"}
    juju_status(b, root, {"machines": [("1", "node-01"), ("2", "node-02"), ("3", "node-03"), ("1/lxd/3", "juju-7c1a2e-1-lxd-3")],
                          "apps": {"nova-compute": [("nova-compute/0", "1"), ("nova-compute/1", "2"), ("nova-compute/2", "3")],
                                   "masakari": [("masakari/0", "1/lxd/3")]}})
    era = Era(13, zed=False)
    t0 = t("2024-02-20 08:00:00.210")
    death = t("2024-02-20 08:17:42.000")
    calm = t("2024-02-20 08:05:00.000")
    insts = [rng.uuid() for _ in range(3)]
    eng = Log(H["ctl"], rng.pid())
    api = Log(H["ctl"], rng.pid())
    napi = Log(H["ctl"], rng.pid())
    for me in ["compute-1", "compute-3"]:
        mon = Log(H[me], rng.pid())
        tt = t0
        sent = False
        while tt < t0 + sec(3600):
            quorum_lost = (not healthy and tt > death - sec(8)) or (healthy and calm <= tt < calm + sec(60))
            if quorum_lost:
                if me == "compute-1":
                    mon.add(tt, "WARNING", HM, NOCTX, "Pacemaker cluster doesn't have quorum.")
                else:
                    mon.add(tt, "WARNING", HM, NOCTX, "Exception caught: crmadmin command output unexpected host status.")
                    mon.add(tt, "WARNING", HM, NOCTX, "'%s' is unstable state on cluster." % H[me].name)
                mon.add(tt + sec(0.01), "WARNING", HM, NOCTX, "hostmonitor skips monitoring hosts.")
            else:
                down = tt > death + sec(15)
                for n in ["compute-1", "compute-2", "compute-3"]:
                    if n == me:
                        continue
                    s = "offline" if (n == "compute-2" and down) else "online"
                    mon.add(tt + sec(0.4), "INFO", HM, NOCTX, "'%s' is '%s' (current: '%s')." % (H[n].name, s, s))
                    if n == "compute-2" and down and not sent:
                        sent = True
                        if me == "compute-1":
                            payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                            gen = tt + sec(0.5)
                            send_notification_lines(mon, gen, H[n].name, payload, gen)
                            nid, req = rng.uuid(), rng.req()
                            api_accept(api, gen + sec(0.3), era, req, USER, PROJ, "10.5.0.41")
                            notification_response(mon, gen + sec(0.5), rng, nid, H[n].name, payload, gen)
                            host_recovery(eng, napi, None, rng, era, gen + sec(0.6), nid, req, H[n].name, insts, USER, PROJ)
            tt += sec(60)
        b.log("%s/%s/var/log/masakarimonitors/masakari-hostmonitor.log" % (root, dirs[me]), mon)
    nc = Log(H["compute-2"], rng.pid(), level_debug=True)
    compute_noise(nc, t0, 40, rng, H["compute-2"].name)
    nc.lines = [x for x in nc.lines if x[0] < death]
    b.log("%s/%s/var/log/nova/nova-compute.log" % (root, dirs["compute-2"]), nc)
    sch = Log(H["ctl"], rng.pid(), level_debug=True)
    scheduler_down_lines(sch, death + sec(66), 20, rng, "nova-compute", H["compute-2"].name, death)
    b.log("%s/%s/var/log/nova/nova-scheduler.log" % (root, dirs["ctl"]), sch)
    sysl = []
    ts = death + sec(2)
    for d in ["compute-1", "compute-3"]:
        h = H[d]
        sysl.append((ts, syslog_prefix(h, ts, "corosync", 2211) + "[TOTEM ] A processor failed, forming new configuration: token timed out (3000ms), waiting 3600ms for consensus."))
    b.lines("%s/%s/var/log/syslog" % (root, dirs["compute-1"]), sysl[:1])
    b.log("%s/%s/var/log/masakari/masakari-engine.log" % (root, dirs["ctl"]), eng)
    b.log("%s/%s/var/log/masakari/masakari-api.log" % (root, dirs["ctl"]), api)
    b.log("%s/%s/var/log/nova/nova-api-wsgi.log" % (root, dirs["ctl"]), napi)
    if healthy:
        TRUTH.append(truth(name, 2, "healthy", [], note="one quorum blip while all hosts up; compute-2 later notified and recovered"))
    else:
        TRUTH.append(truth(name, 2, "fail", [{"detector": "hostmonitor-stood-down", "host": "node-02.maas"}],
                           note="both monitors stand down (no quorum / unstable) from 8 s before node-02 dies"))


# ------------------------------------------------------------------------------------------
# Class 3: notification rejected (400 host not found FQDN vs short; 409 on maintenance)
# ------------------------------------------------------------------------------------------
def c3(out, variant):
    name = {"fqdn": "u03-kolla-rejected-fqdn", "maint": "u03-sos-rejected-maintenance",
            "healthy": "u03-kolla-duplicate-409-healthy"}[variant]
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    t0 = t("2024-06-03 13:20:00.500")
    if variant == "maint":
        ctl = Host("juju-b31f0a-0-lxd-5", "America/New_York", 0)
        cmp1 = Host("compute-1", "America/New_York", 12.5)
        root_c = sos_root(cmp1, "0603")
        root_a = sos_root(ctl, "0603")
        sos_base(b, root_c, cmp1, pkgs=[("masakari-monitors-common", "17.0.0-0ubuntu1~cloud0"), ("nova-compute", "3:29.0.1-0ubuntu1~cloud0")])
        sos_base(b, root_a, ctl, pkgs=[("masakari-api", "17.0.0-0ubuntu1~cloud0"), ("masakari-engine", "17.0.0-0ubuntu1~cloud0")])
        mon = Log(cmp1, rng.pid())
        api = Log(ctl, rng.pid())
        # earlier recovery (weeks ago) left compute-2 on maintenance; today compute-2 dies again
        for k in range(12):
            tt = t0 + sec(60 * k)
            s = "offline" if k >= 3 else "online"
            mon.add(tt, "INFO", HM, NOCTX, "'compute-2' is '%s' (current: '%s')." % (s, s))
            if k == 3:
                payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                send_notification_lines(mon, tt + sec(0.1), "compute-2", payload, tt + sec(0.1))
                exp = ("Notification received from host compute-2 of type 'COMPUTE_HOST' is ignored as the host "
                       "is already under maintenance.")
                api_accept(api, tt + sec(0.3), era, rng.req(), USER, PROJ, "10.5.0.61", status=409, explanation=exp)
                mon.add(tt + sec(0.5), "INFO", "masakarimonitors.ha.masakari", NOCTX,
                        "ConflictException: 409: Client Error for url: http://10.5.0.100:15868/v1/notifications, " + exp)
        b.log(root_c + "/var/log/masakarimonitors/masakari-hostmonitor.log", mon)
        b.log(root_a + "/var/log/masakari/masakari-api.log", api)
        acc = []
        tt = t0 + sec(180.3)
        acc.append((tt, apache_combined(ctl, tt, "10.5.0.61", "POST", "/v1/notifications", 409, 412, "openstacksdk/1.0.2 keystoneauth1/5.1.2 python-requests/2.31.0 CPython/3.10.12")))
        b.lines(root_a + "/var/log/apache2/masakari_access.log", acc)
        TRUTH.append(truth(name, 3, "fail", [{"detector": "notification-rejected", "host": "compute-2"}],
                           note="409 on maintenance left from an earlier recovery; monitors 17 log once and stop"))
        return
    H = kolla_cloud(rng, skew3=-41.0, tz="Asia/Tokyo")
    fq = "compute-2.cloud.example.com"
    api = Log(H["controller-1"], rng.pid())
    eng = Log(H["controller-2"], rng.pid())
    napi = Log(H["controller-1"], rng.pid())
    insts = [rng.uuid(), rng.uuid()]
    for me in ["compute-1", "compute-3"]:
        mon = Log(H[me], rng.pid())
        for k in range(15):
            tt = t0 + sec(60 * k)
            s = "offline" if k >= 4 else "online"
            n2 = fq if variant == "fqdn" else "compute-2"
            mon.add(tt, "INFO", HM, NOCTX, "'%s' is '%s' (current: '%s')." % (n2, s, s))
            if k == 4:
                payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                gen = tt + sec(0.1)
                send_notification_lines(mon, gen, n2, payload, gen)
                if variant == "fqdn":
                    exp = "Host with name %s could not be found." % fq
                    api_accept(api, gen + sec(0.2 if me == "compute-1" else 0.9), era, rng.req(), USER, PROJ,
                               "192.168.20.%d" % (11 if me == "compute-1" else 13), status=400, explanation=exp)
                    mon.add(gen + sec(0.4), "INFO", "masakarimonitors.ha.masakari", NOCTX,
                            "BadRequestException: 400: Client Error for url: http://192.168.20.250:15868/v1/notifications, " + exp)
                elif me == "compute-1":
                    nid, req = rng.uuid(), rng.req()
                    api_accept(api, gen + sec(0.2), era, req, USER, PROJ, "192.168.20.11")
                    notification_response(mon, gen + sec(0.4), rng, nid, "compute-2", payload, gen)
                    host_recovery(eng, napi, None, rng, era, gen + sec(0.5), nid, req, "compute-2", insts, USER, PROJ)
                else:
                    exp = "Notification received from host compute-2 of type COMPUTE_HOST is duplicate."
                    api_accept(api, gen + sec(0.9), era, rng.req(), USER, PROJ, "192.168.20.13", status=409, explanation=exp)
                    mon.add(gen + sec(1.0), "INFO", "masakarimonitors.ha.masakari", NOCTX,
                            "ConflictException: 409: Client Error for url: http://192.168.20.250:15868/v1/notifications, " + exp)
        b.log("%s/var/log/kolla/masakari/masakari-hostmonitor.log" % me, mon)
    b.log("controller-1/var/log/kolla/masakari/masakari-api.log", api)
    b.log("controller-2/var/log/kolla/masakari/masakari-engine.log", eng)
    b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
    if variant == "fqdn":
        TRUTH.append(truth(name, 3, "fail", [{"detector": "notification-rejected", "host": fq}],
                           note="pacemaker node names are FQDN, masakari hosts short: 400 from both monitors"))
    else:
        TRUTH.append(truth(name, 3, "healthy", [], note="second monitor's notification is a duplicate (409); the first recovered compute-2"))


# ------------------------------------------------------------------------------------------
# Class 4: k8s monitor without host_status; consul monitor failing
# ------------------------------------------------------------------------------------------
def c4_k8s(out, healthy):
    name = "u04-helm-k8s-monitor" + ("-fixed-healthy" if healthy else "-no-host-status")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(20 if not healthy else 21)
    pod = Host("masakari-hostmonitor-5d8f7c9b6-x2k9q", "UTC", 0)
    engh = Host("masakari-engine-6b7c8d9f5-q7wzt", "UTC", 0)
    apih = Host("masakari-api-7f9d6c5b8-m4n2p", "UTC", 0)
    t0 = t("2025-09-18 21:02:10.330")
    mon, eng, api, napi = Log(pod, 1), Log(engh, 1), Log(apih, 7), Log(Host("nova-api-osapi-5c6d7e8f9-abcde", "UTC", 0), 12)
    insts = [rng.uuid()]
    for k in range(10):
        tt = t0 + sec(30 * k)
        ready = "True" if k < 3 else "False"
        mon.add(tt, "INFO", "masakarimonitors.hostmonitor.kubernetes_check.manager", NOCTX,
                "Monitoring data: {'worker-a1': deque(['True'], maxlen=1), 'worker-b2': deque(['%s'], maxlen=1), "
                "'worker-c3': deque(['True'], maxlen=1)}" % ready)
        if k == 3:
            mon.add(tt + sec(0.01), "INFO", "masakarimonitors.hostmonitor.kubernetes_check.manager", NOCTX,
                    "Host worker-b2 needs recovery, health status: False.")
            payload = ("{'event': 'STOPPED', 'host_status': 'NORMAL'}" if healthy else "{'event': 'STOPPED'}")
            gen = tt + sec(0.02)
            send_notification_lines(mon, gen, "worker-b2", payload, gen)
            nid, req = rng.uuid(), rng.req()
            api_accept(api, gen + sec(0.2), era, req, USER, PROJ, "10.244.1.17")
            notification_response(mon, gen + sec(0.3), rng, nid, "worker-b2", payload, gen)
            ctx = era.api_ctx(req, USER, PROJ)
            if healthy:
                host_recovery(eng, napi, None, rng, era, gen + sec(0.5), nid, req, "worker-b2", insts, USER, PROJ)
            else:
                eng.add(gen + sec(0.5), "INFO", "masakari.engine.manager", ctx, "Processing notification %s of type: COMPUTE_HOST" % nid)
                eng.add(gen + sec(0.52), "WARNING", "masakari.engine.manager", ctx,
                        "Notification '%s' ignored as host_status is not provided." % nid)
                eng.add(gen + sec(0.55), "INFO", "masakari.engine.manager", ctx, "Notification %s exits with status: ignored." % nid)
    # kubectl logs of each pod, CRI-wrapped (containerd log files under /var/log/pods)
    for log, path in [(mon, "var/log/pods/openstack_masakari-hostmonitor-5d8f7c9b6-x2k9q_1c2d/masakari-hostmonitor/0.log"),
                      (eng, "var/log/pods/openstack_masakari-engine-6b7c8d9f5-q7wzt_3e4f/masakari-engine/0.log"),
                      (api, "var/log/pods/openstack_masakari-api-7f9d6c5b8-m4n2p_5a6b/masakari-api/0.log"),
                      (napi, "var/log/pods/openstack_nova-api-osapi-5c6d7e8f9-abcde_7c8d/nova-osapi/0.log")]:
        b.lines(path, [(u, cri(u, l, log.host, "stderr" if k % 2 else "stdout")) for k, (u, l) in enumerate(log.lines)])
    if healthy:
        TRUTH.append(truth(name, 4, "healthy", [], note="monitors 21.0.0 send host_status NORMAL; recovered"))
    else:
        TRUTH.append(truth(name, 4, "fail", [{"detector": "k8s-monitor-no-host-status", "host": "worker-b2"}],
                           note="monitors 20.0.0 k8s driver payload lacks host_status; engine ignores"))


def c4_consul(out, healthy):
    name = "u04-sunbeam-consul-monitor" + ("-blip-healthy" if healthy else "-failing")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(18)
    ctl = Host("sunbeam-ctl-1.lab.local", "UTC", 0)
    root = sos_root(ctl, "1112")
    sos_base(b, root, ctl)
    t0 = t("2024-11-12 17:30:00.901")
    death = t("2024-11-12 17:33:20.000")
    mon = Log(ctl, 14)
    eng = Log(ctl, 16)
    api = Log(ctl, 22)
    napi = Log(ctl, 31)
    insts = [rng.uuid(), rng.uuid()]
    exc = "'NoneType' object has no attribute 'get_health'"
    frames = [(SITE.replace("dist-packages", "python3.10/site-packages").replace("/usr/lib/python3/", "/usr/lib/"), 0, "", "")]
    for k in range(40):
        tt = t0 + sec(60 * k)
        if not healthy or k == 2:
            msg = exc if not healthy else ("HTTPConnectionPool(host='10.152.183.40', port=8500): Max retries exceeded with url: "
                                          "/v1/health/state/any (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object "
                                          "at 0x7f3a2c1d0e50>: Failed to establish a new connection: [Errno 111] Connection refused'))")
            cls = "AttributeError" if not healthy else "requests.exceptions.ConnectionError"
            mon.add(tt, "ERROR", "masakarimonitors.hostmonitor.consul_check.manager", NOCTX,
                    "Exception when host-monitor by consul: %s" % msg, summary="%s: %s" % (cls, msg))
            mon.tb(tt, "masakarimonitors.hostmonitor.consul_check.manager",
                   [("/usr/lib/python3/dist-packages/masakarimonitors/hostmonitor/consul_check/manager.py", 188, "monitor_hosts",
                     "self.update_monitoring_data()"),
                    ("/usr/lib/python3/dist-packages/masakarimonitors/hostmonitor/consul_check/manager.py", 106,
                     "update_monitoring_data", "cluster_health = self.consul_manager.get_health(self.sequence)"),
                    ("/usr/lib/python3/dist-packages/masakarimonitors/hostmonitor/consul_check/consul_helper.py", 75, "get_health",
                     "agent_health = consul_agent.get_health()")],
                   "%s: %s" % (cls.split(".")[-1] if not healthy else cls, msg))
        if healthy and tt > death + sec(40) and k == 5:
            mon.add(tt, "INFO", "masakarimonitors.hostmonitor.consul_check.manager", NOCTX,
                    "Host hv-02 needs recovery, health status: {'manage-interface': 'down', 'tenant-interface': 'down', 'storage-interface': 'down'}.")
            payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
            send_notification_lines(mon, tt + sec(0.01), "hv-02", payload, tt)
            nid, req = rng.uuid(), rng.req()
            api_accept(api, tt + sec(0.2), era, req, USER, PROJ, "10.1.0.77")
            notification_response(mon, tt + sec(0.3), rng, nid, "hv-02", payload, tt)
            host_recovery(eng, napi, None, rng, era, tt + sec(0.5), nid, req, "hv-02", insts, USER, PROJ)
    base = root + "/sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_"
    for log, c in [(mon, "masakari-hostmonitor"), (eng, "masakari-engine"), (api, "masakari-api")]:
        b.lines(base + c, [(u, pebble(u, c, l + "\x1b[00m" if k % 3 == 0 else l, ctl)) for k, (u, l) in enumerate(log.lines)])
    nb = root + "/sos_commands/kubernetes/cluster-info/openstack/podlogs/nova-0/k8s_kubectl_--namespace_openstack_logs_nova-0_-c_nova-api"
    b.lines(nb, [(u, pebble(u, "wsgi-nova-api", l, ctl)) for u, l in napi.lines])
    # the hypervisor's nova-compute journal on hv-02 ends at death
    hv = Host("hv-02", "UTC", 3.0)
    rh = sos_root(hv, "1112")
    sos_base(b, rh, hv)
    nc = Log(hv, 4411, level_debug=True)
    compute_noise(nc, t0, 20, rng, "hv-02")
    b.lines(rh + "/sos_commands/sunbeam_hypervisor/journalctl_--no-pager_--unit_nova-compute",
            [(u, journal_prefix(hv, u, "nova-compute", 4411) + l) for u, l in nc.lines if u < death])
    if healthy:
        TRUTH.append(truth(name, 4, "healthy", [], note="one consul connection error at agent restart, then hv-02 notified and recovered"))
    else:
        TRUTH.append(truth(name, 4, "fail", [{"detector": "consul-monitor-failing"}],
                           note="monitors 18.0.0: a sequence name without agent -> AttributeError every cycle; hv-02 dies unnoticed"))


# ------------------------------------------------------------------------------------------
# Class 5: notification stuck running, expired a day later
# ------------------------------------------------------------------------------------------
def c5(out, healthy):
    name = "u05-sos-notification-stuck-yoga" + ("-longrun-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(13, zed=False)
    ctl = Host("os-ctl-02.dc1.example.net", "Europe/Paris", 0)
    root = sos_root(ctl, "0415")
    sos_base(b, root, ctl, rpm=[("openstack-masakari-engine", "13.0.1-1.el8"), ("python3-masakari", "13.0.1-1.el8")])
    eng = Log(ctl, rng.pid())
    t0 = t("2024-04-15 07:55:10.010")
    for k in range(0, 26 * 60, 10):  # periodic task DEBUG noise is off; INFO heartbeat-ish lines
        pass
    nid = rng.uuid()
    inst = rng.uuid()
    req = rng.req()
    ctx = era.api_ctx(req, USER, PROJ)
    if not healthy:
        eng.add(t0, "INFO", "masakari.engine.manager", ctx, "Processing notification %s of type: VM" % nid)
        loc = rng.req()
        eng.add(t0 + sec(0.2), "INFO", "masakari.compute.nova", era.nc_ctx(req, loc), "Call get server command for instance %s" % inst)
        msg = ("Unable to establish connection to http://10.40.0.10:8774/v2.1/servers/%s: "
               "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))" % inst)
        eng.add(t0 + sec(30.4), "ERROR", "oslo_messaging.rpc.server", era.nc_ctx(req, loc),
                "Exception during message handling", summary="keystoneauth1.exceptions.connection.ConnectFailure: " + msg)
        eng.tb(t0 + sec(30.4), "oslo_messaging.rpc.server", nc_frames() + [
            (SITE + "/masakari/engine/manager.py", 323, "process_notification", "self._process_notification(context, notification)"),
            (SITE + "/masakari/engine/drivers/taskflow/instance_failure.py", 72, "execute", "instance = self.novaclient.get_server(context, instance_uuid)")],
            "keystoneauth1.exceptions.connection.ConnectFailure: " + msg)
        exp = t0 + sec(24 * 3600 + 301)
        eng.add(exp, "ERROR", "masakari.engine.manager", era.admin_ctx(rng.req()),
                "Periodic task 'check_expired_notifications': Notification %s is expired." % nid)
    else:
        # a long evacuation (many instances, a slow Nova) that finishes 2 h later, across rotation
        host_recovery(eng, Log(ctl, 1), None, rng, era, t0, nid, req, "os-cmp-07.dc1.example.net",
                      [rng.uuid() for _ in range(6)], USER, PROJ, wait=180, evac_secs=7000)
    # other notifications of the day, all fine (VM type, ignored events)
    for k in range(4):
        nn = rng.uuid()
        r2 = rng.req()
        tt = t0 + sec(3 * 3600 + 4000 * k)
        c2 = era.api_ctx(r2, USER, PROJ)
        eng.add(tt, "INFO", "masakari.engine.manager", c2, "Processing notification %s of type: VM" % nn)
        eng.add(tt + sec(0.1), "INFO", "masakari.engine.manager", c2,
                "Notification '%s' received with payload {'event': 'LIFECYCLE', 'instance_uuid': '%s', 'vir_domain_event': 'SUSPENDED_PAUSED'} is ignored." % (nn, rng.uuid()))
        eng.add(tt + sec(0.2), "INFO", "masakari.engine.manager", c2, "Notification %s exits with status: ignored." % nn)
    rot = t0 + sec(3600 if healthy else 6 * 3600)
    b.log(root + "/var/log/masakari/masakari-engine.log", eng, rotate_at=rot, gz_older=True)
    if healthy:
        TRUTH.append(truth(name, 5, "healthy", [], note="a 2-hour recovery whose 'Processing' sits in the rotated file"))
    else:
        TRUTH.append(truth(name, 5, "fail", [{"detector": "notification-stuck-running", "notification": nid}],
                           note="masakari 13 VM notification: ConnectFailure escapes the flow; expired 24 h later"))


# ------------------------------------------------------------------------------------------
# Class 6: engine not consuming
# ------------------------------------------------------------------------------------------
def rabbit_report(queues):
    cols = ["name", "durable", "auto_delete", "arguments", "policy", "pid", "owner_pid", "exclusive",
            "exclusive_consumer_pid", "exclusive_consumer_tag", "messages_ready", "messages_unacknowledged",
            "messages", "messages_ready_ram", "messages_unacknowledged_ram", "messages_ram", "messages_persistent",
            "message_bytes", "message_bytes_ready", "message_bytes_unacknowledged", "message_bytes_ram",
            "message_bytes_persistent", "head_message_timestamp", "disk_reads", "disk_writes", "consumers",
            "consumer_utilisation", "memory", "slave_pids", "synchronised_slave_pids", "state", "type"]
    out = ["Reporting server status of node rabbit@juju-b31f0a-2-lxd-1 ...", "", "Status of node rabbit@juju-b31f0a-2-lxd-1 ...",
           "Runtime", "", "OS PID: 4721", "OS: Linux", "Uptime (seconds): 91230", "RabbitMQ version: 3.8.2", "",
           "Listing queues for vhost openstack ...", "\t".join(cols)]
    for q, msgs, cons in queues:
        out.append("\t".join([q, "false", "false", "[]", "", "<rabbit@juju-b31f0a-2-lxd-1.1626353207.3342.0>", "", "false", "", "",
                              str(msgs), "0", str(msgs), str(msgs), "0", str(msgs), "0", str(msgs * 1187), str(msgs * 1187), "0",
                              str(msgs * 1187), "0", "", "0", "0", str(cons), "" if not cons else "1.0", "34524", "", "", "running", "classic"]))
    return "\n".join(out) + "\n"


def c6(out, healthy):
    name = "u06-sos-engine-not-consuming" + ("-skewed-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(16)
    api_h = Host("juju-b31f0a-0-lxd-5", "UTC", 0)
    eng_h = Host("juju-b31f0a-1-lxd-5", "UTC", -48.0)
    rmq = Host("juju-b31f0a-2-lxd-1", "UTC", 0)
    t0 = t("2023-11-07 22:14:05.700")
    nid, req = rng.uuid(), rng.req()
    api = Log(api_h, rng.pid())
    eng = Log(eng_h, rng.pid())
    ra, re_, rr = sos_root(api_h, "1107"), sos_root(eng_h, "1107"), sos_root(rmq, "1107")
    for r, h in [(ra, api_h), (re_, eng_h)]:
        sos_base(b, r, h, pkgs=[("masakari-api", "16.0.0-0ubuntu1~cloud0"), ("masakari-engine", "16.0.0-0ubuntu1~cloud0")])
    sos_base(b, rr, rmq, pkgs=[("rabbitmq-server", "3.8.2-0ubuntu1.5")])
    eng.add(t0 - sec(86000), "INFO", "masakari.engine.manager", NOCTX, "Starting masakari-engine (version 16.0.0)")
    api_accept(api, t0, era, req, USER, PROJ, "10.5.0.61")
    acc = [(t0 + sec(0.1), apache_combined(api_h, t0 + sec(0.1), "10.5.0.61", "POST", "/v1/notifications", 202, 902,
                                           "openstacksdk/1.0.2 keystoneauth1/5.1.2 python-requests/2.31.0 CPython/3.10.12"))]
    if healthy:
        host_recovery(eng, Log(api_h, 1), None, rng, era, t0 + sec(0.4), nid, req, "compute-4", [rng.uuid()], USER, PROJ)
        q = [("ha_engine", 0, 3), ("ha_engine.juju-b31f0a-1-lxd-5", 0, 1), ("ha_engine_fanout_1f2e3d4c5b6a", 0, 1)]
    else:
        # the engine's AMQP consumer died after a broker failover; it logs the reconnect failure once then stays silent
        eng.add(t0 - sec(5400), "ERROR", "oslo.messaging._drivers.impl_rabbit", NOCTX,
                "[a7c3e2f1-0b9d-4e8a-9c6f-5d4b3a2e1f0c] AMQP server on 10.5.0.80:5672 is unreachable: [Errno 104] Connection reset by peer. "
                "Trying again in 1 seconds.", summary="ConnectionResetError: [Errno 104] Connection reset by peer")
        eng.add(t0 - sec(5398), "INFO", "oslo.messaging._drivers.impl_rabbit", NOCTX,
                "[a7c3e2f1-0b9d-4e8a-9c6f-5d4b3a2e1f0c] Reconnected to AMQP server on 10.5.0.81:5672 via [amqp] client with port 40822.")
        for k in range(3):
            tt = t0 + sec(400 * k + 30)
            api_accept(api, tt, era, rng.req(), USER, PROJ, "10.5.0.62", status=409,
                       explanation="Notification received from host compute-4 of type COMPUTE_HOST is duplicate.")
        q = [("ha_engine", 1, 0), ("ha_engine.juju-b31f0a-1-lxd-5", 0, 0), ("ha_engine_fanout_1f2e3d4c5b6a", 0, 0)]
    b.log(ra + "/var/log/masakari/masakari-api.log", api)
    b.lines(ra + "/var/log/apache2/masakari_access.log", acc)
    b.log(re_ + "/var/log/masakari/masakari-engine.log", eng)
    b.write(rr + "/sos_commands/rabbitmq/rabbitmqctl_report", rabbit_report(q + [("conductor", 0, 3), ("scheduler", 0, 3)]))
    if healthy:
        TRUTH.append(truth(name, 6, "healthy", [], note="engine host's clock 48 s behind: 'Processing' looks earlier than the 202"))
    else:
        TRUTH.append(truth(name, 6, "fail", [{"detector": "engine-not-consuming"}],
                           note="202 then nothing; ha_engine 1 message 0 consumers"))


# ------------------------------------------------------------------------------------------
# Class 7: two flows for one host
# ------------------------------------------------------------------------------------------
def c7(out, healthy):
    name = "u07-kolla-two-flows" + ("-sequential-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(13, zed=False)
    H = kolla_cloud(rng, skew3=0, tz="UTC")
    H["controller-2"] = Host("controller-2", "UTC", 27.0)
    t0 = t("2022-09-01 04:12:30.000")
    insts = [rng.uuid(), rng.uuid(), rng.uuid()]
    api1, api2 = Log(H["controller-1"], rng.pid()), Log(H["controller-2"], rng.pid())
    e1, e2 = Log(H["controller-1"], rng.pid()), Log(H["controller-2"], rng.pid())
    n1, n2 = Log(H["controller-1"], rng.pid()), Log(H["controller-2"], rng.pid())
    nid1, req1, nid2, req2 = rng.uuid(), rng.req(), rng.uuid(), rng.req()
    api_accept(api1, t0, era, req1, USER, PROJ, "192.168.20.11")
    host_recovery(e1, n1, None, rng, era, t0 + sec(0.3), nid1, req1, "compute-2", insts, USER, PROJ)
    if healthy:
        later = t0 + sec(5 * 3600)
        api_accept(api2, later, era, req2, USER, PROJ, "192.168.20.13")
        host_recovery(e2, n2, None, rng, era, later + sec(0.3), nid2, req2, "compute-2", [rng.uuid()], USER, PROJ)
        api_accept(api2, t0 + sec(0.4), era, rng.req(), USER, PROJ, "192.168.20.13", status=409,
                   explanation="Notification received from host compute-2 of type COMPUTE_HOST is duplicate.")
    else:
        api_accept(api2, t0 + sec(0.05), era, req2, USER, PROJ, "192.168.20.13")
        conflict = {i: "Cannot 'evacuate' instance %s while it is in task_state rebuilding" % i for i in insts}
        host_recovery(e2, n2, None, rng, era, t0 + sec(0.5), nid2, req2, "compute-2", insts, USER, PROJ, conflict=conflict)
    for n, e, a, nn in [("controller-1", e1, api1, n1), ("controller-2", e2, api2, n2)]:
        b.log("%s/var/log/kolla/masakari/masakari-engine.log" % n, e)
        b.log("%s/var/log/kolla/masakari/masakari-api.log" % n, a)
        b.log("%s/var/log/kolla/nova/nova-api.log" % n, nn)
    b.write("controller-1/etc/kolla/masakari-engine/masakari.conf",
            "[DEFAULT]\ndebug = False\nlog_dir = /var/log/kolla/masakari\nos_privileged_user_name = nova\n"
            "os_privileged_user_tenant = service\nduplicate_notification_detection_interval = 180\n\n"
            "[taskflow]\nconnection = mysql+pymysql://masakari:***@192.168.20.250:3306/masakari\n")
    if healthy:
        TRUTH.append(truth(name, 7, "healthy", [], note="two notifications for compute-2 five hours apart; a 409 duplicate at the API"))
    else:
        TRUTH.append(truth(name, 7, "fail", [{"detector": "duplicate-host-flows", "host": "compute-2", "instances": insts}],
                           allow=["recovery-failed"],
                           note="two API workers accept both; two engines run; second gets 409 rebuilding (controller-2 27 s ahead)"))


# ------------------------------------------------------------------------------------------
# Class 8: source compute restarts during the evacuation
# ------------------------------------------------------------------------------------------
def c8(out, healthy):
    name = "u08-tripleo-source-restart" + ("-after-healthy" if healthy else "-mid")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    ctl = Host("overcloud-controller-0.localdomain", "UTC", 0)
    src = Host("overcloud-novacompute-1.localdomain", "UTC", 18.0)
    dst = Host("overcloud-novacompute-2.localdomain", "UTC", -7.0)
    rc, rs, rd = sos_root(ctl, "0822"), sos_root(src, "0822"), sos_root(dst, "0822")
    for r, h in [(rc, ctl), (rs, src), (rd, dst)]:
        sos_base(b, r, h, rpm=[("openstack-nova-compute", "29.0.2-1.el9ost"), ("openstack-nova-common", "29.0.2-1.el9ost")])
    t0 = t("2024-08-22 11:40:00.000")
    inst = rng.uuid()
    insts = [inst, rng.uuid()]
    eng, napi = Log(ctl, rng.pid()), Log(ctl, rng.pid())
    sl, dl = Log(src, rng.pid()), Log(dst, rng.pid())
    nid, req = rng.uuid(), rng.req()
    G = req

    def dest_fail(dlog, when, dctx, i):
        msg = "The supplied disk path (/var/lib/nova/instances/%s) already exists, it is expected not to exist." % i
        dlog.add(when + sec(130), "ERROR", "nova.compute.manager", dctx, "Setting instance vm_state to ERROR", instance=i,
                 summary="nova.exception.DestinationDiskExists: " + msg)
        dlog.tb(when + sec(130), "nova.compute.manager", [
            (SITE.replace("/usr/lib/python3/dist-packages", "/usr/lib/python3.9/site-packages") + "/nova/compute/manager.py", 10874,
             "_error_out_instance_on_exception", "yield"),
            ("/usr/lib/python3.9/site-packages/nova/virt/libvirt/driver.py", 4658, "_create_image",
             "raise exception.DestinationDiskExists(path=instance_dir)")],
            "nova.exception.DestinationDiskExists: " + msg, instance=i)

    host_recovery(eng, napi, [(dl, None if healthy else dest_fail)], rng, era, t0, nid, req, src.name.split(".")[0] if False else src.name,
                  insts, USER, PROJ, evac_secs=140, fail_instance=None if healthy else inst,
                  fail_text=None if healthy else "Failed to evacuate instance %s" % inst)
    restart = t0 + sec(180 + 2 + (700 if healthy else 5))
    sl.add(restart, "INFO", "nova.service", NOCTX, "Starting compute node (version 29.0.2-1.el9ost)")
    for i in insts:
        sl.add(restart + sec(9), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
               "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", instance=i)
        if not healthy and i == inst:
            mid = rng.hex32()
            sl.add(restart + sec(69), "ERROR", "nova.compute.manager", ctx_zed_admin(rng.req()), "Failed to check if instance shared",
                   instance=i, summary="oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s" % mid)
            sl.tb(restart + sec(69), "nova.compute.manager", [
                ("/usr/lib/python3.9/site-packages/nova/compute/manager.py", 929, "_is_instance_storage_shared",
                 "shared_storage = (self.compute_rpcapi."),
                ("/usr/lib/python3.9/site-packages/oslo_messaging/_drivers/amqpdriver.py", 433, "get",
                 "raise oslo_messaging.MessagingTimeout(")],
                "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s" % mid, instance=i)
    sl.add(restart + sec(75), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
           "Cleaning up allocations of the instance as it has been evacuated from this host", instance=insts[-1])
    for r, l, p in [(rc, eng, "var/log/containers/masakari/masakari-engine.log"), (rc, napi, "var/log/containers/nova/nova-api.log"),
                    (rs, sl, "var/log/containers/nova/nova-compute.log"), (rd, dl, "var/log/containers/nova/nova-compute.log")]:
        b.log(r + "/" + p, l)
    if healthy:
        TRUTH.append(truth(name, 8, "healthy", [], note="source restarts 12 min after the evacuations finished: normal clean-up"))
    else:
        TRUTH.append(truth(name, 8, "fail", [{"detector": "source-restart-mid-evacuation", "instances": [inst]}],
                           allow=["recovery-failed"],
                           note="nova 29 source restarts 5 s into the evacuation; MessagingTimeout; dest DestinationDiskExists"))


# ------------------------------------------------------------------------------------------
# Class 9: nova-compute refuses to start
# ------------------------------------------------------------------------------------------
def c9(out, variant):
    name = {"identity": "u09-kolla-compute-refuses-identity", "rename": "u09-tripleo-compute-refuses-rename",
            "healthy": "u09-kolla-compute-restart-healthy"}[variant]
    b = Bundle(out, name)
    rng = Rng(name)
    t0 = t("2025-01-20 16:05:00.000")
    if variant == "rename":
        h = Host("overcloud-novacompute-3.ctlplane.example.com", "UTC", 0)
        r = sos_root(h, "0120")
        sos_base(b, r, h, rpm=[("openstack-nova-compute", "27.3.1-1.el9ost")])
        nc = Log(h, rng.pid())
        node = rng.uuid()
        for k in range(4):
            tt = t0 + sec(12 * k)
            msg = ("My node %s has host 'overcloud-novacompute-3.localdomain' but my host is "
                   "'overcloud-novacompute-3.ctlplane.example.com'; Possible rename detected, refusing to start!" % node)
            nc.add(tt, "INFO", "nova.service", NOCTX, "Starting compute node (version 27.3.1-1.el9ost)")
            nc.add(tt + sec(2), "ERROR", "oslo_service.service", ctx_zed_admin(rng.req()), "Error starting thread.",
                   summary="nova.exception.InvalidConfiguration: " + msg)
            nc.tb(tt + sec(2), "oslo_service.service", [
                ("/usr/lib/python3.9/site-packages/oslo_service/service.py", 806, "run_service", "service.start()"),
                ("/usr/lib/python3.9/site-packages/nova/service.py", 162, "start", "self.manager.init_host(self.service_ref)"),
                ("/usr/lib/python3.9/site-packages/nova/compute/manager.py", 1656, "_check_for_host_rename",
                 "raise exception.InvalidConfiguration(")], "nova.exception.InvalidConfiguration: " + msg)
        b.log(r + "/var/log/containers/nova/nova-compute.log", nc)
        TRUTH.append(truth(name, 9, "fail", [{"detector": "compute-refuses-to-start", "host": "overcloud-novacompute-3.ctlplane.example.com"}],
                           note="host renamed to its FQDN after repair; nova 27 refuses (rename)"))
        return
    h = Host("compute-2", "Europe/Berlin", 0)
    nc = Log(h, rng.pid())
    nc.debug = True
    compute_noise(nc, t0 - sec(7200), 30, rng, "compute-2")
    rb = t0
    if variant == "identity":
        msg = ("No local node identity found, but this is not our first startup on this host. Refusing to start after "
               "potentially having lost that state!")
        for k in range(5):
            tt = rb + sec(62 * k)
            pid = 7 + k
            nc.pid = pid
            nc.add(tt, "INFO", "nova.service", NOCTX, "Starting compute node (version 28.0.1)")
            nc.add(tt + sec(1.5), "ERROR", "oslo_service.service", ctx_zed_admin(rng.req()), "Error starting thread.",
                   summary="nova.exception.InvalidConfiguration: " + msg)
            nc.tb(tt + sec(1.5), "oslo_service.service", [
                ("/var/lib/kolla/venv/lib/python3.10/site-packages/oslo_service/service.py", 810, "run_service", "service.start()"),
                ("/var/lib/kolla/venv/lib/python3.10/site-packages/nova/service.py", 162, "start", "self.manager.init_host(self.service_ref)"),
                ("/var/lib/kolla/venv/lib/python3.10/site-packages/nova/compute/manager.py", 1489, "_ensure_existing_node_identity",
                 "raise exception.InvalidConfiguration(")], "nova.exception.InvalidConfiguration: " + msg)
        b.log("compute-2/var/log/kolla/nova/nova-compute.log", nc, rotate_at=rb - sec(60))
        TRUTH.append(truth(name, 9, "fail", [{"detector": "compute-refuses-to-start", "host": "compute-2"}],
                           note="compute-2 reinstalled after recovery, /var/lib/nova/compute_id lost; nova 28 refuses"))
    else:
        nc.add(rb, "INFO", "nova.service", NOCTX, "Starting compute node (version 28.0.1)")
        nc.add(rb + sec(1.2), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
               "Looking for unclaimed instances stuck in BUILDING status for nodes managed by this host")
        nc.add(rb + sec(3), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
               "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", instance=rng.uuid())
        nc.add(rb + sec(4), "WARNING", "nova.compute.manager", ctx_zed_admin(rng.req()),
               "While synchronizing instance power states, found 0 instances in the database and 1 instances on the hypervisor.")
        b.log("compute-2/var/log/kolla/nova/nova-compute.log", nc, rotate_at=rb - sec(60))
        TRUTH.append(truth(name, 9, "healthy", [], note="compute-2 comes back after recovery and starts normally"))


# ------------------------------------------------------------------------------------------
# Class 10: rebuild RPC mismatch in a rolling upgrade
# ------------------------------------------------------------------------------------------
def c10(out, healthy):
    name = "u10-sos-rebuild-rpc-rolling" + ("-fixed-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(15)
    ctl = Host("ctl-a.openstack.internal", "UTC", 0)
    dst = Host("cmp-new-04.openstack.internal", "UTC", 31.0)
    old = Host("cmp-old-01.openstack.internal", "UTC", 0)
    ver = "27.2.0" if healthy else "27.1.0"
    rc, rd = sos_root(ctl, "0301"), sos_root(dst, "0301")
    sos_base(b, rc, ctl, pkgs=[("nova-conductor", "3:%s-0ubuntu1~cloud0" % ver), ("masakari-engine", "15.0.0-0ubuntu1~cloud0")])
    sos_base(b, rd, dst, pkgs=[("nova-compute", "3:%s-0ubuntu1~cloud0" % ver)])
    t0 = t("2024-03-01 09:00:00.000")
    inst = rng.uuid()
    eng, napi, cond, dl = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(dst, rng.pid())
    cond.add(t0 - sec(600), "INFO", "nova.compute.rpcapi", ctx_zed_admin(rng.req()),
             "Automatically selected compute RPC version 6.0 from minimum service version 61")
    nid, req = rng.uuid(), rng.req()

    def dest_fail(dlog, when, dctx, i):
        te = "ComputeManager.rebuild_instance() missing 2 required positional arguments: 'reimage_boot_volume' and 'target_state'"
        dlog.add(when, "ERROR", "oslo_messaging.rpc.server", dctx, "Exception during message handling", summary="TypeError: " + te)
        dlog.tb(when, "oslo_messaging.rpc.server", nc_frames() + [
            (SITE + "/nova/exception_wrapper.py", 65, "wrapped", "with excutils.save_and_reraise_exception():"),
            (SITE + "/nova/exception_wrapper.py", 63, "wrapped", "return f(self, context, *args, **kw)"),
            (SITE + "/nova/compute/utils.py", 1439, "decorated_function", "return function(self, context, *args, **kwargs)")],
            "TypeError: " + te)

    host_recovery(eng, napi, [(dl, None if healthy else dest_fail)], rng, era, t0, nid, req, old.name, [inst], USER, PROJ,
                  wait=180, evac_secs=95, fail_instance=None if healthy else inst,
                  fail_text=None if healthy else "Timeout for instance '%s' evacuation." % inst)
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    b.log(rc + "/var/log/nova/nova-conductor.log", cond)
    b.log(rd + "/var/log/nova/nova-compute.log", dl)
    if healthy:
        TRUTH.append(truth(name, 10, "healthy", [], note="same pin to 6.0 with nova 27.2.0 (fixed): evacuation succeeds"))
    else:
        TRUTH.append(truth(name, 10, "fail", [{"detector": "rebuild-rpc-mismatch", "instances": [inst]}], allow=["recovery-failed"],
                           note="nova 27.1.0 destination, RPC pinned 6.0 by a Yoga compute: TypeError on rebuild_instance"))


# ------------------------------------------------------------------------------------------
# Class 11: Cinder 500 on attachment update during a BFV evacuation
# ------------------------------------------------------------------------------------------
def c11(out, healthy):
    name = "u11-kolla-cinder-500-bfv" + ("-retried-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    H = kolla_cloud(rng, skew3=14.0, tz="America/Sao_Paulo")
    t0 = t("2024-10-02 19:30:00.000")
    inst = rng.uuid()
    eng, napi, cin = Log(H["controller-1"], rng.pid()), Log(H["controller-1"], rng.pid()), Log(H["controller-2"], rng.pid())
    dl = Log(H["compute-3"], rng.pid())
    nid, req = rng.uuid(), rng.req()
    att = rng.uuid()

    def dest(dlog, when, dctx, i):
        tries = 1 if healthy else 1
        for k in range(tries):
            creq = rng.req()
            cin.add(when + sec(2 * k), "ERROR", "cinder.api.v3.attachments", "[%s %s %s %s - default default]" % (req, creq, USER, PROJ),
                    "Unable to update the attachment.",
                    summary="cinder.exception.VolumeBackendAPIException: Bad or unexpected response from the storage volume backend API: "
                            "Unable to fetch connection information from backend: timed out")
            cin.add(when + sec(2 * k + 0.1), "INFO", "cinder.api.openstack.wsgi", "[%s %s %s %s - default default]" % (req, creq, USER, PROJ),
                    "https://192.168.20.250:8776/v3/%s/attachments/%s returned with HTTP 500" % (PROJ, att))
            dlog.add(when + sec(2 * k + 0.2), "ERROR", "nova.volume.cinder", dctx,
                     "Update attachment failed for attachment %s. Error: Unable to update the attachment. (HTTP 500) (Request-ID: %s) Code: 500"
                     % (att, creq))
        if not healthy:
            dlog.add(when + sec(1), "ERROR", "nova.compute.manager", dctx, "Setting instance vm_state to ERROR", instance=i,
                     summary="cinderclient.exceptions.ClientException: Unable to update the attachment. (HTTP 500) (Request-ID: %s)" % creq)
        else:
            dlog.add(when + sec(4), "INFO", "nova.compute.manager", dctx, "disk on volume, evacuating using existing volume", instance=i)
            spawned(dlog, when + sec(19), dctx, i)

    host_recovery(eng, napi, [(dl, dest)], rng, era, t0, nid, req, "compute-2", [inst], USER, PROJ, evac_secs=40,
                  fail_instance=inst, fail_text=None if healthy else "Failed to evacuate instance %s" % inst)
    if healthy:  # host_recovery marks fail_instance failed only with a fail_text; redo cleanly
        pass
    b.log("controller-1/var/log/kolla/masakari/masakari-engine.log", eng)
    b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
    b.log("controller-2/var/log/kolla/cinder/cinder-api.log", cin)
    b.log("compute-3/var/log/kolla/nova/nova-compute.log", dl)
    if healthy:
        TRUTH.append(truth(name, 11, "healthy", [], note="nova 29 (2024.1): one 500, retried, attached, evacuation done"))
    else:
        TRUTH.append(truth(name, 11, "fail", [{"detector": "cinder-attachment-500", "instances": [inst]}], allow=["recovery-failed"],
                           note="nova 28: Cinder 500 on attachment update, no retry, instance ERROR"))


# ------------------------------------------------------------------------------------------
# Class 12: force up refused
# ------------------------------------------------------------------------------------------
def c12(out, healthy):
    name = "u12-sos-force-up" + ("-after-restart-healthy" if healthy else "-refused")
    b = Bundle(out, name)
    rng = Rng(name)
    ctl = Host("ctl-2.cloud.lan", "Australia/Sydney", 0)
    cmp = Host("cmp-5.cloud.lan", "Australia/Sydney", -19.0)
    rc, rm = sos_root(ctl, "0709"), sos_root(cmp, "0709")
    sos_base(b, rc, ctl, pkgs=[("nova-api", "3:29.1.0-0ubuntu1~cloud0")])
    sos_base(b, rm, cmp, pkgs=[("nova-compute", "3:29.1.0-0ubuntu1~cloud0")])
    t0 = t("2024-07-09 03:11:00.000")
    napi = Log(ctl, rng.pid())
    svc = rng.uuid()
    opu, opp = rng.hex32(), rng.hex32()
    ctx = ctx_zed(rng.req(), opu, opp)
    napi.add(t0, "INFO", "nova.api.openstack.requestlog", ctx,
             '10.9.0.4 "PUT /v2.1/os-services/%s" status: 200 len: 388 microversion: 2.53 time: 0.081122' % svc)
    nc = Log(cmp, rng.pid())
    insts = [rng.uuid(), rng.uuid()]
    up = t0 + sec(3600)
    if healthy:
        nc.add(up - sec(300), "INFO", "nova.service", NOCTX, "Starting compute node (version 29.1.0)")
        for i in insts:
            nc.add(up - sec(290), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
                   "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", instance=i)
        c2 = ctx_zed(rng.req(), opu, opp)
        napi.add(up, "INFO", "nova.api.openstack.requestlog", c2,
                 '10.9.0.4 "PUT /v2.1/os-services/%s" status: 200 len: 389 microversion: 2.53 time: 0.074410' % svc)
    else:
        msg = ("Unable to force up host cmp-5.cloud.lan as `done` evacuation migration records remain associated with the host. "
               "Ensure the compute service has been restarted, allowing these records to move to `completed` before retrying this request.")
        for k in range(2):
            c2 = ctx_zed(rng.req(), opu, opp)
            napi.add(up + sec(40 * k), "INFO", "nova.api.openstack.wsgi", c2, "HTTP exception thrown: %s" % msg)
            napi.add(up + sec(40 * k + 0.01), "INFO", "nova.api.openstack.requestlog", c2,
                     '10.9.0.4 "PUT /v2.1/os-services/%s" status: 400 len: 331 microversion: 2.53 time: 0.052301' % svc)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    b.log(rm + "/var/log/nova/nova-compute.log", nc)
    if healthy:
        TRUTH.append(truth(name, 12, "healthy", [], note="compute restarted (migrations completed) before force-up: 200"))
    else:
        TRUTH.append(truth(name, 12, "fail", [{"detector": "force-up-refused", "host": "cmp-5.cloud.lan"}],
                           note="operator forces cmp-5 up before nova-compute restarted: 400 twice"))


# ------------------------------------------------------------------------------------------
# Class 13: evacuation without confirmed fencing
# ------------------------------------------------------------------------------------------
def pcmk_line(host, utc, daemon, pid, func, sev, msg):
    d = host.local(utc)
    return "%s.%03d %s %-20s[%d] (%s) \t%s: %s" % (d.strftime("%b %d %H:%M:%S"), d.microsecond // 1000, host.short,
                                                   daemon, pid, func, sev, msg)


def c13(out, healthy):
    name = "u13-sos-fencing" + ("-before-evacuation-healthy" if healthy else "-absent")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    ctl = Host("rcp-ctl-0.example.org", "Europe/Madrid", 0)
    ctl1 = Host("rcp-ctl-1.example.org", "Europe/Madrid", 9.0)
    rc, rc1 = sos_root(ctl, "0502"), sos_root(ctl1, "0502")
    sos_base(b, rc, ctl, pkgs=[("masakari-engine", "17.0.0-0ubuntu1~cloud0"), ("pacemaker", "2.1.6-5ubuntu2")])
    sos_base(b, rc1, ctl1, pkgs=[("pacemaker", "2.1.6-5ubuntu2")])
    t0 = t("2024-05-02 10:11:12.345")
    death = t0 - sec(95)
    insts = [rng.uuid(), rng.uuid()]
    eng, napi, api = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid())
    nid, req = rng.uuid(), rng.req()
    api_accept(api, t0 - sec(0.4), era, req, USER, PROJ, "10.30.0.12")
    host_recovery(eng, napi, None, rng, era, t0, nid, req, "rcp-cmp-3", insts, USER, PROJ, wait=180)
    pl = []
    pl.append((death + sec(4), pcmk_line(ctl, death + sec(4), "pacemaker-controld", 2345, "peer_update_callback", "info",
                                         "Remote node rcp-cmp-3 is now lost (was member)")))
    if healthy:
        fence_at = t0 + sec(60)
        pl.append((fence_at - sec(20), pcmk_line(ctl, fence_at - sec(20), "pacemaker-schedulerd", 2344, "pe_fence_node", "warning",
                                                 "Remote node rcp-cmp-3 will be fenced: remote connection is unrecoverable")))
        pl.append((fence_at, pcmk_line(ctl, fence_at, "pacemaker-controld", 2345, "handle_fence_notification", "notice",
                                       "Peer rcp-cmp-3 was terminated (reboot) by rcp-ctl-1 on behalf of pacemaker-controld.2345@rcp-ctl-0: OK "
                                       "| event=%s" % rng.uuid())))
        fd = ctl.local(fence_at)
        hist = ("reboot of rcp-cmp-3 successful: delegate=rcp-ctl-1, client=pacemaker-controld.2345, origin=rcp-ctl-0, "
                "completed='%s +02:00'\n" % fd.strftime("%Y-%m-%d %H:%M:%S.%f")
                + "reboot of rcp-cmp-1 successful: delegate=rcp-ctl-2, client=stonith_admin.88123, origin=rcp-ctl-2, "
                  "completed='2024-03-14 16:02:11.018344 +01:00'\n")
    else:
        hist = ("reboot of rcp-cmp-1 successful: delegate=rcp-ctl-2, client=stonith_admin.88123, origin=rcp-ctl-2, "
                "completed='2024-03-14 16:02:11.018344 +01:00'\n")
    b.lines(rc + "/var/log/pacemaker/pacemaker.log", pl)
    b.write(rc + "/sos_commands/pacemaker/pcs_stonith_history_show", hist)
    b.write(rc1 + "/sos_commands/pacemaker/pcs_stonith_history_show", hist)
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/masakari/masakari-api.log", api)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    if healthy:
        TRUTH.append(truth(name, 13, "healthy", [],
                           note="rcp-cmp-3 fenced (reboot OK) at +60 s, before the first evacuate at +181 s; history in +02:00"))
    else:
        TRUTH.append(truth(name, 13, "fail", [{"detector": "evacuated-unfenced", "host": "rcp-cmp-3"}],
                           note="rcp-cmp-3 lost, evacuated, no fencing record (only an old rcp-cmp-1 one)"))


# ------------------------------------------------------------------------------------------
# Class 14: pending after finished (eventlet greenthread; thread pool proposal)
# ------------------------------------------------------------------------------------------
def c14(out, variant):
    name = {"eventlet": "u14-sos-pending-after-finished-journal", "pool": "u14-kolla-pending-threadpool",
            "healthy": "u14-sos-all-evacuated-healthy"}[variant]
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17 if variant != "pool" else 21)
    t0 = t("2025-02-14 23:58:40.000")
    insts = [rng.uuid(), rng.uuid(), rng.uuid()]
    stuck = insts[1]
    nid, req = rng.uuid(), rng.req()
    if variant == "pool":
        H = kolla_cloud(rng, tz="UTC")
        eng, napi, api = Log(H["controller-2"], rng.pid()), Log(H["controller-1"], rng.pid()), Log(H["controller-1"], rng.pid())
        api_accept(api, t0 - sec(0.3), era, req, USER, PROJ, "192.168.20.12")
        end = host_recovery(eng, napi, None, rng, era, t0, nid, req, "compute-1", insts, USER, PROJ, stuck_instance=stuck, finish=False)
        msg = "The request you have made requires authentication. (HTTP 401) (Request-ID: %s)" % rng.req()
        ctxs = era.nc_ctx(req, rng.req())
        eng.add(end - sec(1), "ERROR", "masakari.engine.drivers.taskflow.host_failure", ctxs,
                "Exception in evacuation thread: %s" % msg, summary="keystoneauth1.exceptions.http.Unauthorized: " + msg)
        eng.tb(end - sec(1), "masakari.engine.drivers.taskflow.host_failure", [
            ("/var/lib/kolla/venv/lib/python3.12/site-packages/masakari/engine/drivers/taskflow/host_failure.py", 413, "execute",
             "future.result()  # This will raise any exceptions"),
            ("/usr/lib/python3.12/concurrent/futures/_base.py", 449, "result", "return self.__get_result()"),
            ("/var/lib/kolla/venv/lib/python3.12/site-packages/masakari/engine/drivers/taskflow/host_failure.py", 216,
             "_evacuate_and_confirm", "context, instance.id).locked")],
            "keystoneauth1.exceptions.http.Unauthorized: " + msg)
        eng.add(end, "INFO", "masakari.engine.manager", era.nc_ctx(req, rng.req()), "Notification %s exits with status: finished." % nid)
        b.log("controller-2/var/log/kolla/masakari/masakari-engine.log", eng)
        b.log("controller-1/var/log/kolla/masakari/masakari-api.log", api)
        b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
        TRUTH.append(truth(name, 14, "fail", [{"detector": "pending-after-finished", "host": "compute-1", "instances": [stuck]}],
                           note="thread-pool engine (proposal): 'Exception in evacuation thread', still finished"))
        return
    ctl = Host("juju-4e2a1c-0-lxd-7", "Pacific/Auckland", 0)
    rc = sos_root(ctl, "0215")
    sos_base(b, rc, ctl, pkgs=[("masakari-engine", "17.0.0-0ubuntu1~cloud0"), ("python3-masakari", "17.0.0-0ubuntu1~cloud0")])
    eng, napi, api = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid())
    api_accept(api, t0 - sec(0.3), era, req, USER, PROJ, "10.5.0.71")
    host_recovery(eng, napi, None, rng, era, t0, nid, req, "compute-9", insts, USER, PROJ,
                  stuck_instance=stuck if variant == "eventlet" else None)
    # debug noise from oslo.messaging / lockutils in the engine log around midnight (rotation boundary)
    eng.debug = True
    noise_debug(eng, t0 - sec(300), 60, rng, "oslo_concurrency.lockutils",
                ['Acquiring lock "masakari-%s" by "masakari.engine.manager.MasakariManager._process_notification.<locals>.do_process_notification"' % rng.uuid(),
                 'Lock "masakari-%s" "released" by "masakari.engine.manager.MasakariManager._process_notification.<locals>.do_process_notification" :: held 212.004s' % rng.uuid()],
                step=9)
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng, rotate_at=t0 + sec(120))
    b.log(rc + "/var/log/masakari/masakari-api.log", api)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    if variant == "eventlet":
        jt = t0 + sec(181)
        pid = eng.pid
        tb = ["Traceback (most recent call last):",
              '  File "/usr/lib/python3/dist-packages/eventlet/greenpool.py", line 87, in _spawn_n_impl',
              "    func(*args, **kwargs)",
              '  File "/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/host_failure.py", line 216, in _evacuate_and_confirm',
              "    instance_already_locked = self.novaclient.get_server(",
              '  File "/usr/lib/python3/dist-packages/masakari/compute/nova.py", line 84, in wrapper',
              "    raise exception.MasakariException(msg)",
              "masakari.exception.MasakariException: An unknown exception occurred."]
        b.lines(rc + "/sos_commands/logs/journalctl_--no-pager",
                [(jt, journal_prefix(ctl, jt, "masakari-engine", pid) + l) for l in tb])
        TRUTH.append(truth(name, 14, "fail", [{"detector": "pending-after-finished", "host": "compute-9", "instances": [stuck]}],
                           note="masakari 17 greenthread dies after get_server (traceback only in the journal); finished"))
    else:
        TRUTH.append(truth(name, 14, "healthy", [], note="three instances evacuated; engine log rotated mid-flow; DEBUG lock noise"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/unseen29"
    if os.path.isdir(out):
        for e in os.listdir(out):
            if e.startswith("u") and e[1:3].isdigit():
                shutil.rmtree(os.path.join(out, e))
    os.makedirs(out, exist_ok=True)
    c1_fail(out)
    c1_healthy(out)
    c2(out, False)
    c2(out, True)
    c3(out, "fqdn")
    c3(out, "maint")
    c3(out, "healthy")
    c4_k8s(out, False)
    c4_k8s(out, True)
    c4_consul(out, False)
    c4_consul(out, True)
    c5(out, False)
    c5(out, True)
    c6(out, False)
    c6(out, True)
    c7(out, False)
    c7(out, True)
    c8(out, False)
    c8(out, True)
    c9(out, "identity")
    c9(out, "rename")
    c9(out, "healthy")
    c10(out, False)
    c10(out, True)
    c11(out, False)
    c11(out, True)
    c12(out, False)
    c12(out, True)
    c13(out, False)
    c13(out, True)
    c14(out, "eventlet")
    c14(out, "pool")
    c14(out, "healthy")
    more(out)
    round2(out)
    round3(out)
    round4(out)
    dump_truth(out, TRUTH)
    print("%d bundles in %s" % (len(TRUTH), out))



# ------------------------------------------------------------------------------------------
# Harder variants: other releases' wording, other layouts and wrappers
# ------------------------------------------------------------------------------------------
def c1_journal(out, healthy):
    """Ubuntu sosreport, FQDN node names, monitoring_samples = 3, the monitor logging to the
    journal (no log_file). Failing: pacemaker 2.1.8 + monitors 20.0.0 ('_uncertain' then the
    epoch '0'); healthy: pacemaker 2.1.6 (online/offline) + the same monitors, notified."""
    name = "u01-sos-joinepoch-journal" + ("-pcmk216-healthy" if healthy else "")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(20)
    me = Host("cmp-a1.dc2.example.com", "Europe/Warsaw", 0)
    dead = "cmp-a2.dc2.example.com"
    other = "cmp-a3.dc2.example.com"
    rt = sos_root(me, "0917")
    sos_base(b, rt, me, pkgs=[("masakari-monitors-common", "20.0.0-0ubuntu1~cloud0"),
                              ("pacemaker", "2.1.6-5ubuntu2" if healthy else "2.1.8-1ubuntu1")])
    t0 = t("2025-09-17 05:00:00.250")
    death = t("2025-09-17 05:21:13.000")
    ep = {dead: "1758076810", other: "1758076812"}
    mon = Log(me, 3321)
    ctl = Host("juju-77aa01-0-lxd-4.dc2.example.com", "Europe/Warsaw", 6.0)
    rc = sos_root(ctl, "0917")
    sos_base(b, rc, ctl, pkgs=[("masakari-engine", "19.0.0-0ubuntu1~cloud0")])
    eng, api, napi = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid())
    hist = {dead: [], other: []}
    tt = t0
    k = 0
    sent = False
    while tt < death + sec(2400):
        down = tt > death + sec(25)
        for i, n in enumerate([dead, other]):
            if healthy:
                cur = "offline" if (n == dead and down) else "online"
            else:
                cur = "0" if (n == dead and down) else ep[n]
            hist[n] = (hist[n] + [cur])[-3:]
            stab = hist[n][0] if len(hist[n]) == 3 and len(set(hist[n])) == 1 else ("_uncertain" if len(hist[n]) == 3 else "_being_collected")
            u = tt + sec(0.3 + 0.01 * i)
            if k == 0:
                mon.add(u, "INFO", HM, NOCTX, "Recognized '%s' as a new member of cluster. Host status is '%s'." % (n, cur))
                continue
            mon.add(u, "INFO", HM, NOCTX, "'%s' is '%s' (current: '%s')." % (n, stab, cur))
            if n == dead and down and stab not in ("_being_collected",):
                prev = hist_prev.get(n)
                if stab != prev:
                    if stab in ("online", "offline"):
                        if not sent:
                            sent = True
                            payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                            send_notification_lines(mon, u + sec(0.01), n, payload, u)
                            nid, req = rng.uuid(), rng.req()
                            api_accept(api, u + sec(0.2), era, req, USER, PROJ, "10.12.0.21")
                            notification_response(mon, u + sec(0.3), rng, nid, n, payload, u)
                            host_recovery(eng, napi, None, rng, era, u + sec(0.4), nid, req, n, [rng.uuid(), rng.uuid()], USER, PROJ)
                    else:
                        mon.add(u + sec(0.001), "INFO", HM, NOCTX,
                                "Since host status is '%s', hostmonitor doesn't send a notification." % stab)
            hist_prev[n] = stab if stab != "_uncertain" else hist_prev.get(n)
        tt += sec(60)
        k += 1
        if k == 1:
            hist_prev.update({dead: hist[dead][-1], other: hist[other][-1]})
    b.lines(rt + "/sos_commands/logs/journalctl_--no-pager",
            [(u, journal_prefix(me, u, "masakari-hostmonitor", 3321) + l) for u, l in mon.lines])
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/masakari/masakari-api.log", api)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    if healthy:
        TRUTH.append(truth(name, 1, "healthy", [], note="pacemaker 2.1.6 online/offline: '_uncertain' twice, then offline notified"))
    else:
        TRUTH.append(truth(name, 1, "fail", [{"detector": "hostmonitor-join-epoch", "host": dead}],
                           note="samples=3: '_uncertain' then '0', each 'doesn't send'; journal only; FQDN"))


hist_prev = {}


def c3_old_monitors(out):
    """Monitors 13.0.0 (Yoga, pre-Zed brackets): a 400 is retried api_retry_max times, then
    'Exception caught'; masakari-api behind Apache (access log) with its own log."""
    name = "u03-juju-rejected-yoga-retries"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(13, zed=False)
    root = "juju-crashdump-%s" % rng.uuid()
    cmp1 = Host("az1-cmp-01", "UTC", 0)
    ctl = Host("juju-2f3e4d-0-lxd-2", "UTC", 0)
    juju_status(b, root, {"machines": [("0", "az1-cmp-01"), ("0/lxd/2", "juju-2f3e4d-0-lxd-2")],
                          "apps": {"masakari": [("masakari/0", "0/lxd/2")], "nova-compute": [("nova-compute/0", "0")]}})
    mon, api = Log(cmp1, rng.pid()), Log(ctl, rng.pid())
    t0 = t("2022-11-30 14:02:01.000")
    fq = "az1-cmp-02.maas"
    payload = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
    mon.add(t0, "INFO", HM, NOCTX, "'%s' is 'offline' (current: 'offline')." % fq)
    send_notification_lines(mon, t0 + sec(0.01), fq, payload, t0)
    acc = []
    for k in range(13):
        tt = t0 + sec(0.2 + 10 * k)
        exp = "Host with name %s could not be found." % fq
        api_accept(api, tt, era, rng.req(), USER, PROJ, "10.5.0.31", status=400, explanation=exp)
        acc.append((tt, apache_combined(ctl, tt, "10.5.0.31", "POST", "/v1/notifications", 400, 371,
                                        "openstacksdk/0.61.0 keystoneauth1/4.5.0 python-requests/2.25.1 CPython/3.8.10")))
        e = "BadRequestException: 400: Client Error for url: http://10.5.0.100:15868/v1/notifications, " + exp
        if k < 12:
            mon.add(tt + sec(0.1), "WARNING", "masakarimonitors.ha.masakari", NOCTX, "Retry sending a notification. (%s)" % e)
        else:
            mon.add(tt + sec(0.1), "ERROR", "masakarimonitors.ha.masakari", NOCTX, "Exception caught: %s" % e,
                    summary="openstack.exceptions.BadRequestException: " + e)
            mon.tb(tt + sec(0.1), "masakarimonitors.ha.masakari", [
                ("/usr/lib/python3/dist-packages/masakarimonitors/ha/masakari.py", 66, "send_notification",
                 "response = self.masakari_client.create_notification("),
                ("/usr/lib/python3/dist-packages/openstack/exceptions.py", 250, "raise_from_response",
                 "raise cls(")], "openstack.exceptions.BadRequestException: " + e)
    b.log(root + "/0/baremetal/var/log/masakarimonitors/masakari-hostmonitor.log", mon)
    b.log(root + "/0/lxd/2/var/log/masakari/masakari-api.log", api)
    b.lines(root + "/0/lxd/2/var/log/apache2/masakari_access.log", acc)
    TRUTH.append(truth(name, 3, "fail", [{"detector": "notification-rejected", "host": fq}],
                       note="monitors 13: 400 retried 12 times then 'Exception caught'"))


def c9_journal(out):
    """nova-compute under systemd without log_file: its lines only in the journal."""
    name = "u09-sos-compute-refuses-journal"
    b = Bundle(out, name)
    rng = Rng(name)
    h = Host("hv17.prod.example.net", "America/Chicago", 0)
    r = sos_root(h, "0305")
    sos_base(b, r, h, pkgs=[("nova-compute", "3:30.0.0-0ubuntu1~cloud0")])
    t0 = t("2025-03-05 02:10:00.000")
    msg = ("No local node identity found, but this is not our first startup on this host. Refusing to start after "
           "potentially having lost that state!")
    lines = []
    for k in range(3):
        pid = 2200 + k
        lg = Log(h, pid)
        tt = t0 + sec(15 * k)
        lg.add(tt, "INFO", "nova.service", NOCTX, "Starting compute node (version 30.0.0)")
        lg.add(tt + sec(1), "ERROR", "oslo_service.service", ctx_zed_admin(rng.req()), "Error starting thread.",
               summary="nova.exception.InvalidConfiguration: " + msg)
        lg.tb(tt + sec(1), "oslo_service.service", [
            ("/usr/lib/python3/dist-packages/oslo_service/service.py", 810, "run_service", "service.start()"),
            ("/usr/lib/python3/dist-packages/nova/compute/manager.py", 1489, "_ensure_existing_node_identity",
             "raise exception.InvalidConfiguration(")], "nova.exception.InvalidConfiguration: " + msg)
        lines += [(u, journal_prefix(h, u, "nova-compute", pid) + l) for u, l in lg.lines]
        ts = tt + sec(2)
        lines.append((ts, journal_prefix(h, ts, "systemd", 1) + "nova-compute.service: Main process exited, code=exited, status=1/FAILURE"))
    b.lines(r + "/sos_commands/logs/journalctl_--no-pager", lines)
    TRUTH.append(truth(name, 9, "fail", [{"detector": "compute-refuses-to-start", "host": "hv17.prod.example.net"}],
                       note="journal-only nova-compute (systemd), nova 30"))


def c10_py39(out):
    """RHEL 9 (python 3.9: no class name in the TypeError), Zed computes pin 6.1: one argument."""
    name = "u10-tripleo-rebuild-rpc-py39-zedpin"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(15)
    ctl = Host("overcloud-controller-1.localdomain", "UTC", 0)
    dst = Host("overcloud-novacompute-6.localdomain", "UTC", 0)
    rc, rd = sos_root(ctl, "0412"), sos_root(dst, "0412")
    sos_base(b, rc, ctl, rpm=[("openstack-nova-conductor", "27.1.1-1.el9ost")])
    sos_base(b, rd, dst, rpm=[("openstack-nova-compute", "27.1.1-1.el9ost")])
    t0 = t("2024-04-12 15:00:00.000")
    inst = rng.uuid()
    eng, napi, cond, dl = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(dst, rng.pid())
    cond.add(t0 - sec(900), "INFO", "nova.compute.rpcapi", ctx_zed_admin(rng.req()),
             "Automatically selected compute RPC version 6.1 from minimum service version 64")
    nid, req = rng.uuid(), rng.req()

    def dest_fail(dlog, when, dctx, i):
        te = "rebuild_instance() missing 1 required positional argument: 'target_state'"
        dlog.add(when, "ERROR", "oslo_messaging.rpc.server", dctx, "Exception during message handling", summary="TypeError: " + te)
        dlog.tb(when, "oslo_messaging.rpc.server", nc_frames("/usr/lib/python3.9/site-packages") + [
            ("/usr/lib/python3.9/site-packages/nova/exception_wrapper.py", 63, "wrapped", "return f(self, context, *args, **kw)")],
            "TypeError: " + te)

    host_recovery(eng, napi, [(dl, dest_fail)], rng, era, t0, nid, req, "overcloud-novacompute-0.localdomain", [inst], USER, PROJ,
                  evac_secs=95, fail_instance=inst, fail_text="Timeout for instance '%s' evacuation." % inst)
    b.log(rc + "/var/log/containers/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/containers/nova/nova-api.log", napi)
    b.log(rc + "/var/log/containers/nova/nova-conductor.log", cond)
    b.log(rd + "/var/log/containers/nova/nova-compute.log", dl)
    TRUTH.append(truth(name, 10, "fail", [{"detector": "rebuild-rpc-mismatch", "instances": [inst]}], allow=["recovery-failed"],
                       note="python 3.9 TypeError wording, 6.1 pin (Zed computes), one missing argument"))


def c12_eventlet(out):
    """nova-api under eventlet (nova.osapi_compute.wsgi.server) in Kolla, with Apache-less logs."""
    name = "u12-kolla-force-up-refused-eventlet"
    b = Bundle(out, name)
    rng = Rng(name)
    h = Host("controller-1", "UTC", 0)
    napi = Log(h, rng.pid())
    t0 = t("2023-09-04 10:00:00.000")
    svc = rng.uuid()
    msg = ("Unable to force up host compute-2 as `done` evacuation migration records remain associated with the host. "
           "Ensure the compute service has been restarted, allowing these records to move to `completed` before retrying this request.")
    ctx = ctx_zed(rng.req(), rng.hex32(), rng.hex32())
    napi.add(t0, "INFO", "nova.api.openstack.wsgi", ctx, "HTTP exception thrown: %s" % msg)
    napi.add(t0 + sec(0.01), "INFO", "nova.osapi_compute.wsgi.server", ctx,
             '192.168.20.5 "PUT /v2.1/os-services/%s HTTP/1.1" status: 400 len: 447 time: 0.0611243' % svc)
    b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
    TRUTH.append(truth(name, 12, "fail", [{"detector": "force-up-refused", "host": "compute-2"}],
                       note="eventlet nova-api (2023.x Kolla)"))


def c13_late_fence(out):
    """Fencing happened, but after the first evacuate call (pacemaker.log only, syslog wrapper)."""
    name = "u13-sos-fenced-after-evacuation"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    ctl = Host("hci-ctl-0", "Asia/Kolkata", 0)
    rc = sos_root(ctl, "0808")
    sos_base(b, rc, ctl, pkgs=[("masakari-engine", "17.0.0-0ubuntu1~cloud0"), ("pacemaker", "2.1.6-5ubuntu2")])
    t0 = t("2024-08-08 06:00:00.000")
    eng, napi = Log(ctl, rng.pid()), Log(ctl, rng.pid())
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, None, rng, era, t0, nid, req, "hci-cmp-4", [rng.uuid()], USER, PROJ, wait=60)
    fence = t0 + sec(60 + 200)
    pl = [(t0 - sec(70), pcmk_line(ctl, t0 - sec(70), "pacemaker-controld", 1880, "peer_update_callback", "info",
                                   "Remote node hci-cmp-4 is now lost (was member)")),
          (fence, pcmk_line(ctl, fence, "pacemaker-controld", 1880, "handle_fence_notification", "notice",
                            "Peer hci-cmp-4 was terminated (reboot) by hci-ctl-2 on behalf of pacemaker-controld.1880@hci-ctl-0: OK "
                            "| event=%s" % rng.uuid()))]
    b.lines(rc + "/var/log/pacemaker/pacemaker.log", pl)
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    TRUTH.append(truth(name, 13, "fail", [{"detector": "evacuated-unfenced", "host": "hci-cmp-4"}],
                       note="wait_period 60 s: evacuate at +61 s, fence completes at +260 s"))


def more(out):
    c1_journal(out, False)
    c1_journal(out, True)
    c3_old_monitors(out)
    c9_journal(out)
    c10_py39(out)
    c12_eventlet(out)
    c13_late_fence(out)



# ------------------------------------------------------------------------------------------
# Round 2: Apache-only API logs, crm_mon-only fencing, several recoveries in one bundle,
# pre-vmove masakari, snap layouts
# ------------------------------------------------------------------------------------------
def c6_apache_only(out):
    """Kolla 2024.1: masakari-api under Apache mod_wsgi: the 202 only in its access log
    (Kolla's LogFormat with %{X-Forwarded-For}i and %D); the engine consumes nothing."""
    name = "u06-kolla-engine-not-consuming-apache"
    b = Bundle(out, name)
    rng = Rng(name)
    h1 = Host("ctl-1", "UTC", 0)
    h2 = Host("ctl-2", "UTC", 22.0)
    t0 = t("2024-12-02 03:33:03.000")
    acc = []
    for k in range(2):
        tt = t0 + sec(900 * k)
        acc.append((tt, apache_kolla(h1, tt, "10.10.10.31" if k == 0 else "10.10.10.33", "POST", "/v1/notifications", 202, 912, 84213,
                                     "openstacksdk/3.0.0 keystoneauth1/5.6.0 python-requests/2.31.0 CPython/3.10.12")))
        acc.append((tt + sec(30), apache_kolla(h1, tt + sec(30), "10.10.10.5", "GET", "/v1/notifications?status=new", 200, 1311,
                                               12011, "python-masakariclient")))
    b.lines("ctl-1/var/log/kolla/masakari/masakari-api-access.log", acc)
    eng = Log(h2, 25)
    eng.add(t0 - sec(7200), "INFO", "masakari.engine.manager", NOCTX, "Starting masakari-engine (version 17.0.1)")
    eng.add(t0 - sec(7100), "ERROR", "oslo.messaging._drivers.impl_rabbit", NOCTX,
            "Connection failed: [Errno 111] ECONNREFUSED (retrying in 32.0 seconds)",
            summary="ConnectionRefusedError: [Errno 111] ECONNREFUSED")
    b.log("ctl-2/var/log/kolla/masakari/masakari-engine.log", eng)
    TRUTH.append(truth(name, 6, "fail", [{"detector": "engine-not-consuming"}],
                       note="only Apache's access log shows the 202s; engine silent after an AMQP failure"))


def c13_crm_mon(out, healthy):
    """Only `crm_mon -1 ...` output (its Fencing History section) tells of the fence."""
    name = "u13-sos-crm-mon-only" + ("-fenced-healthy" if healthy else "-unfenced")
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(16)
    ctl = Host("pcmk-ctl-a", "UTC", 0)
    rc = sos_root(ctl, "0130")
    sos_base(b, rc, ctl, pkgs=[("masakari-engine", "16.0.0-0ubuntu1~cloud0"), ("pacemaker", "2.1.2-1ubuntu3.3")])
    t0 = t("2024-01-30 21:40:00.000")
    eng, napi = Log(ctl, rng.pid()), Log(ctl, rng.pid())
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, None, rng, era, t0, nid, req, "pcmk-cmp-2", [rng.uuid()], USER, PROJ)
    mon = ["Cluster Summary:", "  * Stack: corosync", "  * Current DC: pcmk-ctl-b (version 2.1.2-ada5c3b36e2) - partition with quorum",
           "  * Last updated: Tue Jan 30 21:52:10 2024", "  * 6 nodes configured", "  * 14 resource instances configured", "",
           "Node List:", "  * Online: [ pcmk-ctl-a pcmk-ctl-b pcmk-ctl-c ]", "  * RemoteOnline: [ pcmk-cmp-1 pcmk-cmp-3 ]",
           "  * RemoteOFFLINE: [ pcmk-cmp-2 ]", ""]
    if healthy:
        fd = t0 + sec(40)
        mon += ["Fencing History:",
                "  * reboot of pcmk-cmp-2 successful: delegate=pcmk-ctl-c, client=pacemaker-controld.1702, origin=pcmk-ctl-b, "
                "completed='%s +00:00'" % fd.strftime("%Y-%m-%d %H:%M:%S.%f")]
    else:
        mon += ["Failed Fencing Actions:",
                "  * reboot of pcmk-cmp-2 failed: delegate=pcmk-ctl-c, client=pacemaker-controld.1702, origin=pcmk-ctl-b, "
                "last-failed='%s +00:00'" % (t0 + sec(40)).strftime("%Y-%m-%d %H:%M:%S.%f")]
    b.write(rc + "/sos_commands/pacemaker/crm_mon_-1_-A_-n_-r_-t", "\n".join(mon) + "\n")
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    if healthy:
        TRUTH.append(truth(name, 13, "healthy", [], note="crm_mon fencing history: reboot OK 40 s after the notification"))
    else:
        TRUTH.append(truth(name, 13, "fail", [{"detector": "evacuated-unfenced", "host": "pcmk-cmp-2"}],
                           note="crm_mon: the fence of pcmk-cmp-2 failed; evacuated anyway"))


def c14_two_hosts(out):
    """Masakari 13 (before vmoves, pre-Zed brackets), juju-crashdump: two notifications in
    one bundle, compute-4 recovered, compute-9 left one instance behind."""
    name = "u14-juju-two-recoveries-one-pending-yoga"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(13, zed=False)
    root = "juju-crashdump-%s" % rng.uuid()
    ctl = Host("juju-aa01bb-2-lxd-6", "UTC", 0)
    juju_status(b, root, {"machines": [("2/lxd/6", "juju-aa01bb-2-lxd-6")], "apps": {"masakari": [("masakari/1", "2/lxd/6")]}})
    t0 = t("2022-07-19 13:04:00.000")
    eng, napi, api = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(ctl, rng.pid())
    good = [rng.uuid(), rng.uuid()]
    bad = [rng.uuid(), rng.uuid()]
    n1, r1, n2, r2 = rng.uuid(), rng.req(), rng.uuid(), rng.req()
    api_accept(api, t0, era, r1, USER, PROJ, "10.5.0.44")
    host_recovery(eng, napi, None, rng, era, t0 + sec(0.2), n1, r1, "compute-4.maas", good, USER, PROJ)
    api_accept(api, t0 + sec(40), era, r2, USER, PROJ, "10.5.0.49")
    host_recovery(eng, napi, None, rng, era, t0 + sec(40.2), n2, r2, "compute-9.maas", bad, USER, PROJ, stuck_instance=bad[0])
    b.log(root + "/2/lxd/6/var/log/masakari/masakari-engine.log", eng)
    b.log(root + "/2/lxd/6/var/log/masakari/masakari-api.log", api)
    b.log(root + "/2/lxd/6/var/log/nova/nova-api-wsgi.log", napi)
    TRUTH.append(truth(name, 14, "fail", [{"detector": "pending-after-finished", "host": "compute-9.maas", "instances": [bad[0]],
                                           "not_instances": good + [bad[1]]}],
                       note="two flows, only compute-9's first instance never evacuated (masakari 13)"))


def c11_sunbeam(out):
    """Sunbeam: hypervisor snap nova-compute log, cinder-api pod log; two BFV instances from
    one host: one attachment update 500s (nova 28, no retry), the other evacuates."""
    name = "u11-sunbeam-cinder-500-one-of-two"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    ctl = Host("sunbeam-ctl-2", "UTC", 0)
    hv = Host("hv-07.lab.local", "UTC", -12.0)
    rc, rh = sos_root(ctl, "0611"), sos_root(hv, "0611")
    sos_base(b, rc, ctl)
    sos_base(b, rh, hv)
    t0 = t("2024-06-11 08:15:00.000")
    eng, napi, cin = Log(ctl, 19), Log(ctl, 31), Log(ctl, 44)
    dl = Log(hv, rng.pid())
    insts = [rng.uuid(), rng.uuid()]
    nid, req = rng.uuid(), rng.req()
    att = rng.uuid()

    def dest(dlog, when, dctx, i):
        creq = rng.req()
        cin.add(when, "ERROR", "cinder.api.v3.attachments", "[%s %s %s %s - default default]" % (req, creq, USER, PROJ),
                "Unable to update the attachment.", summary="cinder.exception.VolumeBackendAPIException: Bad or unexpected response "
                "from the storage volume backend API: Unable to fetch connection information from backend: timed out")
        dlog.add(when + sec(0.2), "ERROR", "nova.volume.cinder", dctx,
                 "Update attachment failed for attachment %s. Error: Unable to update the attachment. (HTTP 500) (Request-ID: %s) Code: 500"
                 % (att, creq))
        dlog.add(when + sec(1), "ERROR", "nova.compute.manager", dctx, "Setting instance vm_state to ERROR", instance=i,
                 summary="cinderclient.exceptions.ClientException: Unable to update the attachment. (HTTP 500) (Request-ID: %s)" % creq)

    host_recovery(eng, napi, [(dl, dest)], rng, era, t0, nid, req, "hv-03.lab.local", insts, USER, PROJ, evac_secs=40,
                  fail_instance=insts[0], fail_text="Failed to evacuate instance %s" % insts[0])
    base = rc + "/sos_commands/kubernetes/cluster-info/openstack/podlogs/"
    b.lines(base + "masakari-0/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-engine",
            [(u, pebble(u, "masakari-engine", l, ctl)) for u, l in eng.lines])
    b.lines(base + "nova-0/k8s_kubectl_--namespace_openstack_logs_nova-0_-c_nova-api",
            [(u, pebble(u, "wsgi-nova-api", l, ctl)) for u, l in napi.lines])
    b.lines(base + "cinder-0/k8s_kubectl_--namespace_openstack_logs_cinder-0_-c_cinder-api",
            [(u, pebble(u, "wsgi-cinder-api", l, ctl)) for u, l in cin.lines])
    b.log(rh + "/var/snap/openstack-hypervisor/common/log/nova/nova-compute.log", dl)
    TRUTH.append(truth(name, 11, "fail", [{"detector": "cinder-attachment-500", "instances": [insts[0]], "not_instances": [insts[1]]}],
                       allow=["recovery-failed"], note="one of two BFV evacuations stopped by a Cinder 500"))


def round2(out):
    c6_apache_only(out)
    c13_crm_mon(out, False)
    c13_crm_mon(out, True)
    c14_two_hosts(out)
    c11_sunbeam(out)



# ------------------------------------------------------------------------------------------
# Round 3: COMPUTE_HOST stuck, a healthy flow beside the duplicate ones, nova 31's handled
# restart, a pacemaker-remote stand-down without DEBUG, the greenthread's stderr in docker
# ------------------------------------------------------------------------------------------
def c5_host(out):
    name = "u05-kolla-host-notification-stuck-zed"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(14)
    H = kolla_cloud(rng, tz="Europe/London")
    eng = Log(H["controller-2"], rng.pid())
    t0 = t("2023-03-25 23:30:00.000")  # the clocks go forward in London the next night
    nid, req = rng.uuid(), rng.req()
    ctx = era.api_ctx(req, USER, PROJ)
    eng.add(t0, "INFO", "masakari.engine.manager", ctx, "Processing notification %s of type: COMPUTE_HOST" % nid)
    loc = rng.req()
    eng.add(t0 + sec(0.1), "INFO", "masakari.compute.nova", era.nc_ctx(req, loc), "Disable nova-compute on compute-3")
    msg = "(pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')"
    eng.add(t0 + sec(0.6), "ERROR", "oslo_messaging.rpc.server", era.nc_ctx(req, loc), "Exception during message handling",
            summary="oslo_db.exception.DBConnectionError: " + msg)
    eng.tb(t0 + sec(0.6), "oslo_messaging.rpc.server", nc_frames("/var/lib/kolla/venv/lib/python3.10/site-packages") + [
        ("/var/lib/kolla/venv/lib/python3.10/site-packages/masakari/engine/manager.py", 221, "_handle_notification_type_host",
         "host_obj.save()")], "oslo_db.exception.DBConnectionError: " + msg)
    eng.add(t0 + sec(24 * 3600 + 130), "ERROR", "masakari.engine.manager", era.admin_ctx(rng.req()),
            "Periodic task 'check_expired_notifications': Notification %s is expired." % nid)
    b.log("controller-2/var/log/kolla/masakari/masakari-engine.log", eng, rotate_at=t0 + sec(6 * 3600))
    TRUTH.append(truth(name, 5, "fail", [{"detector": "notification-stuck-running", "notification": nid}],
                       note="masakari 14, COMPUTE_HOST: DB error escapes the flow; expired a day later across a DST change"))


def c7_beside(out):
    """Two flows for compute-2 while compute-5's single flow recovers at the same time."""
    name = "u07-sos-two-flows-beside-a-healthy-one"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(16)
    c1 = Host("juju-c0ffee-0-lxd-3", "UTC", 0)
    c2 = Host("juju-c0ffee-1-lxd-3", "UTC", -33.0)
    r1, r2 = sos_root(c1, "0509"), sos_root(c2, "0509")
    sos_base(b, r1, c1, pkgs=[("masakari-engine", "16.0.0-0ubuntu1~cloud0")])
    sos_base(b, r2, c2, pkgs=[("masakari-engine", "16.0.0-0ubuntu1~cloud0")])
    t0 = t("2023-05-09 11:11:11.000")
    e1, e2, n1, n2, a1, a2 = (Log(c1, rng.pid()), Log(c2, rng.pid()), Log(c1, rng.pid()), Log(c2, rng.pid()),
                              Log(c1, rng.pid()), Log(c2, rng.pid()))
    dup = [rng.uuid(), rng.uuid()]
    fine = [rng.uuid(), rng.uuid()]
    na, ra, nb, rb, nc, rc = rng.uuid(), rng.req(), rng.uuid(), rng.req(), rng.uuid(), rng.req()
    api_accept(a1, t0, era, ra, USER, PROJ, "10.5.0.21")
    api_accept(a2, t0 + sec(0.02), era, rb, USER, PROJ, "10.5.0.23")
    api_accept(a2, t0 + sec(7), era, rc, USER, PROJ, "10.5.0.25")
    host_recovery(e1, n1, None, rng, era, t0 + sec(0.2), na, ra, "compute-2", dup, USER, PROJ)
    conflict = {i: "Cannot 'evacuate' instance %s while it is in task_state rebuilding" % i for i in dup}
    host_recovery(e2, n2, None, rng, era, t0 + sec(0.3), nb, rb, "compute-2", dup, USER, PROJ, conflict=conflict)
    host_recovery(e2, n2, None, rng, era, t0 + sec(7.2), nc, rc, "compute-5", fine, USER, PROJ)
    for r, e, n, a in [(r1, e1, n1, a1), (r2, e2, n2, a2)]:
        b.log(r + "/var/log/masakari/masakari-engine.log", e)
        b.log(r + "/var/log/nova/nova-api-wsgi.log", n)
        b.log(r + "/var/log/masakari/masakari-api.log", a)
    TRUTH.append(truth(name, 7, "fail", [{"detector": "duplicate-host-flows", "host": "compute-2", "instances": dup,
                                          "not_instances": fine}], allow=["recovery-failed"],
                       note="masakari 16 without coordination; compute-5's flow on the same engine at the same time is fine"))


def c8_fixed(out):
    """nova 31 (bug 2085975 fixed): the source restarts mid-evacuation, the shared-storage
    check goes to the destination, the evacuation completes."""
    name = "u08-sos-source-restart-mid-nova31-healthy"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(19)
    ctl = Host("ctl-3.example", "UTC", 0)
    src = Host("cmp-11.example", "UTC", 9.0)
    dst = Host("cmp-12.example", "UTC", 0)
    rc, rs, rd = sos_root(ctl, "0305"), sos_root(src, "0305"), sos_root(dst, "0305")
    for r, h in [(rc, ctl), (rs, src), (rd, dst)]:
        sos_base(b, r, h, pkgs=[("nova-compute", "3:31.0.0-0ubuntu1~cloud0"), ("nova-common", "3:31.0.0-0ubuntu1~cloud0")])
    t0 = t("2025-03-05 18:00:00.000")
    eng, napi, sl, dl = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(src, rng.pid()), Log(dst, rng.pid())
    inst = rng.uuid()
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, [(dl, None)], rng, era, t0, nid, req, "cmp-11.example", [inst], USER, PROJ, evac_secs=140)
    restart = t0 + sec(180 + 8)
    sl.add(restart, "INFO", "nova.service", NOCTX, "Starting compute node (version 31.0.0)")
    sl.add(restart + sec(9), "INFO", "nova.compute.manager", ctx_zed_admin(rng.req()),
           "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", instance=inst)
    sl.add(restart + sec(10), "INFO", "nova.virt.libvirt.driver", ctx_zed_admin(rng.req()),
           "Instance destroyed successfully.", instance=inst)
    for r, l, p in [(rc, eng, "var/log/masakari/masakari-engine.log"), (rc, napi, "var/log/nova/nova-api-wsgi.log"),
                    (rs, sl, "var/log/nova/nova-compute.log"), (rd, dl, "var/log/nova/nova-compute.log")]:
        b.log(r + "/" + p, l)
    TRUTH.append(truth(name, 8, "healthy", [], note="nova 31: the restart mid-evacuation is handled, evacuation completes"))


def c2_remote(out):
    """A pacemaker-remote compute's monitor: 'Neither pacemaker nor pacemaker-remote is
    running.' for 9 cycles while another compute dies; nova without DEBUG (no host named)."""
    name = "u02-kolla-monitor-no-pacemaker-remote"
    b = Bundle(out, name)
    rng = Rng(name)
    H = kolla_cloud(rng, tz="UTC")
    mon = Log(H["compute-1"], rng.pid())
    t0 = t("2025-05-05 06:00:00.000")
    for k in range(20):
        tt = t0 + sec(60 * k)
        if 5 <= k < 14:
            mon.add(tt, "WARNING", HM, NOCTX, "Failed to check pacemaker service 'pacemaker_remote'.")
            mon.add(tt + sec(0.01), "ERROR", HM, NOCTX, "Neither pacemaker nor pacemaker-remote is running.")
            mon.add(tt + sec(0.02), "WARNING", HM, NOCTX, "hostmonitor skips monitoring hosts.")
        else:
            mon.add(tt, "INFO", HM, NOCTX, "Works on pacemaker-remote.")
            for n in ["compute-2", "compute-3"]:
                mon.add(tt + sec(0.2), "INFO", HM, NOCTX, "'%s' is 'online' (current: 'online')." % n)
    b.log("compute-1/var/log/kolla/masakari/masakari-hostmonitor.log", mon)
    TRUTH.append(truth(name, 2, "fail", [{"detector": "hostmonitor-stood-down"}],
                       note="9 cycles without pacemaker-remote (monitors 21 log the service check warning)"))


def c14_docker(out):
    """Kolla, eventlet engine: the greenthread's traceback only on the container's stderr
    (docker json-file log); the oslo log shows get_server without evacuate, then finished."""
    name = "u14-kolla-pending-docker-stderr"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    H = kolla_cloud(rng, tz="UTC")
    t0 = t("2024-09-09 09:09:09.000")
    eng, napi = Log(H["controller-1"], rng.pid()), Log(H["controller-1"], rng.pid())
    insts = [rng.uuid(), rng.uuid()]
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, None, rng, era, t0, nid, req, "compute-3", insts, USER, PROJ, stuck_instance=insts[0])
    b.log("controller-1/var/log/kolla/masakari/masakari-engine.log", eng)
    b.log("controller-1/var/log/kolla/nova/nova-api.log", napi)
    cid = "%064x" % rng.r.getrandbits(256)
    tb = ["Traceback (most recent call last):\n",
          '  File "/var/lib/kolla/venv/lib/python3.10/site-packages/eventlet/greenpool.py", line 87, in _spawn_n_impl\n',
          "    func(*args, **kwargs)\n",
          "keystoneauth1.exceptions.connection.ConnectFailure: Unable to establish connection to https://192.168.20.250:8774/v2.1/servers/%s: "
          "HTTPSConnectionPool(host='192.168.20.250', port=8774): Max retries exceeded\n" % insts[0]]
    ts = t0 + sec(182)
    lines = []
    for k, l in enumerate(tb):
        u = ts + sec(0.001 * k)
        lines.append((u, '{"log":%s,"stream":"stderr","time":"%s.%06dZ"}' % (
            json_str(l), u.strftime("%Y-%m-%dT%H:%M:%S"), u.microsecond)))
    b.lines("controller-1/var/lib/docker/containers/%s/%s-json.log" % (cid, cid), lines)
    b.write("controller-1/var/lib/docker/containers/%s/config.v2.json" % cid,
            '{"ID":"%s","Name":"/masakari_engine","Config":{"Hostname":"controller-1","Image":"quay.io/openstack.kolla/masakari-engine:2024.1-ubuntu-jammy"}}\n' % cid)
    TRUTH.append(truth(name, 14, "fail", [{"detector": "pending-after-finished", "host": "compute-3", "instances": [insts[0]]}],
                       note="eventlet greenthread died on ConnectFailure; traceback only in the container's stderr"))


def json_str(s):
    import json as _j
    return _j.dumps(s)


def round3(out):
    c5_host(out)
    c7_beside(out)
    c8_fixed(out)
    c2_remote(out)
    c14_docker(out)



def c6_tz_healthy(out):
    """Kolla folder without any zone file: Apache's access log says -0500, the engine's oslo
    lines are New York local time with no designator; the engine processed the notification."""
    name = "u06-kolla-apache-newyork-healthy"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(17)
    h = Host("ctl-1", "America/New_York", 0)
    t0 = t("2024-12-02 15:33:03.000")
    acc = [(t0, apache_kolla(h, t0, "10.10.10.31", "POST", "/v1/notifications", 202, 912, 84213,
                             "openstacksdk/3.0.0 keystoneauth1/5.6.0 python-requests/2.31.0 CPython/3.10.12"))]
    for k in range(1, 40):
        u = t0 + sec(30 * k)
        acc.append((u, apache_kolla(h, u, "10.10.10.5", "GET", "/v1/notifications?status=running", 200, 1311, 12011,
                                    "python-masakariclient")))
    b.lines("ctl-1/var/log/kolla/masakari/masakari-api-access.log", acc)
    eng, napi = Log(h, 25), Log(h, 31)
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, None, rng, era, t0 + sec(0.3), nid, req, "compute-7", [rng.uuid()], USER, PROJ)
    b.log("ctl-1/var/log/kolla/masakari/masakari-engine.log", eng)
    b.log("ctl-1/var/log/kolla/nova/nova-api.log", napi)
    TRUTH.append(truth(name, 6, "healthy", [], note="no zone file; access log -0500; engine processed at once"))


def c10_other_typeerror_healthy(out):
    """A TypeError in another RPC method of an upgraded compute, an evacuation that succeeds."""
    name = "u10-sos-other-typeerror-healthy"
    b = Bundle(out, name)
    rng = Rng(name)
    era = Era(15)
    ctl = Host("ctl-x", "UTC", 0)
    dst = Host("cmp-x2", "UTC", 0)
    rc, rd = sos_root(ctl, "0301"), sos_root(dst, "0301")
    sos_base(b, rc, ctl, pkgs=[("nova-conductor", "3:27.1.0-0ubuntu1~cloud0")])
    sos_base(b, rd, dst, pkgs=[("nova-compute", "3:27.1.0-0ubuntu1~cloud0")])
    t0 = t("2024-03-02 10:00:00.000")
    eng, napi, dl = Log(ctl, rng.pid()), Log(ctl, rng.pid()), Log(dst, rng.pid())
    te = "ComputeManager.external_instance_event() got an unexpected keyword argument 'request_spec'"
    dctx = ctx_zed(rng.req(), USER, PROJ)
    dl.add(t0 - sec(600), "ERROR", "oslo_messaging.rpc.server", dctx, "Exception during message handling", summary="TypeError: " + te)
    dl.tb(t0 - sec(600), "oslo_messaging.rpc.server", nc_frames(), "TypeError: " + te)
    nid, req = rng.uuid(), rng.req()
    host_recovery(eng, napi, [(dl, None)], rng, era, t0, nid, req, "cmp-x1", [rng.uuid()], USER, PROJ)
    b.log(rc + "/var/log/masakari/masakari-engine.log", eng)
    b.log(rc + "/var/log/nova/nova-api-wsgi.log", napi)
    b.log(rd + "/var/log/nova/nova-compute.log", dl)
    TRUTH.append(truth(name, 10, "healthy", [], note="TypeError in external_instance_event, not rebuild; evacuation fine"))


def round4(out):
    c6_tz_healthy(out)
    c10_other_typeerror_healthy(out)


if __name__ == "__main__":
    main()
