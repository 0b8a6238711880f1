"""Run one real-stack scenario and leave its bundle and ground truth in OUT.

    python scenario.py NAME OUT [--port-base N]

OUT/bundle/<host>/... is the bundle (logs and the configs the services ran with);
OUT/ground_truth.json says what happened, from the services' own APIs (Masakari's
notification status, Nova's view of each server), not from the logs.

Scenarios:
  race      service_down_time 180, wait_period_after_service_update 10, cmp1 crashed 9 s
            before the notification: Nova refuses the evacuations (400, still in use),
            Masakari retries and ends failed.
  defaults  the same cloud with Nova's and Masakari's defaults (60 s / 180 s): the
            evacuations are accepted, the notification finishes.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import time

import openstack

from stack import CONTROLLER, PASSWORD, Stack, log

IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"  # GlanceFixture.image1
COMPUTES = ["cmp1", "cmp2"]
FAILED = "cmp1"

SCENARIOS = {
    "race": {
        "nova": {"service_down_time": "180"},
        "masakari": {"wait_period_after_service_update": "10",
                     "process_unfinished_notifications_interval": "30",
                     "retry_notification_new_status_interval": "30"},
        "lead": 9,
        "servers": 2,
        "expect_status": "failed",
        "expected": "evacuate-400-race",
    },
    "defaults": {
        "nova": {},
        "masakari": {},
        "lead": 9,
        "servers": 2,
        "expect_status": "finished",
        "expected": "healthy",
    },
}


def connect(stack, user="admin", project="admin"):
    return openstack.connect(auth_url=stack.auth_url, username=user, password=PASSWORD,
                             project_name=project, user_domain_id="default",
                             project_domain_id="default", region_name="RegionOne",
                             compute_api_version="2.95")


def wait_until(what, fn, timeout, every=2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(every)
    raise RuntimeError("timed out after %d s waiting for %s" % (timeout, what))


def boot(conn, n):
    ids = []
    for i in range(n):
        r = conn.compute.post("/servers", json={"server": {
            "name": "vm%d" % (i + 1), "imageRef": IMAGE, "flavorRef": "1",
            "networks": "none", "availability_zone": "nova:%s" % FAILED}},
            microversion="2.95")
        if r.status_code != 202:
            raise RuntimeError("boot: %s %s" % (r.status_code, r.text))
        ids.append(r.json()["server"]["id"])

    def all_active():
        states = [conn.compute.get_server(i).status for i in ids]
        if "ERROR" in states:
            raise RuntimeError("a server went to ERROR while booting")
        return all(s == "ACTIVE" for s in states)

    wait_until("servers ACTIVE", all_active, 120)
    return ids


def bundle_logs(bundle):
    """Each log file of the bundle and the service that wrote it (its file name: each
    service logs to <service>.log)."""
    out = {}
    for d, _, files in os.walk(bundle):
        for f in files:
            if f.endswith(".log"):
                rel = os.path.relpath(os.path.join(d, f), bundle)
                out[rel] = f[: -len(".log")]
    return out


def run(name, out, port_base, venv):
    sc = SCENARIOS[name]
    shutil.rmtree(out, ignore_errors=True)
    bundle = os.path.join(out, "bundle")
    os.makedirs(bundle)
    for h in [CONTROLLER] + COMPUTES:
        os.makedirs(os.path.join(bundle, h, "etc"), exist_ok=True)
        with open(os.path.join(bundle, h, "etc/hostname"), "w") as f:
            f.write(h + "\n")
        with open(os.path.join(bundle, h, "etc/timezone"), "w") as f:
            f.write("Etc/UTC\n")
    stack = Stack(os.path.join(out, "work"), bundle, venv, port_base)
    try:
        log("%s: keystone" % name)
        stack.start_keystone()
        log("%s: rabbitmq" % name)
        stack.start_rabbit()
        log("%s: nova (api, conductor, scheduler, %s)" % (name, ", ".join(COMPUTES)))
        stack.start_nova(sc["nova"], COMPUTES)
        log("%s: masakari-api, masakari-engine" % name)
        stack.start_masakari(sc["masakari"])
        conn = connect(stack)
        servers = boot(conn, sc["servers"])
        log("%s: %d servers ACTIVE on %s" % (name, len(servers), FAILED))
        ha = connect(stack, "masakari", "service")
        seg = ha.instance_ha.create_segment(name="seg1", recovery_method="auto",
                                            service_type="COMPUTE")
        for h in COMPUTES:
            ha.instance_ha.create_host(seg.uuid, name=h, type="COMPUTE",
                                       control_attributes="SSH")
        crashed_at = stack.crash(FAILED)
        log("%s: %s crashed; notification in %d s" % (name, FAILED, sc["lead"]))
        time.sleep(sc["lead"])
        n = ha.instance_ha.create_notification(
            type="COMPUTE_HOST", hostname=FAILED,
            generated_time=time.strftime("%Y-%m-%dT%H:%M:%S.000000", time.gmtime()),
            payload={"event": "STOPPED", "host_status": "NORMAL", "cluster_status": "OFFLINE"})
        log("%s: notification %s" % (name, n.notification_uuid))

        def settled():
            s = ha.instance_ha.get_notification(n.notification_uuid).status
            return s if s in ("finished", "failed") else None

        status = wait_until("notification finished or failed", settled, 600, every=3)
        log("%s: notification %s" % (name, status))
        hosts = {}
        for sid in servers:
            s = conn.compute.get_server(sid)
            hosts[sid] = {"host": s.compute_host, "status": s.status, "locked": s.is_locked}
        problems = []
        if status != sc["expect_status"]:
            problems.append("notification ended %s, the scenario expects %s" % (status, sc["expect_status"]))
        moved = [sid for sid, v in hosts.items() if v["host"] != FAILED]
        if sc["expected"] == "healthy" and len(moved) != len(servers):
            problems.append("only %d of %d servers left %s" % (len(moved), len(servers), FAILED))
        # In the race, Masakari's retry (process_unfinished_notifications_interval) may
        # come after Nova saw the host down: those evacuations are accepted, yet the
        # notification still ends failed (the first attempt's moves stay FAILED).
        wait = int(sc["masakari"].get("wait_period_after_service_update", 180))
        down = int(sc["nova"].get("service_down_time", 60))
        detectors = [] if sc["expected"] == "healthy" else [sc["expected"]]
        truth = {
            "scenario": name,
            "files": bundle_logs(bundle),
            "configs": [CONTROLLER + "/etc/nova/nova.conf", CONTROLLER + "/etc/masakari/masakari.conf"],
            # From the configs alone: Masakari's wait below Nova's detection (report_interval 10).
            "expected_global": ["evacuation-race-risk"] if wait < down + 10 else [],
            "hosts": [{"name": h, "clock_offset_s": 0} for h in [CONTROLLER] + COMPUTES],
            "recoveries": [{
                "notification_id": n.notification_uuid,
                "failed_host": FAILED,
                "expected": sc["expected"],
                "expected_detectors": detectors,
                "instance_detectors": detectors,
                "status_detectors": detectors,
                "final_status": status,
                "instances": servers,
                "instances_concerned": servers if sc["expected"] != "healthy" else [],
            }],
            "servers_after": hosts,
            "crashed_at": crashed_at,
            "nova_conf": sc["nova"],
            "masakari_conf": sc["masakari"],
            "scenario_problems": problems,
        }
        conn.close()
        ha.close()
    finally:
        log("%s: stopping" % name)
        try:
            stack.stop_nova()
        except Exception as e:  # still stop the rest
            log("nova stop: %s" % e)
        stack.stop(only=("masakari-api", "masakari-engine"))
        stack.stop_rabbit()
        stack.stop()
    # Written once every service has stopped: the files they wrote while stopping count.
    truth["files"] = bundle_logs(bundle)
    stack.ground_truth(truth)
    return problems


def main():
    # A TERM (run.sh interrupted, a timeout) still runs the finally that stops the stack.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=sorted(SCENARIOS))
    ap.add_argument("out")
    ap.add_argument("--port-base", type=int, default=28100)
    ap.add_argument("--venv", default=os.path.dirname(os.path.dirname(os.path.abspath(sys.executable))))
    a = ap.parse_args()
    problems = run(a.name, os.path.abspath(a.out), a.port_base, a.venv)
    for p in problems:
        print("SCENARIO %s: %s" % (a.name, p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
