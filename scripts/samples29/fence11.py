"""Class 13 with Pacemaker 1.1 (Ubuntu 18.04 Bionic, pacemaker 1.1.18; RHEL 7 ships 1.1 too):
the fencing results in the system log are stonith-ng's and crmd's, not pacemaker-fenced's
and pacemaker-controld's.

From fence.py's two samples (run it first): dates moved to 2019-03-12, masakari 7.0.0
(Stein, from the Ubuntu Cloud Archive; every engine text is in 7.0.0's sources), no
sos_commands/pacemaker captures (crm_mon 1.1.18 prints no fencing history), and the
syslog's Pacemaker lines rewritten in 1.1.18's forms. charm-hacluster's corosync.conf sets
`to_syslog: yes`, `to_logfile: no`, so the system log is where Pacemaker writes
(lib/common/logging.c `set_format_string`: `%g %-7p: %b` after syslog's `<daemon>[<pid>]: `;
the text after CRM_XS is left out of syslog). Texts:
- crmd/te_actions.c:186 `Requesting fencing (%s) of node %s | action=%s timeout=%d`
- fencing/commands.c:2555 `Client %s.%.8s wants to fence (%s) '%s' with device '%s'`
- fencing/remote.c:512 `Operation %s of %s by %s for %s@%s.%.8s: %s` (remote_op_done)
- crmd/te_utils.c:275 `Peer %s was%s terminated (%s) by %s on behalf of %s: %s | initiator=%s ref=%s`
"""
import os
import re
import shutil
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

OLD_SOS = "sosreport-ctl-1-2024-05-21-hk3vqa"
SOS = "sosreport-ctl-1-2019-03-12-pqx4tz"

PKGS = [
    ("adduser", "3.116ubuntu1", "all", "add and remove users and groups"),
    ("apt", "1.6.8", "amd64", "commandline package manager"),
    ("corosync", "2.4.3-0ubuntu1.1", "amd64", "cluster engine daemon and utilities"),
    ("crmsh", "3.0.1-3ubuntu1", "all", "CRM shell for the pacemaker cluster manager"),
    ("masakari-engine", "7.0.0-0ubuntu1~cloud0", "all", "OpenStack Masakari - engine"),
    ("nova-api", "2:19.0.0-0ubuntu1~cloud0", "all", "OpenStack Compute - API frontend"),
    ("openssh-server", "1:7.6p1-4ubuntu0.3", "amd64", "secure shell (SSH) server, for secure access from remote machines"),
    ("pacemaker", "1.1.18-0ubuntu1.1", "amd64", "cluster resource manager"),
    ("python3", "3.6.7-1~18.04", "amd64", "interactive high-level object-oriented language (default python3 version)"),
    ("python3-masakari", "7.0.0-0ubuntu1~cloud0", "all", "OpenStack Masakari - Python 3 libraries"),
    ("python3-nova", "2:19.0.0-0ubuntu1~cloud0", "all", "OpenStack Compute Python 3 libraries"),
]


def dpkg11():
    return HEAD + "".join(f"ii  {n:<36} {v:<39} {a:<12} {d}\n" for n, v, a, d in PKGS)


def redate(text):
    return (text.replace("2024-05-21", "2019-03-12").replace("May 21", "Mar 12")
            .replace("Tue May 21 11:40:02 UTC 2024", "Tue Mar 12 11:40:02 UTC 2019")
            .replace("version 13.0.0", "version 7.0.0"))


def pacemaker11(line):
    """A Pacemaker 2.1 syslog line of fence.py in 1.1.18's daemon names and forms."""
    m = re.match(r"(\w+ \d+ [\d:]+) (\S+) (pacemaker-\w+)\[(\d+)\]:  (\w+): (.*?)( \| .*)?$", line)
    if not m:
        return [line]
    stamp, node, daemon, pid, level, msg, _ = m.groups()
    level = f"{level:>7}"
    m2 = re.match(r"Operation 'reboot' targeting (\S+) by (\S+) for pacemaker-controld\.(\d+)@(\S+): (.*)$", msg)
    if m2:
        target, by, cpid, origin, rc = m2.groups()
        ref = {"10:01:26": "7d3b1e9a", "10:02:31": "0c5e8f21", "10:05:58": "b94a2d6c"}[stamp.split()[2]]
        req = {"10:01:26": "10:00:26", "10:02:31": "10:01:31", "10:05:58": "10:04:58"}[stamp.split()[2]]
        day = stamp.rsplit(" ", 1)[0]
        return [
            f"{day} {req} {node} crmd[{cpid}]:  notice: Requesting fencing (reboot) of node {target}",
            f"{day} {req} {node} stonith-ng[{pid}]:  notice: Client crmd.{cpid}.e2c1d5f3 wants to fence (reboot) '{target}' with device '(any)'",
            f"{stamp} {node} stonith-ng[{pid}]: {level}: Operation reboot of {target} by {by} for crmd.{cpid}@{origin}.{ref}: {rc}",
        ]
    m3 = re.match(r"Peer (\S+) was( not)? terminated \(reboot\) by (\S+) on behalf of pacemaker-controld\.(\d+): (.*)$", msg)
    if m3:
        target, neg, by, cpid, rc = m3.groups()
        return [f"{stamp} {node} crmd[{pid}]: {level}: Peer {target} was{neg or ''} terminated (reboot) by {by} on behalf of crmd.{cpid}: {rc}"]
    raise SystemExit(f"unexpected: {line}")


def make(src, dst):
    d = os.path.join(SCENARIOS, dst)
    if os.path.exists(d):
        shutil.rmtree(d)
    s = os.path.join(SCENARIOS, src, OLD_SOS)
    h = os.path.join(d, SOS)
    for rel in ["etc/hostname", "etc/timezone", "hostname", "sos_commands/host/hostname",
                "sos_commands/date/date", "sos_commands/date/date_--utc", "etc/masakari/masakari.conf",
                "var/log/masakari/masakari-engine.log", "var/log/nova/nova-api-wsgi.log"]:
        write(h, rel, redate(open(os.path.join(s, rel)).read()))
    write(h, "sos_commands/dpkg/dpkg_-l", dpkg11())
    out = []
    for l in redate(open(os.path.join(s, "var/log/syslog")).read()).splitlines():
        out.extend(pacemaker11(l))
    write(h, "var/log/syslog", "\n".join(out))


make("2024-sosreport-evacuated-unfenced", "2019-sosreport-bionic-evacuated-unfenced-pacemaker11")
make("2024-sosreport-evacuated-after-fencing", "2019-sosreport-bionic-fenced-before-evacuation-pacemaker11")
