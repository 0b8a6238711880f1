import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import os, re, shutil, gzip
SRC = SCENARIOS + "/2025-kolla-healthy-recovery"
DST = SCENARIOS + "/2025-kolla-hostmonitor-join-epoch"
if os.path.exists(DST): shutil.rmtree(DST)
shutil.copytree(SRC, DST)
os.remove(os.path.join(DST, "README.md"))
def edit(rel, fn):
    p = os.path.join(DST, rel)
    lines = open(p).read().splitlines()
    out = fn(lines)
    open(p, "w").write("\n".join(out) + "\n")
EPOCH = {"cmp02": "1750146131", "ctl01": "1749978171"}
def hostmon(lines):
    out = []
    down = False
    for l in lines:
        if "masakarimonitors.ha.masakari" in l:
            continue  # no notification is ever sent
        m = re.search(r"\] '(\w+)' is '(online|offline)'\.$", l)
        if m:
            host, st = m.groups()
            if host == "cmp02" and (st == "offline" or down):
                v = "0"
            else:
                v = EPOCH[host]
            out.append(l[:m.start()] + f"] '{host}' is '{v}' (current: '{v}')." )
            if host == "cmp02" and v == "0" and not down:
                down = True
                ts = l.split(" 19 INFO")[0]
                t2 = ts[:-3] + "%03d" % (int(ts[-3:]) + 1)
                out.append(f"{t2} 19 INFO masakarimonitors.hostmonitor.host_handler.handle_host [-] Since host status is '0', hostmonitor doesn't send a notification.")
            continue
        out.append(l)
    return out
edit("cmp01/var/log/kolla/masakari/masakari-hostmonitor.log", hostmon)
# engine: no recovery at all
edit("ctl01/var/log/kolla/masakari/masakari-engine.log", lambda ls: [l for l in ls if "req-3ceb3ffd" not in l])
edit("ctl01/var/log/kolla/masakari/masakari-api.log", lambda ls: [l for l in ls if "14:21:05" not in l])
# nova-api: masakari's calls and the admin's re-enable are gone
edit("ctl01/var/log/kolla/nova/nova-api.log", lambda ls: [l for l in ls if "req-3ceb3ffd" not in l and " 14:24:41" not in l])
def access(ls):
    out = []
    for l in ls:
        if re.search(r"17/Jun/2025:14:0[3-7]:", l) and re.search(r"/servers|os-services|os-server-external-events", l):
            continue
        if "17/Jun/2025:14:24:41" in l:
            continue
        out.append(l)
    return out
edit("ctl01/var/log/kolla/nova/nova-api-access.log", access)
# cmp01: no evacuation onto it
edit("cmp01/var/log/kolla/nova/nova-compute.log", lambda ls: [l for l in ls if "[instance:" not in l and "nova.compute.claims" not in l])
# cmp02 stays down
edit("cmp02/var/log/kolla/nova/nova-compute.log", lambda ls: [l for l in ls if l < "2025-06-17 14:02"])
edit("ctl01/var/log/kolla/nova/nova-scheduler.log", lambda ls: [l for l in ls if "14:20:46" not in l])
