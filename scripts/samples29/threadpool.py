import os, re, shutil
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
# pending-after-finished on a thread-pool Masakari (class 14), from 2025-kolla-healthy-recovery:
# db-01's first server lookup gets a 503, the exception leaves its evacuation thread.
SRC = SCENARIOS + "/2025-kolla-healthy-recovery"
DST = SCENARIOS + "/2025-kolla-pending-after-finished-threadpool"
DB = "3f8a6d2c-9e1b-4c7a-8d5f-6a2b1c9e0d47"
REQ = "req-092fdddf-22ce-47eb-b78c-f729420b0ebe"
if os.path.exists(DST):
    shutil.rmtree(DST)
shutil.copytree(SRC, DST)
os.remove(os.path.join(DST, "README.md"))


def edit(rel, fn):
    p = os.path.join(DST, rel)
    lines = open(p).read().splitlines()
    open(p, "w").write("\n".join(fn(lines)) + "\n")


def engine(lines):
    out, seen, done = [], False, False
    for l in lines:
        if DB in l:
            if seen:
                continue
            seen = True
        if not done and l > "2025-06-17 14:06:07.105":
            done = True
            exc = f"novaclient.exceptions.ClientException: Unknown Error (HTTP 503) (Request-ID: {REQ})"
            t = "2025-06-17 14:06:07.105 31 ERROR masakari.engine.drivers.taskflow.host_failure"
            ctx = "[req-3ceb3ffd-97b7-48b5-a163-ea7b5eb561a4 req-f6ced90a-ef82-4225-a0fd-18f25d92b243 nova - - - - -]"
            out.append(f"{t} {ctx} Exception in evacuation thread: Unknown Error (HTTP 503) (Request-ID: {REQ}): {exc}")
            for f in ["Traceback (most recent call last):",
                      '  File "/var/lib/kolla/venv/lib/python3.12/site-packages/masakari/engine/drivers/taskflow/host_failure.py", line 413, in execute',
                      "    future.result()  # This will raise any exceptions",
                      '  File "/usr/lib/python3.12/concurrent/futures/_base.py", line 449, in result',
                      "    return self.__get_result()",
                      '  File "/var/lib/kolla/venv/lib/python3.12/site-packages/masakari/engine/drivers/taskflow/host_failure.py", line 170, in _evacuate_and_confirm',
                      "    instance = self.novaclient.get_server(context, instance_uuid)",
                      '  File "/var/lib/kolla/venv/lib/python3.12/site-packages/novaclient/client.py", line 77, in request',
                      "    raise exceptions.from_response(resp, body, url, method)",
                      exc, ""]:
                out.append(f"{t} {f}")
        out.append(l)
    return out


def nova_api(lines):
    out = []
    for l in lines:
        if DB in l:
            if REQ in l:
                l = l.replace("status: 200", "status: 503")
            else:
                continue
        out.append(l)
    return out


def access(lines):
    out, seen = [], False
    for l in lines:
        if DB in l:
            if seen:
                continue
            seen = True
            l = l.replace('HTTP/1.1" 200 2206', 'HTTP/1.1" 503 216')
        out.append(l)
    return out


def drop(lines):
    return [l for l in lines if DB not in l]


edit("ctl01/var/log/kolla/masakari/masakari-engine.log", engine)
edit("ctl01/var/log/kolla/nova/nova-api.log", nova_api)
edit("ctl01/var/log/kolla/nova/nova-api-access.log", access)
edit("cmp01/var/log/kolla/nova/nova-compute.log", drop)
edit("cmp02/var/log/kolla/nova/nova-compute.log", drop)
