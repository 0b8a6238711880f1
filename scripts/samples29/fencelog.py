"""Class 13 from Pacemaker's own log: the fencing results pacemaker.log and syslog hold,
with no `pcs stonith history` capture in the bundle.

From the two samples of fence.py: the unfenced one loses its sos_commands/pacemaker
captures and its syslog's pacemaker lines, and gains /var/log/pacemaker/pacemaker.log in
Pacemaker 2.1.2's file format (lib/common/logging.c `set_format_string`: `%T %s %-20s[%lu]
(%n) %g\\t%p: %b`, libqb's `%T` with milliseconds; the daemon name padded to 20): the
controller's `Requesting fencing (%s) of node %s | action=%s timeout=%u`
(daemons/controld/controld_fencing.c:870, te_fence_node), fenced's `Operation '%s'
targeting %s by %s for %s@%s: %s | id=%.8s` (daemons/fenced/fenced_remote.c:556,
remote_op_done) and the controller's `Peer %s was%s terminated (%s) by %s on behalf of %s:
%s | initiator=%s ref=%s` (controld_fencing.c:503, tengine_stonith_notify). The look-alike
is the fenced-first sample without its captures: its syslog alone says compute-1 was
fenced before the evacuation.
"""
import os
import re
import shutil
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

SOS = "sosreport-ctl-1-2024-05-21-hk3vqa"


def copy(src, dst):
    d = os.path.join(SCENARIOS, dst)
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(os.path.join(SCENARIOS, src), d)
    os.remove(os.path.join(d, "README.md"))
    shutil.rmtree(os.path.join(d, SOS, "sos_commands/pacemaker"))
    return os.path.join(d, SOS)


def detail(line, ms):
    """A syslog line of fence.py in pacemaker.log's own format."""
    m = re.match(r"(\w+ \d+ [\d:]+) (\S+) (pacemaker-\w+)\[(\d+)\]:  (\w+): (.*)$", line)
    stamp, node, daemon, pid, level, msg = m.groups()
    fn = "remote_op_done" if daemon == "pacemaker-fenced" else "tengine_stonith_notify"
    return f"{stamp}.{ms:03d} {node} {daemon:<20}[{pid}] ({fn}) \t{level}: {msg}"


def unfenced():
    h = copy("2024-sosreport-evacuated-unfenced", "2024-sosreport-evacuated-unfenced-pacemaker-log")
    p = os.path.join(h, "var/log/syslog")
    lines = open(p).read().splitlines()
    fencing = [l for l in lines if " pacemaker-" in l]
    write(h, "var/log/syslog", "\n".join(l for l in lines if " pacemaker-" not in l))
    out = []
    requests = {"10:01:26": "10:00:26", "10:02:31": "10:01:31", "10:05:58": "10:04:58"}
    for i, l in enumerate(fencing):
        when = l.split(" ")[2]
        if l.split(" ")[3] == "ctl-1" and "pacemaker-fenced" in l:
            req = requests[when]
            out.append(f"May 21 {req}.214 ctl-1 {'pacemaker-controld':<20}[2156] (te_fence_node) \tnotice: "
                       "Requesting fencing (reboot) of node compute-1 | action=12 timeout=60000")
        out.append(detail(l, 402 + i))
    write(h, "var/log/pacemaker/pacemaker.log", "\n".join(out))


def fenced_first():
    copy("2024-sosreport-evacuated-after-fencing", "2024-sosreport-fenced-before-evacuation-syslog")


unfenced()
fenced_first()
