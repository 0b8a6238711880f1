"""Run one real-stack scenario and leave its bundle and ground truth in OUT.

    python scenario.py NAME OUT [--port-base N]

OUT/bundle/<host>/... is the bundle (logs and the configs the services ran with);
OUT/ground_truth.json says what happened, from the services' own APIs (Masakari's
notification status, Nova's view of each server), not from the logs.

Scenarios:
  race      service_down_time 180, wait_period_after_service_update 10, cmp1 crashed 9 s
            before the notification: Nova refuses the evacuations (400, still in use),
            Masakari retries and ends failed.
  pending   Masakari 21.0.0 (before the fix of LP#2158101), Nova's GET of one server
            answering 503 from a middleware in front of nova-api during the evacuation:
            that server stays on the dead host, the notification ends finished.
  bfv       a boot-from-volume server among the dead host's (Nova's Cinder stand-in):
            evacuated with the others, the notification finishes, no finding.
  defaults  the same cloud with Nova's and Masakari's defaults (60 s / 180 s): the
            evacuations are accepted, the notification finishes.
  rejected  (issue 29, class 3) the monitor names the dead host as its cluster does
            (cmp1.example.com), the segment as Nova does (cmp1): masakari-api answers 400
            `Host with name ... could not be found.`, no notification exists. A second host
            left on maintenance answers 409 to a notification with no monitor to say its
            event: not a finding on its own (a STARTED event is refused the same way).
  forceup   (class 12) cmp1 dead, forced down, its servers evacuated through Nova's API;
            forcing it up again answers 400 `Unable to force up host cmp1 as `done`
            evacuation migration records remain ...`.
  noengine  (class 6) masakari-engine stopped after it declared its queue: masakari-api
            answers 202, no engine processes the notification, which stays `new`;
            `rabbitmqctl list_queues` saved in the bundle as sos does shows the messages
            in `ha_engine` with no consumer.
  duplicate (class 7) two controllers (ctl1, ctl2), each a masakari-api and a
            masakari-engine on one database and bus, no [coordination] backend_url: two
            monitors' notifications of cmp1, one through each API, both past Masakari's
            maintenance and duplicate checks before either is stored (masakari_api_hold.py
            holds that window open), so both are accepted and each engine runs a flow.
            Nova 34 accepts both flows' evacuations of each server (they run in step) and
            the rebuilds collide on the destination (UnexpectedTaskStateError, servers in
            ERROR), both notifications end failed; or one flow runs ahead and the other
            finds no server left. One duplicate-host-flows finding either way.
  stuck     (class 5) Masakari 14.0.1 (before the fix of LP#1996835): an instance failure
            flow's first GET of the server answers 503 from the proxy in front of
            nova-api; the ClientException escapes the engine's handler, the notification
            stays running until check_expired_notifications expires it (expiry shortened
            to 60 s). One notification-stuck-running finding.
  executor  `evacdoc recover host` against Keystone and Nova (no Masakari): a dead fenced
            host's servers all ACTIVE elsewhere and unlocked; an up unfenced host refused
            with no evacuation in Nova's log; the plan's wait from the cloud's nova.conf;
            a boot-from-volume server with no Cinder in the catalog fails alone.
  blobs     `evacdoc serve` + `evacdoc worker` on PostgreSQL with `--blobs swift://` on a
            Swift that signs in through Keystone (authtoken + keystoneauth): objects in
            the container, findings as `evacdoc analyze`'s, tokens renewed after a
            revocation (401) and before expiry (see blobs.py).
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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"  # GlanceFixture.image1
# CinderFixture's volume made from an image: bootable.
BFV_VOLUME = "6ca404f3-d844-4169-bb96-bc792f37de98"
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
        # The mechanism the explanation must name: the disable call blocked on the dead
        # compute's RPC timeout, and Masakari's retry.
        "explains": ["disable call itself blocked", "MessagingTimeout", "retry 1"],
    },
    "pending": {
        # Masakari 21.0.0, the last release before the fix (LP#2158101): an exception in
        # an evacuation's first GET of the server is lost with its green thread, the move
        # stays pending and the notification ends finished.
        "masakari_venv": "venv-masakari-21",
        "nova": {"service_down_time": "30"},
        "masakari": {"wait_period_after_service_update": "60"},
        "lead": 9,
        "servers": 2,
        "fault_get503": 1,
        "expect_status": "finished",
        "expected": "pending-after-finished",
    },
    "bfv": {
        # A boot-from-volume server among the dead host's: Nova's Cinder stand-in attaches
        # it again on the destination; the recovery finishes.
        "nova": {"service_down_time": "30"},
        "masakari": {"wait_period_after_service_update": "60"},
        "lead": 9,
        "servers": 1,
        "bfv_servers": 1,
        "expect_status": "finished",
        "expected": "healthy",
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


def boot(conn, n, host=FAILED, prefix="vm"):
    ids = []
    for i in range(n):
        r = conn.compute.post("/servers", json={"server": {
            "name": "%s%d" % (prefix, i + 1), "imageRef": IMAGE, "flavorRef": "1",
            "networks": "none", "availability_zone": "nova:%s" % host}},
            microversion="2.95")
        if r.status_code != 202:
            raise RuntimeError("boot: %s %s" % (r.status_code, r.text))
        ids.append(r.json()["server"]["id"])

    def all_active():
        states = [conn.compute.get_server(i).status for i in ids]
        if "ERROR" in states:
            raise RuntimeError("a server went to ERROR while booting")
        return all(s == "ACTIVE" for s in states)

    wait_until("servers ACTIVE", all_active, 300)
    return ids


def boot_from_volume(conn, host, name):
    r = conn.compute.post("/servers", json={"server": {
        "name": name, "imageRef": "", "flavorRef": "1", "networks": "none",
        "availability_zone": "nova:%s" % host,
        "block_device_mapping_v2": [{"boot_index": 0, "uuid": BFV_VOLUME,
                                     "source_type": "volume",
                                     "destination_type": "volume"}]}},
        microversion="2.95")
    if r.status_code != 202:
        raise RuntimeError("boot from volume: %s %s" % (r.status_code, r.text))
    sid = r.json()["server"]["id"]
    wait_until("%s ACTIVE" % name, lambda: conn.compute.get_server(sid).status == "ACTIVE", 300)
    return sid


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
    masakari_venv = None
    if sc.get("masakari_venv"):
        masakari_venv = os.path.join(os.path.dirname(venv), sc["masakari_venv"])
    stack = Stack(os.path.join(out, "work"), bundle, venv, port_base, masakari_venv=masakari_venv)
    try:
        log("%s: keystone" % name)
        stack.start_keystone()
        log("%s: rabbitmq" % name)
        stack.start_rabbit()
        log("%s: nova (api, conductor, scheduler, %s)" % (name, ", ".join(COMPUTES)))
        stack.start_nova(sc["nova"], COMPUTES)
        log("%s: masakari-api, masakari-engine" % name)
        stack.start_masakari(sc["masakari"])
        # Scenario 5: `evacdoc watch` follows the live bundle while the story happens.
        evacdoc = os.environ.get("EVACDOC") or os.path.join(ROOT, "target/debug/evacdoc")
        watch_out = os.path.join(out, "watch.jsonl")
        if os.path.exists(evacdoc):
            stack.spawn("evacdoc-watch", [evacdoc, "watch", "--format", "json", "--poll-ms", "500",
                                          bundle], log=open(watch_out, "w"))
        conn = connect(stack)
        servers = boot(conn, sc["servers"])
        for i in range(sc.get("bfv_servers", 0)):
            servers.append(boot_from_volume(conn, FAILED, "bfv%d" % (i + 1)))
        log("%s: %d servers ACTIVE on %s" % (name, len(servers), FAILED))
        ha = connect(stack, "masakari", "service")
        seg = ha.instance_ha.create_segment(name="seg1", recovery_method="auto",
                                            service_type="COMPUTE")
        for h in COMPUTES:
            ha.instance_ha.create_host(seg.uuid, name=h, type="COMPUTE",
                                       control_attributes="SSH")
        lost = servers[: sc.get("fault_get503", 0)]
        for sid in lost:
            # Masakari's first GET of this server during its evacuation answers 503.
            stack.fault_get503(sid)
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
        if os.path.exists(evacdoc):
            time.sleep(5)  # the watcher polls every 0.5 s; let it read the last lines
            stack.stop(only=("evacdoc-watch",))
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
        if sc["expected"] == "pending-after-finished":
            if sorted(set(servers) - set(moved)) != sorted(lost):
                problems.append("servers left on %s: %s, the 503 was for %s" % (
                    FAILED, sorted(set(servers) - set(moved)), lost))
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
                "explanation_mentions": sc.get("explains", []),
                "instances": servers,
                "instances_concerned": (lost if sc["expected"] == "pending-after-finished"
                                        else servers if sc["expected"] != "healthy" else []),
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


def evacdoc_recover(stack, out, host, *flags, apply=True, name=None):
    """Runs `evacdoc recover host` against the stack; returns (rc, json report or None,
    start and end time)."""
    import subprocess

    clouds = os.path.join(stack.work, "clouds.yaml")
    with open(clouds, "w") as f:
        f.write("clouds:\n  realstack:\n    auth:\n      auth_url: %s\n      username: admin\n"
                "      password: %s\n      project_name: admin\n      user_domain_name: Default\n"
                "      project_domain_name: Default\n    region_name: RegionOne\n"
                % (stack.auth_url, PASSWORD))
    evacdoc = os.environ.get("EVACDOC") or os.path.join(ROOT, "target/debug/evacdoc")
    argv = [evacdoc, "recover", "host", host, "--cloud", "realstack", "--format",
            "json", "--data", os.path.join(stack.work, "evacdoc-data"), "--poll-interval", "1"]
    if apply:
        argv.append("--apply")
    argv += list(flags)
    t0 = time.time()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, OS_CLIENT_CONFIG_FILE=clouds), timeout=900)
    t1 = time.time()
    name = name or "recover-%s" % host
    with open(os.path.join(out, name + ".json"), "w") as f:
        f.write(r.stdout)
    with open(os.path.join(out, name + ".stderr"), "w") as f:
        f.write(r.stderr)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        report = None
    log("evacdoc recover host %s %s: rc %d" % (host, " ".join(flags), r.returncode))
    return r.returncode, report, t0, t1


def evacuate_calls(bundle, t0, t1):
    """POST .../action requests nova-api logged between t0 and t1 (its request log), with
    the evacuate ones told apart by the compute log's `Evacuating instance`."""
    import datetime

    def within(line):
        try:
            ts = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f")
        except ValueError:
            return False
        t = ts.replace(tzinfo=datetime.timezone.utc).timestamp()
        return t0 <= t <= t1

    n = 0
    for d, _, files in os.walk(bundle):
        for f in files:
            if f == "nova-compute.log":
                with open(os.path.join(d, f)) as fh:
                    n += sum(1 for line in fh if "Evacuating instance" in line and within(line))
    return n


def run_executor(out, port_base, venv):
    """evacdoc's executor against real Keystone and Nova: a dead, fenced host's servers all
    end ACTIVE elsewhere and unlocked; an up, unfenced host is refused with no evacuation."""
    shutil.rmtree(out, ignore_errors=True)
    bundle = os.path.join(out, "bundle")
    computes = ["cmp1", "cmp2", "cmp3"]
    for h in [CONTROLLER] + computes:
        os.makedirs(os.path.join(bundle, h, "etc"), exist_ok=True)
        with open(os.path.join(bundle, h, "etc/hostname"), "w") as f:
            f.write(h + "\n")
        with open(os.path.join(bundle, h, "etc/timezone"), "w") as f:
            f.write("Etc/UTC\n")
    stack = Stack(os.path.join(out, "work"), bundle, venv, port_base)
    problems = []
    cases = []
    try:
        log("executor: keystone")
        stack.start_keystone()
        log("executor: nova (api, conductor, scheduler, %s)" % ", ".join(computes))
        stack.start_nova({"service_down_time": "180"}, computes)
        conn = connect(stack)
        servers = boot(conn, 2)
        log("executor: %d servers ACTIVE on %s" % (len(servers), FAILED))

        # 1. dead and fenced: forced down, evacuated, all ACTIVE elsewhere, none locked.
        stack.crash(FAILED)
        rc, report, t0, t1 = evacdoc_recover(stack, out, FAILED, "--host-fenced")
        after = {}
        for sid in servers:
            s = conn.compute.get_server(sid)
            after[sid] = {"host": s.compute_host, "status": s.status, "locked": s.is_locked}
        bad = [sid for sid, v in after.items()
               if v["host"] == FAILED or v["status"] != "ACTIVE" or v["locked"]]
        case = {"case": "dead-fenced", "host": FAILED, "rc": rc, "servers_after": after,
                "seconds": round(t1 - t0, 1)}
        cases.append(case)
        if rc != 0:
            problems.append("dead fenced host: evacdoc recover exited %d" % rc)
        if bad:
            problems.append("dead fenced host: %d server(s) not ACTIVE elsewhere and unlocked: %s"
                            % (len(bad), json.dumps({b: after[b] for b in bad})))

        # 2. InstanceHA's guard: with FAILED still forced down, recovering a second host
        # makes 2 of 3 computes down, more than the default 50 %: refused before any call
        # that changes something (the later cases allow 70 % to reach their own rules).
        up = next(v["host"] for v in after.values() if v["host"] != FAILED) if not bad else "cmp2"
        rc, report, t0, t1 = evacdoc_recover(stack, out, up, "--host-fenced", name="guard")
        n = evacuate_calls(bundle, t0, t1)
        with open(os.path.join(out, "guard.stderr")) as f:
            said = f.read()
        cases.append({"case": "too-many-down", "host": up, "rc": rc, "evacuations": n})
        if rc != 1 or "2 of 3 nova-compute services are down" not in said:
            problems.append("guard: rc %d (expected 1), stderr %r" % (rc, said[-300:]))
        if n:
            problems.append("guard: Nova logged %d evacuation(s)" % n)
        svc = next(conn.compute.services(binary="nova-compute", host=up))
        if svc.is_forced_down or svc.status != "enabled":
            problems.append("guard: %s was changed (forced_down %s, %s)"
                            % (up, svc.is_forced_down, svc.status))

        # 3. up and not fenced: refused, and Nova never asked to evacuate.
        rc, report, t0, t1 = evacdoc_recover(stack, out, up, "--service-down-time", "10",
                                             "--down-margin", "5", "--max-down-percent", "70")
        n = evacuate_calls(bundle, t0, t1)
        cases.append({"case": "up-unfenced", "host": up, "rc": rc, "evacuations": n,
                      "seconds": round(t1 - t0, 1)})
        if rc != 1:
            problems.append("up unfenced host %s: evacdoc recover exited %d, expected 1 (refused)" % (up, rc))
        if n:
            problems.append("up unfenced host %s: Nova logged %d evacuation(s)" % (up, n))

        # 4. The wait before refusing rests on the cloud's service_down_time (180 here),
        # read from its nova.conf, not on Nova's default.
        nova_conf = os.path.join(bundle, CONTROLLER, "etc/nova/nova.conf")
        rc, report, _, _ = evacdoc_recover(stack, out, up, "--nova-conf", nova_conf,
                                           "--max-down-percent", "70",
                                           apply=False, name="plan-nova-conf")
        waits = [st["why"] for st in (report or {}).get("plan", []) if st.get("method") == "WAIT"]
        cases.append({"case": "plan-reads-service-down-time", "host": up, "rc": rc, "waits": waits})
        if rc != 0 or not any("service_down_time 180s" in w for w in waits):
            problems.append("plan with --nova-conf: rc %d, waits %s (expected service_down_time 180s)"
                            % (rc, waits))

        # 5. A boot-from-volume server on a cloud without Cinder in the catalog: only that
        # move fails; the host's other servers are evacuated.
        bfv_host = "cmp3"
        bfv = boot_from_volume(conn, bfv_host, "bfv1")
        img = boot(conn, 1, host=bfv_host, prefix="img")[0]
        on_host = [x.id for x in conn.compute.servers(all_projects=True) if x.compute_host == bfv_host]
        stack.crash(bfv_host)
        rc, report, t0, t1 = evacdoc_recover(stack, out, bfv_host, "--host-fenced",
                                             "--max-down-percent", "70")
        after = {}
        for sid in on_host:
            x = conn.compute.get_server(sid)
            after[sid] = {"host": x.compute_host, "status": x.status, "locked": x.is_locked}
        moves = {m["instance"]: m for m in (report or {}).get("moves", [])}
        cases.append({"case": "bfv-without-cinder", "host": bfv_host, "rc": rc, "bfv": bfv,
                      "servers_after": after,
                      "moves": {k: {"status": v.get("status"), "message": v.get("message")}
                                for k, v in moves.items()}})
        if rc != 1:
            problems.append("bfv without cinder: evacdoc recover exited %d, expected 1 (one move failed)" % rc)
        if moves.get(bfv, {}).get("status") != "failed":
            problems.append("bfv without cinder: the BFV move is %s, expected failed"
                            % moves.get(bfv, {}).get("status"))
        if after[bfv]["host"] != bfv_host or after[bfv]["locked"]:
            problems.append("bfv without cinder: the BFV server was touched: %s" % after[bfv])
        others = [sid for sid in on_host if sid != bfv]
        if img not in others:
            problems.append("bfv without cinder: the image server was not listed on %s" % bfv_host)
        for sid in others:
            v = after[sid]
            if v["host"] == bfv_host or v["status"] != "ACTIVE" or v["locked"]:
                problems.append("bfv without cinder: server %s not ACTIVE elsewhere: %s" % (sid, v))
        conn.close()
    finally:
        log("executor: stopping")
        try:
            stack.stop_nova()
        except Exception as e:
            log("nova stop: %s" % e)
        stack.stop()
    truth = {
        "scenario": "executor",
        "hosts": [{"name": h, "clock_offset_s": 0} for h in [CONTROLLER] + computes],
        # No Masakari: evacdoc's own recovery is no notification, so no finding.
        "recoveries": [],
        "expected_global": [],
        "files": bundle_logs(bundle),
        "configs": [CONTROLLER + "/etc/nova/nova.conf"],
        "cases": cases,
        "scenario_problems": problems,
    }
    stack.ground_truth(truth)
    return problems


def make_bundle(out, computes):
    shutil.rmtree(out, ignore_errors=True)
    bundle = os.path.join(out, "bundle")
    os.makedirs(bundle)
    for h in [CONTROLLER] + computes:
        os.makedirs(os.path.join(bundle, h, "etc"), exist_ok=True)
        with open(os.path.join(bundle, h, "etc/hostname"), "w") as f:
            f.write(h + "\n")
        with open(os.path.join(bundle, h, "etc/timezone"), "w") as f:
            f.write("Etc/UTC\n")
    return bundle


def notify(ha, host, event="STOPPED"):
    """POST /v1/notifications as a host monitor does; returns (status, body)."""
    r = ha.instance_ha.post("/notifications", json={"notification": {
        "type": "COMPUTE_HOST", "hostname": host,
        "generated_time": time.strftime("%Y-%m-%dT%H:%M:%S.000000", time.gmtime()),
        "payload": {"event": event, "host_status": "NORMAL", "cluster_status": "OFFLINE"}}})
    try:
        body = r.json()
    except ValueError:
        body = r.text
    return r.status_code, body


def story_rejected(stack, conn, ha, seg, servers, problems):
    """Class 3: a host name the segment does not know (400); a host on maintenance (409)."""
    truth = {"expected_global": ["notification-rejected"],
             "global_hosts": {"notification-rejected": "cmp1.example.com"}}
    stack.crash(FAILED)
    time.sleep(5)
    fqdn = FAILED + ".example.com"
    st, body = notify(ha, fqdn)
    log("rejected: notification for %s: %s %s" % (fqdn, st, body))
    if st != 400 or "could not be found" not in json.dumps(body):
        problems.append("notification for %s answered %s %s, expected 400 host not found" % (fqdn, st, body))
    # A host left on maintenance: Masakari refuses any notification of it (409).
    other = COMPUTES[1]
    hid = next(h.uuid for h in ha.instance_ha.hosts(seg.uuid) if h.name == other)
    ha.instance_ha.update_host(hid, seg.uuid, on_maintenance=True)
    st2, body2 = notify(ha, other)
    log("rejected: notification for %s (on maintenance): %s %s" % (other, st2, body2))
    if st2 != 409 or "under maintenance" not in json.dumps(body2):
        problems.append("notification for %s answered %s %s, expected 409 maintenance" % (other, st2, body2))
    made = list(ha.instance_ha.notifications())
    if made:
        problems.append("Masakari holds %d notification(s), expected none" % len(made))
    truth["answers"] = {fqdn: [st, body], other: [st2, body2]}
    truth["notifications"] = len(made)
    return truth


def story_forceup(stack, conn, ha, seg, servers, problems):
    """Class 12: after a forced-down evacuation, forcing the host up is refused."""
    truth = {"expected_global": ["force-up-refused"],
             "global_hosts": {"force-up-refused": FAILED}}
    stack.crash(FAILED)
    svc = next(conn.compute.services(binary="nova-compute", host=FAILED))
    r = conn.compute.put("/os-services/%s" % svc.id, json={"forced_down": True}, microversion="2.53")
    if r.status_code != 200:
        raise RuntimeError("force down: %s %s" % (r.status_code, r.text))
    for sid in servers:
        r = conn.compute.post("/servers/%s/action" % sid, json={"evacuate": {}}, microversion="2.53")
        if r.status_code != 200:
            raise RuntimeError("evacuate %s: %s %s" % (sid, r.status_code, r.text))

    def moved():
        ss = [conn.compute.get_server(i) for i in servers]
        return all(x.status == "ACTIVE" and x.compute_host != FAILED for x in ss)

    wait_until("evacuated servers ACTIVE elsewhere", moved, 180)

    def migrations():
        r = conn.compute.get("/os-migrations?migration_type=evacuation&source_compute=%s"
                             % FAILED, microversion="2.59")
        return [(m["instance_uuid"], m["status"]) for m in r.json().get("migrations", [])]

    # Nova's own record of the moves: `done` until cmp1's nova-compute starts again.
    done = wait_until("evacuation migrations done",
                      lambda: [m for m in migrations() if m[1] == "done"], 30)
    if len(done) != len(servers):
        problems.append("%d evacuation migration(s) done, expected %d" % (len(done), len(servers)))
    r = conn.compute.put("/os-services/%s" % svc.id, json={"forced_down": False}, microversion="2.53")
    log("forceup: force up %s: %s %s" % (FAILED, r.status_code, r.text))
    if r.status_code != 400 or "Unable to force up host" not in r.text:
        problems.append("force up answered %s %s, expected 400" % (r.status_code, r.text))
    truth["force_up_answer"] = [r.status_code, r.text]
    truth["migrations"] = migrations()
    truth["servers_after"] = {i: conn.compute.get_server(i).compute_host for i in servers}
    return truth


def story_noengine(stack, conn, ha, seg, servers, problems):
    """Class 6: the engine stopped; masakari-api accepts, nobody processes."""
    truth = {"expected_global": ["engine-not-consuming"]}
    stack.stop(only=("masakari-engine",))
    stack.crash(FAILED)
    time.sleep(5)
    st, body = notify(ha, FAILED)
    log("noengine: notification for %s: %s %s" % (FAILED, st, body))
    if st != 202:
        problems.append("notification answered %s %s, expected 202" % (st, body))
    nid = body.get("notification", {}).get("notification_uuid") if isinstance(body, dict) else None
    time.sleep(15)
    status = ha.instance_ha.get_notification(nid).status if nid else None
    if status != "new":
        problems.append("notification %s is %s, expected new" % (nid, status))
    queues = stack.list_queues(os.path.join(stack.bundle, CONTROLLER,
                                            "sos_commands/rabbitmq/rabbitmqctl_list_queues"))
    log("noengine: queues %s" % queues)
    m, c = queues.get("ha_engine", (0, 0))
    if m < 1 or c != 0:
        problems.append("queue ha_engine holds %d message(s), %d consumer(s)" % (m, c))
    truth.update({"notification_id": nid, "notification_status": status, "queues": queues})
    return truth


def story_duplicate(stack, conn, ha, seg, servers, problems):
    """Class 7: two notifications of one host accepted at once through two controllers'
    masakari-api (no [coordination] backend_url: Masakari's per-host lock is a lock of one
    process), each cast to its own controller's engine: two host-failure flows evacuate the
    same servers and Nova refuses the later calls. Both APIs run masakari_api_hold.py, so
    both requests are past Masakari's maintenance and duplicate checks before either
    notification is stored (the window real monitors hit by chance)."""
    import threading

    hold = os.path.join(stack.work, "hold")
    # The second controller: its own masakari-api and masakari-engine on the same
    # database and message bus.
    api2 = stack.start_masakari(STORIES["duplicate"]["masakari_conf"], controller="ctl2",
                                hold_dir=hold)
    stack.slow_spawn(20)
    stack.crash(FAILED)
    time.sleep(5)
    project = ha.current_project_id
    answers = {}
    now = time.time()

    # Two monitors' notifications of one event, their generated times 2 s apart, each
    # through another controller (as a VIP spreads them).
    def post(key, offset, url):
        body = {"notification": {
            "type": "COMPUTE_HOST", "hostname": FAILED,
            "generated_time": time.strftime("%Y-%m-%dT%H:%M:%S.000000", time.gmtime(now + offset)),
            "payload": {"event": "STOPPED", "host_status": "NORMAL",
                        "cluster_status": "OFFLINE"}}}
        if url is None:
            r = ha.instance_ha.post("/notifications", json=body)
        else:
            r = ha.session.post("%s/v1/%s/notifications" % (url, project), json=body,
                                raise_exc=False)
        answers[key] = (r.status_code, r.text)

    ts = [threading.Thread(target=post, args=a) for a in ((1, -2, None), (2, 0, api2))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    log("duplicate: answers %s" % answers)
    ok = [json.loads(t)["notification"]["notification_uuid"] for st, t in answers.values() if st == 202]
    if len(ok) != 2:
        raise RuntimeError("both notifications were not accepted: %s" % answers)

    def settled(n):
        s = ha.instance_ha.get_notification(n).status
        return s if s in ("finished", "failed") else None

    final = {}
    for n in ok:
        final[n] = wait_until("notification %s settled" % n, lambda: settled(n), 600, every=3)
    log("duplicate: %s" % final)
    # Nova's record: every evacuate action it accepted, per server (a call refused at the
    # API leaves none). How many depends on the flows' timing: in step (both disable
    # calls blocked on the dead compute together) both evacuate each server and the
    # rebuilds collide; a flow whose disable call found the service already disabled runs
    # ahead, and the other then finds no server left on the host.
    actions = {}
    for sid in servers:
        r = conn.compute.get("/servers/%s/os-instance-actions" % sid, microversion="2.95")
        actions[sid] = sorted(a["request_id"] for a in r.json().get("instanceActions", [])
                              if a["action"] == "evacuate")
    recs = []
    for n in ok:
        recs.append({"notification_id": n, "failed_host": FAILED, "expected": "healthy",
                     "expected_detectors": [], "instance_detectors": [], "status_detectors": [],
                     "final_status": final[n], "explanation_mentions": [], "instances": servers,
                     "instances_concerned": []})
    after = {i: conn.compute.get_server(i).compute_host for i in servers}
    return {"expected_global": [], "recoveries_override": recs,
            # One finding for the pair, on the notification whose flow started second
            # (the engines' order, which only their logs tell).
            "pairs": [{"detector": "duplicate-host-flows", "notifications": ok,
                       "failed_host": FAILED}],
            "answers": answers, "evacuate_actions": actions, "servers_after": after}


def story_stuck(stack, conn, ha, seg, servers, problems):
    """Class 5: Masakari 14.0.1 (before the fix of LP#1996835, 14.0.2/15.0.0): an instance
    failure flow's first GET of the server answers 503 from the proxy in front of nova-api;
    novaclient's ClientException is none of Masakari's own, escapes the flow and the
    manager (oslo.messaging's `Exception during message handling`), and the notification
    stays `running` until the periodic check expires it (notifications_expired_interval,
    shortened here from a day)."""
    sid = servers[0]
    r = conn.compute.post("/servers/%s/metadata" % sid, json={"metadata": {"HA_Enabled": "True"}})
    if r.status_code != 200:
        raise RuntimeError("metadata: %s %s" % (r.status_code, r.text))
    stack.fault_get503(sid)
    r = ha.instance_ha.post("/notifications", json={"notification": {
        "type": "VM", "hostname": FAILED,
        "generated_time": time.strftime("%Y-%m-%dT%H:%M:%S.000000", time.gmtime()),
        "payload": {"event": "LIFECYCLE", "instance_uuid": sid,
                    "vir_domain_event": "STOPPED_FAILED"}}})
    log("stuck: notification: %s %s" % (r.status_code, r.text))
    if r.status_code != 202:
        raise RuntimeError("notification answered %s %s" % (r.status_code, r.text))
    nid = r.json()["notification"]["notification_uuid"]
    status = lambda: ha.instance_ha.get_notification(nid).status  # noqa: E731
    seen = wait_until("notification taken by the engine",
                      lambda: (lambda st: st if st != "new" else None)(status()), 60, every=1)
    time.sleep(10)
    running = status()
    log("stuck: %s is %s 10 s after it started" % (nid, running))
    if running != "running":
        problems.append("notification %s is %s, expected it stuck running" % (nid, running))
    expire = int(STORIES["stuck"]["masakari_conf"]["notifications_expired_interval"])
    check = int(STORIES["stuck"]["masakari_conf"]["check_expired_notifications_interval"])
    final = wait_until("notification expired", lambda: status() if status() == "failed" else None,
                       expire + 2 * check + 60, every=3)
    log("stuck: %s is %s" % (nid, final))
    server = conn.compute.get_server(sid)
    rec = {"notification_id": nid, "failed_host": FAILED, "expected": "notification-stuck-running",
           "expected_detectors": ["notification-stuck-running"],
           "instance_detectors": ["notification-stuck-running"],
           "status_detectors": [], "final_status": final,
           "explanation_mentions": ["novaclient.exceptions.ClientException"],
           "instances": [sid], "instances_concerned": [sid]}
    return {"expected_global": [], "recoveries_override": [rec], "first_status": seen,
            "status_10s_later": running,
            "server_after": {"host": server.compute_host, "status": server.status}}


STORIES = {
    "duplicate": {"story": story_duplicate, "servers": 2, "masakari": True,
                  "controllers": [CONTROLLER, "ctl2"], "hold": True,
                  "nova": {"service_down_time": "20"},
                  # Masakari retries the failed notifications (each fails again) after
                  # 30 s rather than 120 s: the story ends sooner.
                  "masakari_conf": {"wait_period_after_service_update": "30",
                                    "process_unfinished_notifications_interval": "30"}},
    "rejected": {"story": story_rejected, "servers": 1, "masakari": True},
    "stuck": {"story": story_stuck, "servers": 1, "masakari": True,
              "masakari_venv": "venv-masakari-14",
              "masakari_conf": {"check_expired_notifications_interval": "15",
                                "notifications_expired_interval": "60",
                                "periodic_fuzzy_delay": "0"}},
    "forceup": {"story": story_forceup, "servers": 2, "masakari": False},
    "noengine": {"story": story_noengine, "servers": 1, "masakari": True},
}


def run_story(name, out, port_base, venv):
    """Issue 29's classes that need no hardware, each a story against the real services;
    Nova's and Masakari's defaults (no race risk from the configs)."""
    sc = STORIES[name]
    controllers = sc.get("controllers", [CONTROLLER])
    bundle = make_bundle(out, controllers[1:] + COMPUTES)
    masakari_venv = None
    if sc.get("masakari_venv"):
        masakari_venv = os.path.join(os.path.dirname(venv), sc["masakari_venv"])
    stack = Stack(os.path.join(out, "work"), bundle, venv, port_base, masakari_venv=masakari_venv)
    problems = []
    configs = [CONTROLLER + "/etc/nova/nova.conf"]
    try:
        log("%s: keystone" % name)
        stack.start_keystone()
        if sc["masakari"]:
            log("%s: rabbitmq" % name)
            stack.start_rabbit()
        log("%s: nova" % name)
        stack.start_nova(sc.get("nova", {}), COMPUTES)
        ha = seg = None
        if sc["masakari"]:
            log("%s: masakari" % name)
            stack.start_masakari(sc.get("masakari_conf", {}),
                                 hold_dir=os.path.join(stack.work, "hold") if sc.get("hold") else None,
                                 shared=len(controllers) > 1)
            configs += [c + "/etc/masakari/masakari.conf" for c in controllers]
        conn = connect(stack)
        servers = boot(conn, sc["servers"])
        log("%s: %d servers ACTIVE on %s" % (name, len(servers), FAILED))
        if sc["masakari"]:
            ha = connect(stack, "masakari", "service")
            seg = ha.instance_ha.create_segment(name="seg1", recovery_method="auto",
                                                service_type="COMPUTE")
            for h in COMPUTES:
                ha.instance_ha.create_host(seg.uuid, name=h, type="COMPUTE",
                                           control_attributes="SSH")
        truth = sc["story"](stack, conn, ha, seg, servers, problems)
        conn.close()
        if ha is not None:
            ha.close()
    finally:
        log("%s: stopping" % name)
        try:
            stack.stop_nova()
        except Exception as e:
            log("nova stop: %s" % e)
        stack.stop(only=("masakari-api", "masakari-engine"))
        stack.stop_rabbit()
        stack.stop()
    truth.update({
        "scenario": name,
        "hosts": [{"name": h, "clock_offset_s": 0} for h in controllers + COMPUTES],
        # No notification reached an engine: no recovery to judge.
        "recoveries": truth.pop("recoveries_override", []),
        "files": bundle_logs(bundle),
        "configs": configs,
        "scenario_problems": problems,
    })
    stack.ground_truth(truth)
    return problems


def main():
    # A TERM (run.sh interrupted, a timeout) still runs the finally that stops the stack.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=sorted(SCENARIOS) + sorted(STORIES) + ["executor", "blobs"])
    ap.add_argument("out")
    ap.add_argument("--port-base", type=int, default=28100)
    ap.add_argument("--venv", default=os.path.dirname(os.path.dirname(os.path.abspath(sys.executable))))
    a = ap.parse_args()
    if a.name == "executor":
        problems = run_executor(os.path.abspath(a.out), a.port_base, a.venv)
    elif a.name == "blobs":
        from blobs import run_blobs

        problems = run_blobs(os.path.abspath(a.out), a.port_base, a.venv)
    elif a.name in STORIES:
        problems = run_story(a.name, os.path.abspath(a.out), a.port_base, a.venv)
    else:
        problems = run(a.name, os.path.abspath(a.out), a.port_base, a.venv)
    for p in problems:
        print("SCENARIO %s: %s" % (a.name, p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
