import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import os, re, shutil
SRC = SCENARIOS + "/2025-kolla-healthy-recovery"
DST = SCENARIOS + "/2025-kolla-notification-host-not-found"
if os.path.exists(DST): shutil.rmtree(DST)
shutil.copytree(SRC, DST)
os.remove(os.path.join(DST, "README.md"))
def edit(rel, fn):
    p = os.path.join(DST, rel)
    lines = open(p).read().splitlines()
    open(p, "w").write("\n".join(fn(lines)) + "\n")
FQ = {"cmp02": "cmp02.cloud.example.com", "ctl01": "ctl01.cloud.example.com"}
def hostmon(lines):
    out = []
    for l in lines:
        if l.startswith("2025-06-17 14:2") and ("masakarimonitors.ha" in l):
            continue  # cmp02 never comes back in this bundle
        m = re.search(r"\] '(\w+)' is '(online|offline)'\.$", l)
        if m:
            host, st = m.groups()
            if host == "cmp02" and l >= "2025-06-17 14:03":
                st = "offline"
            out.append(l[:m.start()] + f"] '{FQ[host]}' is '{st}' (current: '{st}').")
            continue
        if "Send a notification." in l:
            out.append(l.replace("'hostname': 'cmp02'", f"'hostname': '{FQ['cmp02']}'"))
            continue
        if "Response: " in l:
            out.append("2025-06-17 14:03:04.561 19 INFO masakarimonitors.ha.masakari [-] BadRequestException: 400: Client Error for url: http://10.10.0.10:15868/v1/notifications, Host with name cmp02.cloud.example.com could not be found.")
            continue
        out.append(l)
    return out
edit("cmp01/var/log/kolla/masakari/masakari-hostmonitor.log", hostmon)
def api(lines):
    out = [l for l in lines if not l.startswith("2025-06-17 14:21")]
    out.append("2025-06-17 14:03:04.538 26 INFO masakari.api.openstack.wsgi [None req-5d2c8e1a-7f3b-4a96-b0e4-2c9d6f1a8b37 e7a2c9d4b1f84e06a3d5c2b1f0e9d8c7 3c6f0a9d1b2e4f78a5c4d3e2f1a0b9c8 - - default default] HTTP exception thrown: Host with name cmp02.cloud.example.com could not be found.")
    return out
edit("ctl01/var/log/kolla/masakari/masakari-api.log", api)
edit("ctl01/var/log/kolla/masakari/masakari-engine.log", lambda ls: [l for l in ls if "req-3ceb3ffd" not in l])
edit("ctl01/var/log/kolla/nova/nova-api.log", lambda ls: [l for l in ls if "req-3ceb3ffd" not in l and " 14:24:41" not in l])
def access(ls):
    return [l for l in ls if not (re.search(r"17/Jun/2025:14:0[3-7]:", l) and re.search(r"/servers|os-services|os-server-external-events", l)) and "17/Jun/2025:14:24:41" not in l]
edit("ctl01/var/log/kolla/nova/nova-api-access.log", access)
edit("cmp01/var/log/kolla/nova/nova-compute.log", lambda ls: [l for l in ls if "[instance:" not in l and "nova.compute.claims" not in l])
edit("cmp02/var/log/kolla/nova/nova-compute.log", lambda ls: [l for l in ls if l < "2025-06-17 14:02"])
edit("ctl01/var/log/kolla/nova/nova-scheduler.log", lambda ls: [l for l in ls if "14:20:46" not in l])
