import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import sys, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

rnd = random.Random(29)
def uid():
    return "%08x-%04x-4%03x-%04x-%012x" % (rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(12), 0x8000 | rnd.getrandbits(14), rnd.getrandbits(48))
def req():
    return "req-" + uid()

VMS = ["0c5d8a2e-7f41-4b9a-9e63-2d1f8c4b7a50", "6a2f9e14-3b8c-4d27-a5e1-9c0b7d3f2e86"]
N = "e2b7c9d4-5a1f-4e83-b6d0-7f3a2c9e1b58"
HOSTUUID = "3d9f1b7c-2e5a-4c80-9a6d-1f8b3e7c5a24"
PEERS = ["compute-2", "juju-5f2e1a-3-lxd-5", "juju-5f2e1a-4-lxd-5", "juju-5f2e1a-5-lxd-5"]

def ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)

def hm(t, msg, lvl="INFO", logger="masakarimonitors.hostmonitor.host_handler.handle_host"):
    return f"{ts(t)} 2941 {lvl} {logger} [-] {msg}\n"

def build(name, broken):
    global rnd
    rnd = random.Random(29)
    d = fresh(name)
    start = datetime(2023, 5, 9, 21, 40, 11, 402000)
    fail = datetime(2023, 5, 9, 21, 47, 40)
    resume = datetime(2023, 5, 9, 22, 10, 11) if broken else None
    log = hm(datetime(2023, 5, 9, 6, 12, 3, 118000), "Starting masakarimonitors-hostmonitor", logger="masakarimonitors.service")
    t = start
    notified = None
    while t < datetime(2023, 5, 9, 22, 20):
        log += hm(t, "Works on pacemaker-remote.")
        standing = broken and fail < t < resume
        if standing:
            log += hm(t + timedelta(milliseconds=180), "Pacemaker cluster doesn't have quorum.", "WARNING")
            log += hm(t + timedelta(milliseconds=181), "hostmonitor skips monitoring hosts.", "WARNING")
        else:
            for i, p in enumerate(PEERS):
                down = p == "compute-2" and t > fail
                st = "offline" if down else "online"
                log += hm(t + timedelta(milliseconds=150 + i), f"'{p}' is '{st}' (current: '{st}').")
                if down and notified is None:
                    notified = t + timedelta(milliseconds=160)
                    gen = notified - timedelta(milliseconds=5)
                    g = f"datetime.datetime({gen.year}, {gen.month}, {gen.day}, {gen.hour}, {gen.minute}, {gen.second}, {gen.microsecond})"
                    pl = "{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}"
                    log += hm(notified, f"Send a notification. {{'notification': {{'type': 'COMPUTE_HOST', 'hostname': 'compute-2', 'generated_time': {g}, 'payload': {pl}}}}}", logger="masakarimonitors.ha.masakari")
                    log += hm(notified + timedelta(milliseconds=412), f"Response: openstack.instance_ha.v1.notification.Notification(type=COMPUTE_HOST, hostname=compute-2, generated_time={gen.isoformat()}, payload={pl}, id=77, notification_uuid={N}, source_host_uuid={HOSTUUID}, status=new, created_at={gen.strftime('%Y-%m-%dT%H:%M:%S')}.000000, updated_at=None, location=Munch({{'cloud': 'defaults', 'region_name': 'RegionOne', 'zone': None, 'project': Munch({{'id': 'a3b9384a3a6df7918493caa7b9f59dda', 'name': 'services', 'domain_id': None, 'domain_name': None}})}}))", logger="masakarimonitors.ha.masakari")
        t += timedelta(seconds=60, milliseconds=31)
    c0 = "0/baremetal"
    write(d, c0 + "/etc/hostname", "compute-0")
    write(d, c0 + "/etc/timezone", "Etc/UTC")
    write(d, c0 + "/var/log/masakarimonitors/masakari-hostmonitor.log", log)
    write(d, c0 + "/etc/masakarimonitors/masakarimonitors.conf", """[DEFAULT]
debug = False
hostname = compute-0

[api]
region = RegionOne
api_interface = internal
auth_url = http://10.40.0.33:5000
project_name = services
username = masakari-monitors
password = *********

[host]
monitoring_interval = 60
disable_ipmi_check = True
corosync_multicast_interfaces = br-ex
corosync_multicast_ports = 5405
""")
    # compute-2: ends at the power loss
    c2 = "2/baremetal"
    write(d, c2 + "/etc/hostname", "compute-2")
    write(d, c2 + "/etc/timezone", "Etc/UTC")
    comp = ""
    t = datetime(2023, 5, 9, 21, 40, 31, 118000)
    while t < fail:
        comp += f"{ts(t)} 3102 INFO nova.compute.resource_tracker [{req()} - - - - -] Final resource view: name=compute-2 phys_ram=515645MB used_ram=24576MB phys_disk=2793GB used_disk=60GB total_vcpus=64 used_vcpus=6 pci_stats=[]\n"
        t += timedelta(seconds=61, milliseconds=207)
    write(d, c2 + "/var/log/nova/nova-compute.log", comp)
    # masakari engine
    m = "3/lxd/5"
    write(d, m + "/etc/hostname", "juju-5f2e1a-3-lxd-5")
    write(d, m + "/etc/timezone", "Etc/UTC")
    write(d, m + "/etc/masakari/masakari.conf", """[DEFAULT]
debug = False
notification_driver = taskflow_driver
os_privileged_user_name = masakari
os_privileged_user_tenant = services
wait_period_after_service_update = 180

[host_failure]
evacuate_all_instances = True
""")
    n0 = notified + timedelta(milliseconds=611)
    def e(dt, logger, ctx, msg):
        return f"{ts(n0 + timedelta(seconds=dt))} 1187 INFO {logger} [{ctx}] {msg}\n"
    api = req()
    eng = "2023-05-09 06:10:44.302 1187 INFO masakari.service [-] Starting engine (version 14.0.0)\n"
    eng += e(0, "masakari.engine.manager", f"{api} d428e72381f51bfefe91e9c237d6036a a3b9384a3a6df7918493caa7b9f59dda - 5ab753a7a0aee0b9382b278d134e11a1 5ab753a7a0aee0b9382b278d134e11a1", f"Processing notification {N} of type: COMPUTE_HOST")
    r = req()
    eng += e(0.19, "masakari.compute.nova", f"{r} masakari - - - -", "Disable nova-compute on compute-2")
    eng += e(0.31, "masakari.engine.drivers.taskflow.host_failure", f"{r} masakari - - - -", "Sleeping 180 sec before starting recovery thread until nova recognizes the node down.")
    eng += e(180.33, "masakari.compute.nova", f"{req()} masakari - - - -", "Fetch Server list on compute-2")
    dt = 180.9
    for vm in VMS:
        eng += e(dt, "masakari.compute.nova", f"{req()} masakari - - - -", f"Call get server command for instance {vm}")
        rr = req()
        eng += e(dt + 0.3, "masakari.compute.nova", f"{rr} masakari - - - -", f"Call lock server command for instance {vm}")
        eng += e(dt + 0.6, "masakari.compute.nova", f"{rr} masakari - - - -", f"Call evacuate command for instance {vm} on host None")
        dt += 1.1
    for k in range(6):
        for vm in VMS:
            eng += e(dt, "masakari.compute.nova", f"{req()} masakari - - - -", f"Call get server command for instance {vm}")
            dt += 0.55
    for vm in VMS:
        rr = req()
        eng += e(dt, "masakari.compute.nova", f"{rr} masakari - - - -", f"Call unlock server command for instance {vm}")
        dt += 0.3
    eng += e(dt + 0.2, "masakari.engine.manager", f"{rr} masakari - - - -", f"Notification {N} exits with status: finished.")
    write(d, m + "/var/log/masakari/masakari-engine.log", eng)
    return d

if __name__ == "__main__":
    build("2023-juju-hostmonitor-no-quorum", True)
    build("2023-juju-hostmonitor-quorate", False)
