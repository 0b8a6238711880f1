"""Class 4: the consul host monitor fails in every loop (and the look-alike that recovers).

Formats: masakari-monitors 17.0.0 consul driver: `Exception when host-monitor by consul: %s`
(masakarimonitors/hostmonitor/consul_check/manager.py:191 at 17.0.0, LOG.exception, so the
traceback follows: manager.py:188 monitor_hosts, :107 update_monitoring_data,
consul_helper.py:75 get_health); the notifier's `Send a notification.` line as in
quorum.py; oslo.log lines; Sunbeam hypervisor layout (snap logs under
var/snap/openstack-hypervisor/common/log, `snap list --all`).
"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from datetime import datetime, timedelta

LOGGER = "masakarimonitors.hostmonitor.consul_check.manager"
SITE = "/snap/openstack-hypervisor/161/lib/python3.10/site-packages/masakarimonitors/hostmonitor/consul_check"
EXC = "'NoneType' object has no attribute 'get_health'"
SNAPS = """Name                 Version          Rev    Tracking       Publisher   Notes
core22               20240823         1612   latest/stable  canonical**  base
openstack-hypervisor 2024.1           161    2024.1/stable  canonical**  -
snapd                2.63             21759  latest/stable  canonical**  snapd
"""


def ts(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)


def failure(t):
    p = f"{ts(t)} 2417 ERROR {LOGGER}"
    return [f"{p} [-] Exception when host-monitor by consul: {EXC}: AttributeError: {EXC}",
            f"{p} Traceback (most recent call last):",
            f'{p}   File "{SITE}/manager.py", line 188, in monitor_hosts',
            f"{p}     self.update_monitoring_data()",
            f'{p}   File "{SITE}/manager.py", line 107, in update_monitoring_data',
            f"{p}     cluster_health = self.consul_manager.get_health(self.sequence)",
            f'{p}   File "{SITE}/consul_helper.py", line 75, in get_health',
            f"{p}     agent_health = consul_agent.get_health()",
            f"{p} AttributeError: {EXC}",
            f"{p} "]


def build(name, recovers):
    d = fresh(name)
    write(d, "hostname", "sunbeam-2")
    write(d, "etc/hostname", "sunbeam-2")
    write(d, "etc/timezone", "Etc/UTC")
    write(d, "sos_commands/date/date", "Tue Sep 10 15:02:40 UTC 2024")
    write(d, "sos_commands/snap/snap_list_--all", SNAPS)
    t0 = datetime(2024, 9, 10, 13, 58, 2, 114000)
    lines = []
    # A failed loop every monitoring_interval (60 s) from 14:00 to 15:00; the look-alike's
    # agent comes back after three and its loop notifies.
    loops = 3 if recovers else 61
    for k in range(loops):
        lines += failure(t0 + timedelta(seconds=118 + 60 * k, microseconds=263000))
    if recovers:
        t = t0 + timedelta(seconds=118 + 60 * 6)
        lines.append(f"{ts(t)} 2417 INFO {LOGGER} [-] Host sunbeam-3 needs recovery, health status: "
                     "{'manage-interface': 'down', 'tenant-interface': 'down', 'storage-interface': 'down'}.")
        lines.append(f"{ts(t + timedelta(milliseconds=4))} 2417 INFO masakarimonitors.ha.masakari [-] Send a notification. "
                     "{'notification': {'type': 'COMPUTE_HOST', 'hostname': 'sunbeam-3', 'generated_time': "
                     "datetime.datetime(2024, 9, 10, 14, 6, 0, 118211), 'payload': {'event': 'STOPPED', "
                     "'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}}}")
    write(d, "var/snap/openstack-hypervisor/common/log/masakari/masakari-hostmonitor.log", "\n".join(lines))


build("2024-sunbeam-consul-monitor-failing", False)
build("2024-sunbeam-consul-monitor-recovered", True)
