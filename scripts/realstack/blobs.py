"""The `blobs` scenario: `evacdoc serve` and `evacdoc worker` on PostgreSQL keep uploads,
documents and indexes in a real Swift that signs its users in through a real Keystone
(keystonemiddleware's authtoken and Swift's keystoneauth); evacdoc signs in with a
clouds.yaml password entry, the Keystone session of the executor and the catalog's
object-store endpoint (src/blobs/swift_auth.rs).

  1. an upload is analyzed: its upload, document and index are objects in the container
     (listed with a Keystone token of the project), its findings those of `evacdoc
     analyze` on the same sample;
  2. evacdoc's tokens are revoked in Keystone (taken from Swift's access log): the next
     upload meets 401s, both processes sign in again and it is analyzed;
  3. only with REALSTACK_TOKEN_LIFE=N (Keystone's token lifetime; 240 verified, the
     wait is 2 min so CI leaves it out): once the renewed tokens are in their last five
     minutes (the last half of their life when that is shorter), the next upload is
     made with new tokens and meets no 401.
Each process signs in once for the first upload (one token each).
"""

import io
import json
import os
import shutil
import subprocess
import tarfile
import time
import urllib.error
import urllib.request

import openstack

from stack import CONTROLLER, PASSWORD, Stack, log, wait_http
from swift_aio import Postgres, SwiftAIO

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = "2020-juju-evacuate-race"
CONTAINER = "evacdoc"
API_TOKEN = "realstack-api-token-0123456789"
# With REALSTACK_TOKEN_LIFE, Keystone's token lifetime, and step 3: evacdoc renews with
# five minutes (300 s) left, or half of the lifetime when that is shorter, so a token is
# renewed before its next use once TOKEN_LIFE - RENEW_BEFORE s old. Step 1 and the
# revocation must take less than that after evacdoc signs in (a token renewed before
# the revocation meets no 401): 240 (2 min) held on a loaded machine, 90 did not. The
# default is Keystone's hour and no step 3 (the wait alone would be 2 min).
TOKEN_LIFE = int(os.environ.get("REALSTACK_TOKEN_LIFE") or 0)
RENEW_BEFORE = min(300, TOKEN_LIFE // 2)


def api(base, method, path, body=None, timeout=60):
    req = urllib.request.Request(base + path, method=method, data=body,
                                 headers={"Authorization": "Bearer " + API_TOKEN})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode() or "null")


def tarball():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        t.add(os.path.join(ROOT, "samples/scenarios", SAMPLE), arcname=SAMPLE)
    return buf.getvalue()


def without_prefix(findings, upload=None):
    """The findings with paths relative to the sample folder: an upload's paths (in
    evidence, ids, remediation) start with the upload's name and the folder's."""
    text = json.dumps(findings, sort_keys=True)
    if upload:
        text = text.replace("%s/%s/" % (upload, SAMPLE), "")
    return json.loads(text)


def wait_analysis(base, aid, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = api(base, "GET", "/api/v1/analyses/" + aid)
        if v["status"] == "failed":
            return v
        if v["status"] == "done" and (v.get("index") or {}).get("state") in ("done", "failed"):
            return v
        time.sleep(0.5)
    raise RuntimeError("analysis %s not done within %d s: %s" % (aid, timeout, v))


def evacdoc_requests(swift, since=0.0):
    """The proxy's requests from evacdoc (reqwest sends no User-Agent: `-`)."""
    return [r for r in swift.access.requests(since) if r[5] == "-"]


def run_blobs(out, port_base, venv):
    shutil.rmtree(out, ignore_errors=True)
    bundle = os.path.join(out, "bundle")
    os.makedirs(os.path.join(bundle, CONTROLLER, "etc"), exist_ok=True)
    with open(os.path.join(bundle, CONTROLLER, "etc/hostname"), "w") as f:
        f.write(CONTROLLER + "\n")
    with open(os.path.join(bundle, CONTROLLER, "etc/timezone"), "w") as f:
        f.write("Etc/UTC\n")
    work = os.path.join(out, "work")
    stack = Stack(work, bundle, venv, port_base)
    swift = SwiftAIO(stack, {"proxy": port_base + 1, "account": port_base + 2,
                             "container": port_base + 3, "object": port_base + 4,
                             "memcached": port_base + 5, "syslog": port_base + 6})
    pg = Postgres(port_base + 7)
    base = "http://127.0.0.1:%d" % (port_base + 8)
    evacdoc = os.environ.get("EVACDOC") or os.path.join(ROOT, "target/debug/evacdoc")
    problems = []
    cases = []
    started = time.time()
    try:
        log("blobs: keystone (token expiration %s)" % ("%d s" % TOKEN_LIFE if TOKEN_LIFE else "default"))
        stack.start_keystone(token_expiration=TOKEN_LIFE or None)
        admin = openstack.connect(auth_url=stack.auth_url, username="admin", password=PASSWORD,
                                  project_name="admin", user_domain_id="default",
                                  project_domain_id="default", region_name="RegionOne")
        idn = admin.identity
        service = idn.find_project("service")
        u = idn.create_user(name="swift", password=PASSWORD, domain_id="default")
        idn.assign_project_role_to_user(service, u, idn.find_role("admin"))
        project = idn.create_project(name="evacdoc", domain_id="default")
        user = idn.create_user(name="evacdoc", password=PASSWORD, domain_id="default")
        idn.assign_project_role_to_user(project, user, idn.find_role("member"))
        s = idn.create_service(name="swift", type="object-store")
        for iface in ("public", "internal", "admin"):
            idn.create_endpoint(service_id=s.id, interface=iface, region_id="RegionOne",
                                url="%s/v1/AUTH_%%(project_id)s" % swift.url)
        log("blobs: swift (authtoken + keystoneauth, operator_roles admin, member)")
        swift.start()
        log("blobs: postgresql")
        store = pg.start()

        clouds = os.path.join(work, "clouds.yaml")
        with open(clouds, "w") as f:
            f.write("clouds:\n  realstack:\n    auth:\n      auth_url: %s\n      username: evacdoc\n"
                    "      password: %s\n      project_name: evacdoc\n      user_domain_name: Default\n"
                    "      project_domain_name: Default\n    region_name: RegionOne\n"
                    % (stack.auth_url, PASSWORD))
        env = {"OS_CLIENT_CONFIG_FILE": clouds, "EVACDOC_TOKEN": API_TOKEN,
               "EVACDOC_LOG": "evacdoc=info"}
        blobs = "swift://%s?cloud=realstack" % CONTAINER
        t_start = time.time()
        apiproc = stack.spawn("evacdoc-serve", [
            evacdoc, "serve", "--listen", "127.0.0.1:%d" % (port_base + 8), "--jobs", "0",
            "--store", store, "--blobs", blobs, "--data", os.path.join(work, "api")], env=env)
        wait_http(base + "/", "evacdoc serve", timeout=60, proc=apiproc)
        stack.spawn("evacdoc-worker", [
            evacdoc, "worker", "--store", store, "--blobs", blobs, "--jobs", "1",
            "--data", os.path.join(work, "worker")], env=env)
        log("blobs: evacdoc serve + worker on %s, %s" % (store.split("@")[1], blobs))

        body = tarball()
        plain = json.loads(subprocess.run(
            [evacdoc, "analyze", "--format", "json", os.path.join(ROOT, "samples/scenarios", SAMPLE)],
            check=True, stdout=subprocess.PIPE).stdout)["findings"]
        want = without_prefix(plain)
        user_conn = openstack.connect(auth_url=stack.auth_url, username="evacdoc",
                                      password=PASSWORD, project_name="evacdoc",
                                      user_domain_id="default", project_domain_id="default",
                                      region_name="RegionOne")

        def analyze(name):
            t0 = time.time()
            aid = api(base, "POST", "/api/v1/analyses?name=%s.tar.gz" % name, body)["id"]
            v = wait_analysis(base, aid)
            found = api(base, "GET", "/api/v1/analyses/%s/findings" % aid)
            objects = sorted(o.name for o in user_conn.object_store.objects(CONTAINER)
                             if o.name.startswith("analyses/%s/" % aid))
            attempt = v.get("attempts")
            case = {"case": name, "id": aid, "status": v["status"],
                    "index": (v.get("index") or {}).get("state"), "objects": objects,
                    "findings": [f.get("detector") for f in found],
                    "seconds": round(time.time() - t0, 1)}
            cases.append(case)
            log("blobs: %s: %s, index %s, %d object(s), findings %s (%.1f s)"
                % (name, v["status"], case["index"], len(objects), case["findings"], case["seconds"]))
            if v["status"] != "done" or case["index"] != "done":
                problems.append("%s: analysis %s, index %s (error %s)"
                                % (name, v["status"], case["index"], v.get("error")))
            for wanted in ("analyses/%s/a%s/document.json.zst" % (aid, attempt),
                           "analyses/%s/a%s/index.tar" % (aid, attempt)):
                if wanted not in objects:
                    problems.append("%s: %s not in Swift (%s)" % (name, wanted, objects))
            if not any(o.startswith("analyses/%s/input/" % aid) for o in objects):
                problems.append("%s: no upload under analyses/%s/input/ in Swift (%s)"
                                % (name, aid, objects))
            if without_prefix(found, name) != want:
                with open(os.path.join(out, name + ".findings.json"), "w") as f:
                    json.dump(without_prefix(found, name), f, indent=1, sort_keys=True)
                problems.append("%s: findings differ from `evacdoc analyze` of %s (%s.findings.json)"
                                % (name, SAMPLE, name))
            return t0

        # 1. Signed in through Keystone: the objects are in the container.
        analyze("first")
        reqs = evacdoc_requests(swift, t_start)
        tokens = {r[4] for r in reqs}
        cases.append({"case": "first-requests", "requests": len(reqs), "tokens": len(tokens),
                      "statuses": sorted({r[3] for r in reqs})})
        if not reqs:
            problems.append("first: Swift's access log shows no request from evacdoc")
        if len(tokens) > 2:
            problems.append("first: %d tokens for %d requests (one sign-in per process expected)"
                            % (len(tokens), len(reqs)))
        if any(r[3] == 401 for r in reqs):
            problems.append("first: 401s before any revocation: %s" % [r[:4] for r in reqs if r[3] == 401])

        # 2. Revoked: a 401, a new sign-in, the upload analyzed.
        t_revoke = time.time()
        for token in tokens:
            r = admin.identity.delete("/auth/tokens", headers={"X-Subject-Token": token})
            if r.status_code != 204:
                problems.append("revoke: Keystone answered %s" % r.status_code)
        log("blobs: revoked evacdoc's %d token(s) in Keystone" % len(tokens))
        time.sleep(1.1)  # Keystone's revocation events are to the second
        analyze("after-revoke")
        reqs = evacdoc_requests(swift, t_revoke)
        refused = [r for r in reqs if r[3] == 401]
        fresh = {r[4] for r in reqs if r[4] not in tokens and r[3] < 400}
        cases.append({"case": "revoked", "requests": len(reqs), "401": len(refused),
                      "refused_old_token": all(r[4] in tokens for r in refused),
                      "new_tokens": len(fresh)})
        log("blobs: after the revocation: %d request(s), %d answered 401 (old tokens), %d new token(s)"
            % (len(reqs), len(refused), len(fresh)))
        if not refused:
            problems.append("revoked: no 401 from Swift (was the token revoked?)")
        if not fresh:
            problems.append("revoked: no request with a new token")
        tokens |= {r[4] for r in reqs}

        if TOKEN_LIFE:
            # 3. Renewed before expiry: wait until the newest tokens are in their last 300 s.
            wake = time.time() + (TOKEN_LIFE - RENEW_BEFORE) + 3
            log("blobs: waiting %.0f s for the tokens' last %d s" % (wake - time.time(), RENEW_BEFORE))
            time.sleep(max(0, wake - time.time()))
            t_expiry = time.time()
            analyze("after-expiry")
            reqs = evacdoc_requests(swift, t_expiry)
            refused = [r for r in reqs if r[3] == 401]
            fresh = {r[4] for r in reqs if r[4] not in tokens}
            cases.append({"case": "renewed-before-expiry", "requests": len(reqs), "401": len(refused),
                          "new_tokens": len(fresh), "old_tokens_used": len({r[4] for r in reqs} & tokens)})
            log("blobs: in the tokens' last %d s: %d request(s), %d 401, %d new token(s), %d old"
                % (RENEW_BEFORE, len(reqs), len(refused), len(fresh), len({r[4] for r in reqs} & tokens)))
            if refused:
                problems.append("renewal: %d 401(s): the tokens were not renewed before use" % len(refused))
            if not fresh or {r[4] for r in reqs} & tokens:
                problems.append("renewal: requests with the old tokens (%d new)" % len(fresh))
        user_conn.close()
        admin.close()
    except Exception as e:
        problems.append("blobs: %s: %s" % (type(e).__name__, e))
    finally:
        log("blobs: stopping (%.0f s)" % (time.time() - started))
        stack.stop()
        swift.stop()
        pg.stop()
    truth = {
        "scenario": "blobs",
        "hosts": [{"name": CONTROLLER, "clock_offset_s": 0}],
        # The bundle is Keystone's log: no Masakari recovery, no finding.
        "recoveries": [],
        "expected_global": [],
        "files": {os.path.relpath(os.path.join(d, f), bundle): f[: -len(".log")]
                  for d, _, fs in os.walk(bundle) for f in fs if f.endswith(".log")},
        "configs": [],
        "cases": cases,
        "scenario_problems": problems,
    }
    stack.ground_truth(truth)
    return problems
