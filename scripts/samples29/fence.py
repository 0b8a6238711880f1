"""Class 13: a host evacuated before the cluster fenced it (and the look-alike fenced first).

Formats: Pacemaker 2.1.2 (Ubuntu 22.04): stonith history lines from lib/fencing/st_output.c
(stonith_event_text), fenced's 'Operation ... targeting ...' (daemons/fenced/fenced_remote.c:556),
controld's 'Peer ... was terminated ...' (daemons/controld/controld_fencing.c:503); Masakari
13.0.0 (Yoga) engine lines as in dup.py.
"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

VMS = ["5c8e1a3f-2b7d-4e96-8a40-1f3d9c6b2e75", "e2a7c4d9-6f1b-4b38-9e05-7a2d8c3f1b64"]
N = "3f9d2b6e-8a1c-4e57-b0d3-6c2a9e4f1b87"
USER, PROJ = "c81d4f2a9e3b47d6a05e1f7b2c9d3e68", "f2b6a1d9c4e8437b9a0d5e3c7b1f6a24"
T0 = datetime(2024, 5, 21, 10, 0, 33, 412000)
PKGS = [("masakari-engine", "13.0.0-0ubuntu1", "all", "OpenStack Masakari - engine"),
        ("python3-masakari", "13.0.0-0ubuntu1", "all", "OpenStack Masakari - Python 3 libraries"),
        ("nova-api", "3:25.2.1-0ubuntu2", "all", "OpenStack Compute - API frontend"),
        ("python3-nova", "3:25.2.1-0ubuntu2", "all", "OpenStack Compute Python 3 libraries"),
        ("pacemaker", "2.1.2-1ubuntu3.3", "amd64", "cluster resource manager"),
        ("pcs", "0.10.11-2ubuntu3", "all", "Pacemaker Configuration System")]
REQS = iter(["req-%08x-5d2e-4b1a-9c3f-%012x" % (0x6a1e0c00 + k, 0x7e2b9d4a1c00 + k) for k in range(40)])


def ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)


def engine_and_api():
    eng, api = [], []

    def e(dt, lvl, logger, ctx, msg):
        eng.append(f"{ts(T0 + timedelta(seconds=dt))} 2231 {lvl} {logger} [{ctx}] {msg}")

    def a(dt, r, line):
        api.append(f"{ts(T0 + timedelta(seconds=dt))} 4127 INFO nova.api.openstack.requestlog [{r} {USER} {PROJ} - default default] {line}")
    first = next(REQS)
    e(0, "INFO", "masakari.engine.manager", f"{first} {USER} {PROJ} - - -", f"Processing notification {N} of type: COMPUTE_HOST")
    r = next(REQS)
    e(0.2, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", "Disable nova-compute on compute-1")
    a(0.3, r, '10.20.0.11 "GET /v2.1/os-services?binary=nova-compute&host=compute-1" status: 200 len: 403 microversion: 2.53 time: 0.040817')
    a(0.4, r, '10.20.0.11 "PUT /v2.1/os-services/8b2d6e1f-3c9a-4f70-a5d4-2e1b7c9f3a06" status: 200 len: 396 microversion: 2.53 time: 0.071402')
    e(0.5, "INFO", "masakari.engine.drivers.taskflow.host_failure", f"{r} masakari - - - -",
      "Sleeping 180 sec before starting recovery thread until nova recognizes the node down.")
    r = next(REQS)
    e(180.6, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", "Fetch Server list on compute-1")
    a(180.7, r, '10.20.0.11 "GET /v2.1/servers/detail?all_tenants=True&host=compute-1" status: 200 len: 3811 microversion: 2.53 time: 0.208113')
    dt = 181.0
    for vm in VMS:
        r = next(REQS)
        e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call get server command for instance {vm}")
        a(dt + 0.09, r, f'10.20.0.11 "GET /v2.1/servers/{vm}" status: 200 len: 1890 microversion: 2.53 time: 0.080112')
        r = next(REQS)
        e(dt + 0.2, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call lock server command for instance {vm}")
        a(dt + 0.28, r, f'10.20.0.11 "POST /v2.1/servers/{vm}/action" status: 202 len: 0 microversion: 2.53 time: 0.061554')
        r = next(REQS)
        e(dt + 0.35, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call evacuate command for instance {vm} on host None")
        a(dt + 0.61, r, f'10.20.0.11 "POST /v2.1/servers/{vm}/action" status: 200 len: 34 microversion: 2.53 time: 0.254108')
        dt += 0.7
    for k in range(4):
        for vm in VMS:
            r = next(REQS)
            e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call get server command for instance {vm}")
            dt += 0.6
    for vm in VMS:
        e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call unlock server command for instance {vm}")
        dt += 0.3
    e(dt + 0.2, "INFO", "masakari.engine.manager", f"{r} masakari - - - -", f"Notification {N} exits with status: finished.")
    start = "2024-05-21 06:12:40.118 2231 INFO masakari.service [-] Starting engine (version 13.0.0)"
    return "\n".join([start] + eng), "\n".join(api)


def fencing(fenced_first):
    """(pcs stonith history, crm_mon, syslog lines): attempts at the given times."""
    # (time, ok, id) of each reboot of compute-1, oldest first.
    if fenced_first:
        attempts = [(datetime(2024, 5, 21, 10, 1, 26), True, "7d3b1e9a")]
    else:
        attempts = [(datetime(2024, 5, 21, 10, 1, 26), False, "7d3b1e9a"),
                    (datetime(2024, 5, 21, 10, 2, 31), False, "0c5e8f21"),
                    (datetime(2024, 5, 21, 10, 5, 58), True, "b94a2d6c")]
    hist, syslog = [], []
    later_ok = any(ok for _, ok, _ in attempts)
    for t, ok, op in reversed(attempts):  # newest first, as stonith__sort_history
        when = t.strftime("%Y-%m-%d %H:%M:%SZ")
        if ok:
            hist.append(f"reboot of compute-1 successful: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, completed='{when}'")
        else:
            hist.append(f"reboot of compute-1 failed: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, completed='{when}' "
                        + ("(a later attempt succeeded)" if later_ok else ""))
    for t, ok, op in attempts:
        stamp = t.strftime("%b %d %H:%M:%S")
        ref = f"{op}-4c1e-4f0a-9b62-5d2e8b1a4f90"
        if ok:
            syslog.append(f"{stamp} ctl-1 pacemaker-fenced[2152]:  notice: Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK | id={op}")
            syslog.append(f"{stamp} ctl-1 pacemaker-controld[2156]:  notice: Peer compute-1 was terminated (reboot) by ctl-2 on behalf of pacemaker-controld.2156: OK | initiator=ctl-1 ref={ref}")
        else:
            syslog.append(f"{stamp} ctl-1 pacemaker-fenced[2152]:  error: Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: Timer expired | id={op}")
            syslog.append(f"{stamp} ctl-1 pacemaker-controld[2156]:  notice: Peer compute-1 was not terminated (reboot) by ctl-2 on behalf of pacemaker-controld.2156: Timer expired | initiator=ctl-1 ref={ref}")
    failed = [h for h in hist if " failed:" in h]
    # crm_mon's default section (2.1.2 `failed-stonith-event` list item: "failed : delegate=").
    crm_mon = ("Cluster Summary:\n  * Stack: corosync\n  * Current DC: ctl-1 (version 2.1.2-ada5c3b36e2) - partition with quorum\n"
               "  * Last updated: Tue May 21 11:40:12 2024\n  * 3 nodes configured\n  * 2 remote nodes configured\n\n"
               "Node List:\n  * Online: [ ctl-1 ctl-2 ctl-3 ]\n  * RemoteOnline: [ compute-1 compute-2 ]\n")
    if failed:
        crm_mon += "\nFailed Fencing Actions:\n" + "".join(f"  * {h.replace(' failed:', ' failed :').replace('completed=', 'last-failed=')}\n" for h in failed[:1])
    return "\n".join(hist), crm_mon, syslog


def build(name, fenced_first):
    d = fresh(name)
    ctl = sos_host(d, "sosreport-ctl-1-2024-05-21-hk3vqa", "ctl-1", "Tue May 21 11:40:02 UTC 2024", PKGS)
    eng, api = engine_and_api()
    write(ctl, "etc/masakari/masakari.conf", "[DEFAULT]\nwait_period_after_service_update = 180\n\n[host_failure]\nevacuate_all_instances = True\n")
    write(ctl, "var/log/masakari/masakari-engine.log", eng)
    write(ctl, "var/log/nova/nova-api-wsgi.log", api)
    hist, crm_mon, fence_syslog = fencing(fenced_first)
    write(ctl, "sos_commands/pacemaker/pcs_stonith_history_show", hist)
    write(ctl, "sos_commands/pacemaker/crm_mon_-1_-A_-n_-r_-t", crm_mon)
    syslog = ["May 21 09:58:01 ctl-1 CRON[88412]: (root) CMD (   test -x /etc/cron.daily/popularity-contest && /etc/cron.daily/popularity-contest --crond-daily)"]
    syslog += fence_syslog
    syslog.append("May 21 11:39:58 ctl-1 systemd[1]: Started Session 412 of User ubuntu.")
    write(ctl, "var/log/syslog", "\n".join(syslog))


build("2024-sosreport-evacuated-unfenced", False)
build("2024-sosreport-evacuated-after-fencing", True)
