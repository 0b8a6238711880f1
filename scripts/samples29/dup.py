import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import sys, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

VMS = ["4f2a9c1e-8b3d-4e7a-a6c5-1d0e9f8b7a62", "9b7e3d15-2c6a-4f48-8e1d-5a3c0b9f2e74"]
N1, N2 = "71d3a9e2-4c8b-4f15-9e60-2b7a5d1c3f84", "a8e52c1f-6d9b-4a37-b0e4-3f1c7a9d5e26"
USER, PROJ, DOM = "d428e72381f51bfefe91e9c237d6036a", "a3b9384a3a6df7918493caa7b9f59dda", "5ab753a7a0aee0b9382b278d134e11a1"
rnd = random.Random(7)
def req():
    return "req-%08x-%04x-4%03x-%04x-%012x" % (rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(12), 0x8000 | rnd.getrandbits(14), rnd.getrandbits(48))
def ts(t): return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)

def flow(t0, n, api_req, refused):
    """Engine lines of one flow, and the nova-api lines it caused."""
    eng, nova = [], []
    def e(dt, lvl, logger, ctx, msg, more=""):
        eng.append(f"{ts(t0 + timedelta(seconds=dt))} 118 {lvl} {logger} [{ctx}] {msg}{more}")
    def api(dt, r, line):
        nova.append(f"{ts(t0 + timedelta(seconds=dt))} 4127 INFO {line[0]} [{r} {USER} {PROJ} - {DOM} {DOM}] {line[1]}")
    e(0, "INFO", "masakari.engine.manager", f"{api_req} {USER} {PROJ} - {DOM} {DOM}", f"Processing notification {n} of type: COMPUTE_HOST")
    r = req(); e(0.18, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", "Disable nova-compute on compute-2")
    api(0.29, r, ("nova.api.openstack.requestlog", '10.40.0.35 "GET /v2.1/os-services?binary=nova-compute&host=compute-2" status: 200 len: 403 microversion: 2.53 time: 0.041221'))
    api(0.41, r, ("nova.api.openstack.requestlog", '10.40.0.35 "PUT /v2.1/os-services/6e1d2c3b-4a59-4867-9f0e-1a2b3c4d5e6f" status: 200 len: 396 microversion: 2.53 time: 0.077310'))
    e(0.47, "INFO", "masakari.engine.drivers.taskflow.host_failure", f"{r} masakari - - - -", "Sleeping 180 sec before starting recovery thread until nova recognizes the node down.")
    r = req(); e(180.5, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", "Fetch Server list on compute-2")
    api(180.6, r, ("nova.api.openstack.requestlog", '10.40.0.35 "GET /v2.1/servers/detail?all_tenants=True&host=compute-2" status: 200 len: 3811 microversion: 2.53 time: 0.211094'))
    dt = 181.0
    failed = []
    for vm in VMS:
        r = req(); e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call get server command for instance {vm}")
        api(dt + 0.09, r, ("nova.api.openstack.requestlog", f'10.40.0.35 "GET /v2.1/servers/{vm}" status: 200 len: 1890 microversion: 2.53 time: 0.080112'))
        r = req(); e(dt + 0.2, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call lock server command for instance {vm}")
        api(dt + 0.28, r, ("nova.api.openstack.requestlog", f'10.40.0.35 "POST /v2.1/servers/{vm}/action" status: 202 len: 0 microversion: 2.53 time: 0.061554'))
        r = req(); e(dt + 0.35, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call evacuate command for instance {vm} on host None")
        if refused:
            api(dt + 0.44, r, ("nova.api.openstack.wsgi", f"HTTP exception thrown: Cannot 'evacuate' instance {vm} while it is in task_state rebuilding"))
            api(dt + 0.45, r, ("nova.api.openstack.requestlog", f'10.40.0.35 "POST /v2.1/servers/{vm}/action" status: 409 len: 146 microversion: 2.53 time: 0.089930'))
            e(dt + 0.47, "WARNING", "masakari.engine.drivers.taskflow.host_failure", f"{r} masakari - - - -", "Conflict: masakari.exception.Conflict: Conflict")
            failed.append(vm)
        else:
            api(dt + 0.61, r, ("nova.api.openstack.requestlog", f'10.40.0.35 "POST /v2.1/servers/{vm}/action" status: 200 len: 34 microversion: 2.53 time: 0.254108'))
        dt += 0.7
    if not refused:
        for k in range(8):
            for vm in VMS:
                r = req(); e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call get server command for instance {vm}")
                dt += 0.6
    for vm in VMS:
        r = req(); e(dt, "INFO", "masakari.compute.nova", f"{r} masakari - - - -", f"Call unlock server command for instance {vm}")
        dt += 0.3
    if refused:
        ids = ",".join(sorted(failed))
        msg = f"Failed to evacuate instances '{ids}' from host 'compute-2'"
        e(dt + 0.1, "ERROR", "masakari.engine.manager", f"{r} masakari - - - -", f"Failed to process notification '{n}'. Reason: {msg}: masakari.exception.HostRecoveryFailureException: {msg}")
        e(dt + 0.2, "INFO", "masakari.engine.manager", f"{r} masakari - - - -", f"Notification {n} exits with status: error.")
    else:
        e(dt + 0.2, "INFO", "masakari.engine.manager", f"{r} masakari - - - -", f"Notification {n} exits with status: finished.")
    return eng, nova

def build(name, race):
    global rnd
    rnd = random.Random(7)
    d = fresh(name)
    t1 = datetime(2022, 10, 4, 16, 22, 41, 512000)
    units = [("3/lxd/4", "juju-9a1c3e-3-lxd-4"), ("4/lxd/4", "juju-9a1c3e-4-lxd-4")]
    e1, n1 = flow(t1, N1, req(), False)
    engines = {units[0]: e1, units[1]: []}
    nova = n1
    if race:
        e2, n2 = flow(t1 + timedelta(milliseconds=437), N2, req(), True)
        engines[units[1]] = e2
        nova = n1 + n2
    start = "2022-10-04 06:11:02.118 118 INFO masakari.service [-] Starting engine (version 13.0.0)"
    for (path, host), lines in engines.items():
        write(d, path + "/etc/hostname", host)
        write(d, path + "/etc/timezone", "Etc/UTC")
        write(d, path + "/etc/masakari/masakari.conf", """[DEFAULT]
debug = False
notification_driver = taskflow_driver
os_privileged_user_name = masakari
os_privileged_user_tenant = services
wait_period_after_service_update = 180
duplicate_notification_detection_interval = 180

[host_failure]
evacuate_all_instances = True
""")
        write(d, path + "/var/log/masakari/masakari-engine.log", "\n".join([start] + lines))
    nova.sort()
    write(d, "3/lxd/6/etc/hostname", "juju-9a1c3e-3-lxd-6")
    write(d, "3/lxd/6/etc/timezone", "Etc/UTC")
    write(d, "3/lxd/6/var/log/nova/nova-api-wsgi.log", "\n".join(nova))
    return d

build("2022-juju-two-flows-one-host", True)
build("2022-juju-one-flow-one-host", False)
