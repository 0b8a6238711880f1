#!/usr/bin/env python3
"""Deterministic benchmark bundle generator for evacdoc.

Writes an unpacked juju-crashdump-like tree (charmed OpenStack, mid-upgrade: some hosts
log in the pre-Zed oslo.log format, others in the Zed+ format) with realistic service
logs, daily rotations (x.log, x.log.1, x.log.2.gz ... x.log.9.gz), configs, a
juju_status.yaml, and embedded Masakari host-failure recoveries, some of which fail in
the three ways evacdoc detects. The recoveries are listed in DIR/ground_truth.json.

    python3 scripts/gen_bundle.py --size 1G --out DIR [--seed 7] [--hosts 9]

Sizes: 20M, 100M, 1G, 4G ... (binary units; the total *uncompressed* size of the logs
is within a few percent of it; about one third of it lives in the .gz rotations).
Same seed + size + hosts -> byte-identical output (random.Random(seed), fixed dates,
gzip level 6 with mtime=0). Python 3.11 standard library only.

Story of the cloud: logs cover 10 days (2023-03-06 .. 2023-03-15, UTC everywhere,
crashdump taken 2023-03-15 21:06 UTC). `debug = True` was switched on for the nova and
cinder services two days before the crashdump (so the two newest days, x.log and
x.log.1, hold two thirds of the bytes and the DEBUG lines); masakari runs with debug
on all along.

Options that vary the bundle along the axes of a real cloud (the default output is
unchanged, byte for byte):
    --debug all        every OpenStack service at DEBUG for all ten days; masakari-engine
                       logs keystoneauth `REQ: curl` / `RESP:`, novaclient `... used request
                       id`, urllib3 and taskflow `Flow/Task ... transitioned` lines around
                       every Nova call; nova-api, -conductor, -scheduler and the destination
                       compute log the evacuation's request context (untagged lines too);
                       oslo.messaging, placement (keystoneauth) and `_report_state` lines.
    --services all     syslog on every host, libvirtd and the neutron OVS agent on every
                       compute, neutron-server, rabbitmq, cinder-scheduler and cinder's
                       Apache access log, on each of 3 control planes (--controllers N);
                       Masakari engines, nova-api (HAProxy round robin), conductors and
                       cinder-api serve the recoveries from all of them.
    --layout L         juju (default) | juju-nostatus (machine folders N/, containers
                       N/lxd/0.., no juju_status.yaml, no unit links) | sosreport (one
                       sosreport-<host>[-<case>]-<date>-<rand>/ per host: hostname,
                       sos_commands/{host,date,logs}; host names end in -01 ..) | kolla
                       (<host>/var/log/kolla/<service>/, Apache %D access format) | k8s
                       (<node>/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log, CRI lines
                       `<RFC 3339 nano> stdout|stderr P|F <line>`, kubelet rotation names).
    --wrap kubectl     with --layout k8s: the pods' files as `kubectl logs` shows them
                       instead of CRI lines, the forms given in turn: `--prefix
                       --timestamps` (`[pod/<pod>/<container>] <RFC 3339 nano> <line>`),
                       `--timestamps`, `--prefix`, and `--timestamps` over pebble's prefix.
                       Outside juju a controller is one host running all its services.
    --zones Z1,Z2..    hosts' local time zones, given in turn (oslo, Apache, syslog stamps
                       and etc/timezone follow; libvirt and progress details stay UTC).
    --skews R=S,..     known clock offsets in seconds (R: hostname or compute-<i>, ncc-<c>,
                       masakari-<c> ...): every stamp the host writes is S seconds ahead.
    --instances N      N .. 1.25 N instances per failed host, evacuated by 3 worker threads.
    --overlap          every second recovery starts seconds after the previous one, on
                       another host: two notifications' lines interleave.
    --failures hard    partial races (only the first evacuate calls get HTTP 400, the retry
                       evacuates just those), 1-3 pending instances, boot-from-volume delays
                       alternating between the two forms (Nova accepts the evacuate call
                       ~13 min after Masakari started it / the rebuild comes 8-14 min after
                       acceptance) and the compute's `disk on volume` line without an
                       `[instance: ]` tag; polls once a second until the instance is active.
    --captures         `openstack notification show -f json` captures (progress details).

ground_truth.json (format evacdoc-bench-truth/2; format 1 was the bare list now under
"recoveries"): host_count, hosts (name, root, aliases, roles, zone, clock_offset_s),
clock_offsets_s, the generator options, and per recovery: notification_id, expected
(healthy | evacuate-400-race | pending-after-finished | bfv-evacuation-delay),
expected_detectors ([] when healthy), instances, instances_concerned (raced / pending /
delayed ones), boot_from_volume, bfv_form, evacuate request ids, statuses, times (UTC).
"""

import argparse
import datetime as _dt
import gzip
import json
import os
import random
import re
import shutil
import sys
import time
import zoneinfo
from concurrent.futures import ThreadPoolExecutor

# --------------------------------------------------------------------------------------
# constants

START = _dt.datetime(2023, 3, 6, 0, 0, 0)  # day 0, 00:00 UTC
DAYS = 10
DAY_MS = 86_400_000
COLLECT_MS = (DAYS - 1) * DAY_MS + (21 * 3600 + 6 * 60) * 1000  # crashdump time
DEBUG_FROM_DAY = DAYS - 2  # debug switched on for nova/cinder from this day on

PRE, ZED = "pre-zed", "zed+"

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
PY = "/usr/lib/python3/dist-packages/"

# keystone ids (32 hex) used in contexts
MASAKARI_USER = "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3"
SERVICES_PROJ = "4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8"
SERVICE_DOMAIN = "3d9c6f1a2b5e4c7d8e0f1a2b3c4d5e6f"
NEUTRON_USER = "16751a85f22742118f068dc6763feace"
NOVA_USER = "5a7c9e1b3d5f47a9b1c3e5f7a9b1c3d5"
CINDER_USER = "6b8d0f2a4c6e48b0a2c4e6f8a0b2c4e6"
JUJU_USER, JUJU_PROJ = "1bad1f0b42df4ed3800231d7bf091b59", "226937c2155f42ac87679f550135fa62"
ADMIN_USER, ADMIN_PROJ = "1302e1fd3c614a00a16b14b4384de079", "c404e39f511c47ce95fd4838e60a762a"
ADMIN_DOMAIN = "9daa42d0bdb943168611e3747d30a59f"
TENANTS = [
    ("0c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5", "6b7c8d9e0f1a42b3c4d5e6f7a8b9c0d1"),
    ("a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d", "f0e1d2c3b4a5469788a9b0c1d2e3f4a5"),
    ("77e8f9a0b1c24d3e4f5a6b7c8d9e0f1a", "2b3c4d5e6f7a48b9c0d1e2f3a4b5c6d7"),
]

VERSIONS = {PRE: ("25.1.1", "13.0.0", "20.1.0", "21.0.0"), ZED: ("27.1.0", "15.0.0", "22.0.0", "23.0.0")}
# (nova, masakari, cinder, keystone)

# --------------------------------------------------------------------------------------
# helpers


def parse_size(s):
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = 1
    if s and s[-1] in "KMGT":
        mult = 1 << (10 * ("KMGT".index(s[-1]) + 1))
        s = s[:-1]
    v = float(s) * mult
    if v < (4 << 20):
        raise SystemExit("gen_bundle: --size must be at least 4M")
    return int(v)


VAR = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


class Ids:
    """Fast deterministic uuid4 / hex ids from one random.Random (built in batches)."""

    def __init__(self, rng):
        self.rng = rng
        self.buf = ""
        self.pos = 0
        self.it = iter(())

    def _take(self, n):
        p = self.pos
        if p + n > len(self.buf):
            self.buf = self.rng.randbytes(32768).hex()
            p = 0
        self.pos = p + n
        return self.buf[p:p + n]

    def _refill(self):
        h = self.rng.randbytes(16 * 4096).hex()
        v = VAR
        self.it = iter([h[i:i + 8] + "-" + h[i + 8:i + 12] + "-4" + h[i + 13:i + 16] + "-" + v[h[i + 16]] + h[i + 17:i + 20] + "-" + h[i + 20:i + 32]
                        for i in range(0, len(h), 32)])

    def uuid(self):
        for u in self.it:
            return u
        self._refill()
        return next(self.it)

    def req(self):
        for u in self.it:
            return "req-" + u
        self._refill()
        return "req-" + next(self.it)

    def hex(self, n=32):
        return self._take(n)


SEC2 = ["%02d" % i for i in range(60)]
MS3 = ["%03d" % i for i in range(1000)]


class Clock:
    """Millisecond offsets from START -> oslo / apache timestamps (cached per minute).

    zone: a zoneinfo.ZoneInfo for hosts whose logs are in local time (None: UTC);
    offset_ms: how far the host's clock is ahead of true time (a known skew)."""

    def __init__(self, zone=None, offset_ms=0):
        self.zone = zone
        self.off = offset_ms
        self.oc = {}
        self.ac = {}
        self.ls = -1
        self.lp = ""

    def _local(self, m):
        d = START + _dt.timedelta(minutes=m)
        if self.zone is None:
            return d, "+0000"
        d = d.replace(tzinfo=_dt.timezone.utc).astimezone(self.zone)
        z = d.strftime("%z")
        return d.replace(tzinfo=None), z

    def oslo(self, ms):
        ms += self.off
        sec, r = divmod(ms, 1000)
        if sec != self.ls:
            self.ls = sec
            m, ss = divmod(sec, 60)
            p = self.oc.get(m)
            if p is None:
                d, _ = self._local(m)
                p = d.strftime("%Y-%m-%d %H:%M:")
                self.oc[m] = p
            self.lp = p + SEC2[ss] + "."
        return self.lp + MS3[r]

    def apache(self, ms):
        ms += self.off
        m, r = divmod(ms, 60000)
        p = self.ac.get(m)
        if p is None:
            d, z = self._local(m)
            p = ("%02d/%s/%04d:%02d:%02d:" % (d.day, MONTHS[d.month - 1], d.year, d.hour, d.minute), z)
            self.ac[m] = p
        return "[%s%02d %s]" % (p[0], r // 1000, p[1])

    def http(self, ms):
        """RFC 7231 date (GMT) of the host clock, as in a Date: header."""
        ms += self.off
        d = START + _dt.timedelta(milliseconds=ms)
        return "%s, %02d %s %04d %02d:%02d:%02d GMT" % (
            ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[d.weekday()], d.day, MONTHS[d.month - 1], d.year, d.hour, d.minute, d.second)

    def syslog(self, ms):
        """RFC 3164 stamp in local time: 'Mar  6 00:00:01'."""
        ms += self.off
        m, r = divmod(ms, 60000)
        d, _ = self._local(m)
        return "%s %2d %02d:%02d:%02d" % (MONTHS[d.month - 1], d.day, d.hour, d.minute, r // 1000)

    def utc(self, ms):
        """The host clock's UTC reading (libvirt, CRI, progress details): offset, no zone."""
        ms += self.off
        d = START + _dt.timedelta(milliseconds=ms)
        return d.strftime("%Y-%m-%d %H:%M:%S.") + MS3[ms % 1000]

    @staticmethod
    def iso(ms):
        d = START + _dt.timedelta(milliseconds=ms)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


CLOCK = Clock()


def ctx_req(era, rid, user, proj, ud="default", pd="default", gid=None):
    if era == PRE:
        return "[%s %s %s - %s %s] " % (rid, user, proj, ud, pd)
    return "[%s %s %s %s - - %s %s] " % (gid or "None", rid, user, proj, ud, pd)


def ctx_admin(era, rid, gid=None):
    if era == PRE:
        return "[%s - - - - -] " % rid
    return "[%s %s - - - - - -] " % (gid or "None", rid)


def ctx_masakari_nova(era, lid, gid):
    """masakari's per-Nova-call context (privileged user name 'masakari')."""
    if era == PRE:
        return "[%s masakari - - - -] " % lid
    return "[%s %s masakari - - - - -] " % (gid, lid)


def dbg(func, path, line):
    return " %s %s%s:%d" % (func, PY, path, line)


def rot_name(base, day):
    age = DAYS - 1 - day
    if age == 0:
        return base
    if age == 1:
        return base + ".1"
    return base + ".%d.gz" % age


def traceback_lines(ts, pid, logger, frames, exc):
    p = "%s %s ERROR %s " % (ts, pid, logger)
    out = [p + "Traceback (most recent call last):\n"]
    for f, code in frames:
        out.append(p + "  " + f + "\n")
        out.append(p + "    " + code + "\n")
    out.append(p + exc + "\n")
    out.append(p + "\n")
    return "".join(out)


TB_MSGTIMEOUT = [
    ('File "%soslo_messaging/rpc/client.py", line 177, in call' % PY, "self.transport._send(self.target, msg_ctxt, msg,"),
    ('File "%soslo_messaging/transport.py", line 124, in _send' % PY, "return self._driver.send(target, ctxt, message,"),
    ('File "%soslo_messaging/_drivers/amqpdriver.py", line 652, in send' % PY, "return self._send(target, ctxt, message, wait_for_reply, timeout,"),
    ('File "%soslo_messaging/_drivers/amqpdriver.py", line 641, in _send' % PY, "result = self._waiter.wait(msg_id, timeout,"),
    ('File "%soslo_messaging/_drivers/amqpdriver.py", line 507, in get' % PY, "raise oslo_messaging.MessagingTimeout("),
]
TB_DB = [
    ('File "%ssqlalchemy/engine/base.py", line 1276, in _execute_context' % PY, "self.dialect.do_execute("),
    ('File "%ssqlalchemy/engine/default.py", line 593, in do_execute' % PY, "cursor.execute(statement, parameters)"),
    ('File "%spymysql/cursors.py", line 163, in execute' % PY, "result = self._query(query)"),
    ('File "%spymysql/connections.py", line 732, in _read_packet' % PY, "packet.raise_for_error()"),
]
TB_KS = [
    ('File "%skeystone/server/flask/application.py", line 74, in _handle_keystone_exception' % PY, "raise error"),
    ('File "%skeystone/auth/core.py", line 400, in authenticate' % PY, "raise exception.Unauthorized(msg)"),
]


# --------------------------------------------------------------------------------------
# background line generators.  Each template is f(g) -> str (one record, maybe several
# lines); paired templates also append an access line to g.aux and count it in g.auxn.


class G:
    """Generator state shared by the templates of one output group."""

    __slots__ = ("ts", "t", "ids", "rnd", "aux", "auxn", "host", "era", "pid", "pids",
                 "inst", "ip", "vols", "rps", "hosts", "bad", "ck", "hname")

    def pick(self, seq):
        return seq[int(self.rnd() * len(seq))]


def mk_pids(rng, n, lo=1000, hi=400000):
    return [str(rng.randrange(lo, hi)) for _ in range(n)]


def T(weight, fn, debug=False):
    return (weight, fn, debug)


MULTI_SHARE = 0.01   # records with continuation lines
ERROR_SHARE = 0.003  # ERROR records followed by a prefixed traceback


def build_table(tpls, with_debug, size=10000):
    """Selection table: template functions repeated by weight. Templates named multi* /
    err_tb get fixed shares of the records (1 % and 0.3 %) whatever the debug level."""
    tpls = [t for t in tpls if with_debug or not t[2]]
    multi = [t for t in tpls if t[1].__name__ in ("guest_xml", "placement_409", "multi")]
    errs = [t for t in tpls if t[1].__name__ == "err_tb"]
    rest = [t for t in tpls if t not in multi and t not in errs]
    table = []
    for group, share in ((multi, MULTI_SHARE), (errs, ERROR_SHARE)):
        tot = sum(t[0] for t in group) or 1
        for w, fn, _ in group:
            table.extend([fn] * max(1, round(w / tot * share * size)))
    n_rest = size - len(table)
    tot = sum(t[0] for t in rest)
    for w, fn, _ in rest:
        table.extend([fn] * max(1, round(w / tot * n_rest)))
    return table


# ---- nova-compute -------------------------------------------------------------------

PERIODIC_COMPUTE = [
    "ComputeManager._poll_rebooting_instances", "ComputeManager._poll_rescued_instances",
    "ComputeManager._poll_unconfirmed_resizes", "ComputeManager._instance_usage_audit",
    "ComputeManager._poll_volume_usage", "ComputeManager._reclaim_queued_deletes",
    "ComputeManager.update_available_resource", "ComputeManager._check_instance_build_time",
    "ComputeManager._heal_instance_info_cache", "ComputeManager._sync_power_states",
    "ComputeManager._cleanup_incomplete_migrations", "ComputeManager._cleanup_expired_console_auth_tokens",
]


def compute_templates():
    s_lock = dbg("inner", "oslo_concurrency/lockutils.py", 359)
    s_unlock = dbg("inner", "oslo_concurrency/lockutils.py", 371)
    s_per = dbg("run_periodic_tasks", "oslo_service/periodic_task.py", 210)
    s_hv = dbg("_report_hypervisor_resource_view", "nova/compute/resource_tracker.py", 1034)
    s_cmd = dbg("execute", "oslo_concurrency/processutils.py", 384)
    s_ret = dbg("execute", "oslo_concurrency/processutils.py", 422)
    s_ev = dbg("external_instance_event", "nova/compute/manager.py", 10316)
    s_disk = dbg("_get_instance_disk_info_from_config", "nova/virt/libvirt/driver.py", 10214)
    s_xml = dbg("_get_guest_xml", "nova/virt/libvirt/driver.py", 7002)
    s_heal = dbg("_heal_instance_info_cache", "nova/compute/manager.py", 9421)
    pci = ", ".join(
        '{"dev_id": "pci_0000_%02x_00_%d", "address": "0000:%02x:00.%d", "product_id": "%04x", '
        '"vendor_id": "8086", "numa_node": %d, "label": "label_8086_%04x", "dev_type": "type-PCI"}'
        % (b, f, b, f, 0x2020 + b, b % 2, 0x2020 + b) for b, f in [(0, 0), (3, 0), (3, 1), (0x5e, 0), (0x80, 0)])

    def final_view(g):
        return "%s %s INFO nova.compute.resource_tracker %sFinal resource view: name=%s phys_ram=257675MB used_ram=%dMB phys_disk=3725GB used_disk=%dGB total_vcpus=64 used_vcpus=%d pci_stats=[]\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.host, 98816 + 2048 * int(g.rnd() * 8), 20 * int(g.rnd() * 4), 30 + int(g.rnd() * 12))

    def lock_acq(g):
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "compute_resources" acquired by "nova.compute.resource_tracker.ResourceTracker._update_available_resource" :: waited 0.000s%s\n' % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_lock)

    def lock_rel(g):
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "compute_resources" "released" by "nova.compute.resource_tracker.ResourceTracker._update_available_resource" :: held %.3fs%s\n' % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), 0.05 + g.rnd() / 5, s_unlock)

    def hv_view(g):
        return "%s %s DEBUG nova.compute.resource_tracker %sHypervisor/Node resource view: name=%s free_ram=%dMB free_disk=3725GB free_vcpus=%d pci_devices=[%s]%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.host, 150000 + int(g.rnd() * 9000), 20 + int(g.rnd() * 12), pci, s_hv)

    def periodic(g):
        return "%s %s DEBUG oslo_service.periodic_task %sRunning periodic task %s%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(PERIODIC_COMPUTE), s_per)

    def qemu_cmd(g):
        return "%s %s DEBUG oslo_concurrency.processutils [-] Running cmd (subprocess): /usr/bin/python3 -m oslo_concurrency.prlimit --as=1073741824 --cpu=30 -- env LC_ALL=C LANG=C qemu-img info /var/lib/nova/instances/%s/disk --force-share --output=json%s\n" % (
            g.ts, g.pid, g.pick(g.inst), s_cmd)

    def qemu_ret(g):
        return '%s %s DEBUG oslo_concurrency.processutils [-] CMD "/usr/bin/python3 -m oslo_concurrency.prlimit --as=1073741824 --cpu=30 -- env LC_ALL=C LANG=C qemu-img info /var/lib/nova/instances/%s/disk --force-share --output=json" returned: 0 in %.3fs%s\n' % (
            g.ts, g.pid, g.pick(g.inst), 0.03 + g.rnd() / 20, s_ret)

    def vif_event(g):
        return "%s %s DEBUG nova.compute.manager %s[instance: %s] Received event network-vif-plugged-%s%s\n" % (
            g.ts, g.pid, ctx_req(g.era, g.ids.req(), NEUTRON_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN), g.pick(g.inst), g.ids.uuid(), s_ev)

    def heal(g):
        return "%s %s DEBUG nova.compute.manager %s[instance: %s] Updated the network info_cache for instance%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(g.inst), s_heal)

    def skip_disk(g):
        return "%s %s DEBUG nova.virt.libvirt.driver [-] skipping disk for instance-%08x as it does not have a path%s\n" % (
            g.ts, g.pid, int(g.rnd() * 40000), s_disk)

    def lifecycle(g):
        return "%s %s INFO nova.compute.manager %s[instance: %s] VM %s (Lifecycle Event)\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(g.inst), g.pick(("Paused", "Resumed", "Stopped", "Started")))

    def imagecache(g):
        return "%s %s INFO nova.virt.libvirt.imagecache [-] image %s at (/var/lib/nova/instances/_base/%s): checking\n" % (
            g.ts, g.pid, g.ids.uuid(), g.ids.hex(40))

    def took(g):
        u, p = g.pick(TENANTS)
        return "%s %s INFO nova.compute.manager %s[instance: %s] %s\n" % (
            g.ts, g.pid, ctx_req(g.era, g.ids.req(), u, p), g.pick(g.inst),
            g.pick(("Took %.2f seconds to spawn the instance on the hypervisor." % (1 + g.rnd() * 9),
                    "Took %.2f seconds to build instance." % (2 + g.rnd() * 12),
                    "Took %.2f seconds to destroy the instance on the hypervisor." % (g.rnd() * 2),
                    "Terminating instance", "Rebooting instance")))

    def sync_warn(g):
        n = 30 + int(g.rnd() * 20)
        return "%s %s WARNING nova.compute.manager %sWhile synchronizing instance power states, found %d instances in the database and %d instances on the hypervisor.\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), n, n - 1)

    def guest_xml(g):  # multi-line DEBUG record (continuation lines carry no prefix)
        u = g.pick(g.inst)
        u2, p2 = g.pick(TENANTS)
        return ('%s %s DEBUG nova.virt.libvirt.driver %s[instance: %s] End _get_guest_xml xml=<domain type="kvm">\n'
                "  <uuid>%s</uuid>\n  <name>instance-%08x</name>\n  <memory>4194304</memory>\n  <vcpu>2</vcpu>\n"
                "  <metadata>\n    <nova:instance xmlns:nova=\"http://openstack.org/xmlns/libvirt/nova/1.1\">\n"
                "      <nova:flavor name=\"m1.medium\"/>\n    </nova:instance>\n  </metadata>\n"
                "  <devices>\n    <disk type=\"network\" device=\"disk\">\n      <source protocol=\"rbd\" name=\"nova/%s_disk\"/>\n"
                "    </disk>\n  </devices>\n</domain>\n%s\n") % (
            g.ts, g.pid, ctx_req(g.era, g.ids.req(), u2, p2), u, u, int(g.rnd() * 40000), u, s_xml.lstrip())

    def placement_409(g):  # multi-line WARNING (the placement error text embeds \n\n)
        return ('%s %s WARNING nova.scheduler.client.report %sFailed to update inventory to [{\'VCPU\': {\'total\': 64}}] for resource provider with UUID %s.  Got 409: {"errors": [{"status": 409, "title": "Conflict", "detail": "There was a conflict when trying to complete your request.\n\n resource provider generation conflict  ", "code": "placement.concurrent_update", "request_id": "%s"}]}\n') % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.rps, g.ids.req())

    def err_tb(g):
        mid = g.ids.hex(32)
        head = "%s %s ERROR nova.compute.manager %sError updating resources for node %s.: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.host, mid)
        return head + traceback_lines(g.ts, g.pid, "nova.compute.manager", TB_MSGTIMEOUT,
                                      "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s" % mid)

    def bad_utf8(g):  # one latin-1 byte (0xE9), as left by a hand-edited instance name
        return "%s %s INFO nova.compute.manager %s[instance: %s] Instance display name 'caf\xe9-web-01' differs from hostname, using sanitized hostname 'cafe-web-01'\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(g.inst))

    tpls = [
        T(6, final_view), T(7, lock_acq, True), T(7, lock_rel, True), T(4, hv_view, True), T(14, periodic, True),
        T(6, qemu_cmd, True), T(6, qemu_ret, True), T(3, vif_event, True), T(3, heal, True), T(3, skip_disk, True),
        T(1, lifecycle), T(2, imagecache), T(2, took), T(0.4, sync_warn),
        T(0.5, guest_xml, True), T(0.5, placement_409), T(0.28, err_tb),
    ]
    return tpls, bad_utf8


# ---- nova-api (oslo wsgi log + apache access log) -------------------------------------

def api_templates():
    s_call = dbg("_process_stack", "nova/api/openstack/wsgi.py", 511)
    s_search = dbg("get_all", "nova/compute/api.py", 2920)
    s_lock = dbg("inner", "oslo_concurrency/lockutils.py", 359)
    s_unlock = dbg("inner", "oslo_concurrency/lockutils.py", 371)
    s_ret = dbg("__call__", "nova/api/openstack/wsgi.py", 941)
    UA_NC = "python-novaclient"
    UA_SDK = "openstacksdk/0.61.0 keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"
    UA_GOOSE = "goose (0.1.0)"

    def req(g, method, uri, status, blen, mv, user, proj, ud, pd, ua, dur, extra=""):
        rid = g.ids.req()
        pid = g.pick(g.pids)
        ctx = ctx_req(g.era, rid, user, proj, ud, pd)
        acc = '%s - - %s "%s %s HTTP/1.1" %d %d "-" "%s"\n' % (g.ip, g.ck.apache(g.t), method, uri, status, blen + 330, ua)
        g.aux.append(acc)
        g.auxn += len(acc)
        return "%s%s %s INFO nova.api.openstack.requestlog %s%s \"%s %s\" status: %d len: %d microversion: %s time: %.6f\n" % (
            extra, g.ts, pid, ctx, g.ip, method, uri, status, blen, mv, dur)

    def goose(g):
        return req(g, "GET", "/v2.1/servers/detail?name=juju-.%2A", 200, 39700 + int(g.rnd() * 1400), "2.1",
                   JUJU_USER, JUJU_PROJ, "default", "default", UA_GOOSE, 0.9 + g.rnd() * 0.5)

    def show(g):
        u, p = g.pick(TENANTS)
        return req(g, "GET", "/v2.1/servers/" + g.pick(g.inst), 200, 1850 + int(g.rnd() * 40), "2.1",
                   u, p, "default", "default", UA_NC, 0.08 + g.rnd() * 0.2)

    def flavors(g):
        return req(g, "GET", "/v2.1/flavors/detail", 200, 3121, "2.1",
                   JUJU_USER, JUJU_PROJ, "default", "default", UA_GOOSE, 0.08 + g.rnd() * 0.02)

    def ext_event(g):
        u = g.pick(g.inst)
        rid = g.ids.req()
        ctx = ctx_req(g.era, rid, NEUTRON_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN)
        pid = g.pick(g.pids)
        line = "%s %s INFO nova.api.openstack.compute.server_external_events %sCreating event network-vif-plugged:%s for instance %s on %s\n" % (
            g.ts, pid, ctx, g.ids.uuid(), u, g.pick(g.hosts))
        acc = '%s - - %s "POST /v2.1/os-server-external-events HTTP/1.1" 200 %d "-" "python-novaclient"\n' % (g.ip, g.ck.apache(g.t), 640 + int(g.rnd() * 40))
        g.aux.append(acc)
        g.auxn += len(acc)
        return line + "%s %s INFO nova.api.openstack.requestlog %s%s \"POST /v2.1/os-server-external-events\" status: 200 len: 213 microversion: 2.1 time: %.6f\n" % (
            g.ts, pid, ctx, g.ip, 0.06 + g.rnd() / 20)

    def all_tenants(g):
        return req(g, "GET", "/v2.1/servers/detail?all_tenants=True", 200, 14000 + int(g.rnd() * 2000), "2.1",
                   ADMIN_USER, ADMIN_PROJ, ADMIN_DOMAIN, ADMIN_DOMAIN, UA_SDK, 0.5 + g.rnd() * 0.4)

    def hypervisors(g):
        return req(g, "GET", "/v2.1/os-hypervisors/detail", 200, 6021, "2.1",
                   ADMIN_USER, ADMIN_PROJ, ADMIN_DOMAIN, ADMIN_DOMAIN, UA_SDK, 0.2 + g.rnd() * 0.1)

    def services(g):
        return req(g, "GET", "/v2.1/os-services?binary=nova-compute", 200, 1214, "2.1",
                   ADMIN_USER, ADMIN_PROJ, ADMIN_DOMAIN, ADMIN_DOMAIN, UA_SDK, 0.04 + g.rnd() * 0.01)

    def interfaces(g):
        u, p = g.pick(TENANTS)
        return req(g, "GET", "/v2.1/servers/%s/os-interface" % g.pick(g.inst), 200, 700 + int(g.rnd() * 60), "2.1",
                   u, p, "default", "default", UA_NC, 0.1 + g.rnd() * 0.1)

    def notfound(g):
        u, p = g.pick(TENANTS)
        missing = g.ids.uuid()
        rid = g.ids.req()
        pid = g.pick(g.pids)
        ctx = ctx_req(g.era, rid, u, p)
        acc = '%s - - %s "GET /v2.1/servers/%s HTTP/1.1" 404 %d "-" "%s"\n' % (g.ip, g.ck.apache(g.t), missing, 441, UA_NC)
        g.aux.append(acc)
        g.auxn += len(acc)
        return ("%s %s INFO nova.api.openstack.wsgi %sHTTP exception thrown: Instance %s could not be found.\n"
                "%s %s INFO nova.api.openstack.requestlog %s%s \"GET /v2.1/servers/%s\" status: 404 len: 111 microversion: 2.1 time: %.6f\n") % (
            g.ts, pid, ctx, missing, g.ts, pid, ctx, g.ip, missing, 0.05 + g.rnd() / 10)

    def calling(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.api.openstack.wsgi %sCalling method '<bound method ServersController.%s of <nova.api.openstack.compute.servers.ServersController object at 0x7f%010x>>'%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.pick(("show", "detail", "index")), int(g.rnd() * 2 ** 36), s_call)

    def searching(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.compute.api %sSearching by: {'deleted': False, 'project_id': '%s'}%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), p, s_search)

    def cell_lock(g):
        u, p = g.pick(TENANTS)
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "00000000-0000-0000-0000-000000000000" acquired by "nova.context.set_target_cell.<locals>.get_or_set_cached_cell_and_set_connections" :: waited 0.000s%s\n' % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), s_lock)

    def cell_unlock(g):
        u, p = g.pick(TENANTS)
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "00000000-0000-0000-0000-000000000000" "released" by "nova.context.set_target_cell.<locals>.get_or_set_cached_cell_and_set_connections" :: held 0.000s%s\n' % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), s_unlock)

    def returning(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.api.openstack.wsgi %sReturning 409 to user: Cannot 'resize' instance %s while it is in vm_state stopped%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.pick(g.inst), s_ret)

    def multi(g):  # multi-line: quota details wrapped by the API
        u, p = g.pick(TENANTS)
        return ("%s %s INFO nova.api.openstack.wsgi %sHTTP exception thrown: Quota exceeded for cores: Requested 8, but already used 96 of 100 cores\n"
                "Details:\n  project_id: %s\n  resource: cores\n") % (g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), p)

    def err_tb(g):
        u, p = g.pick(TENANTS)
        pid = g.pick(g.pids)
        head = "%s %s ERROR nova.api.openstack.wsgi %sUnexpected exception in API method: oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')\n" % (
            g.ts, pid, ctx_req(g.era, g.ids.req(), u, p))
        return head + traceback_lines(g.ts, pid, "nova.api.openstack.wsgi", TB_DB,
                                      "oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')")

    def bad_utf8(g):
        u, p = g.pick(TENANTS)
        return "%s %s INFO nova.api.openstack.wsgi %sHTTP exception thrown: Flavor m1.caf\xe9 could not be found.\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p))

    tpls = [
        T(5, goose), T(7, show), T(2, flavors), T(4, ext_event), T(2, all_tenants), T(1, hypervisors), T(1, services),
        T(1.5, interfaces), T(0.8, notfound),
        T(9, calling, True), T(3, searching, True), T(7, cell_lock, True), T(7, cell_unlock, True), T(0.5, returning, True),
        T(0.45, multi), T(0.15, err_tb),
    ]
    return tpls, bad_utf8


# ---- nova-conductor / nova-scheduler ---------------------------------------------------

def conductor_templates():
    s_lazy = dbg("obj_load_attr", "nova/objects/instance.py", 1099)
    s_sel = dbg("_schedule_instances", "nova/conductor/manager.py", 957)
    s_rp = dbg("_refresh_associations", "nova/scheduler/client/report.py", 781)
    s_lock = dbg("inner", "oslo_concurrency/lockutils.py", 359)

    def lazy(g):
        return "%s %s DEBUG nova.objects.instance %sLazy-loading '%s' on Instance uuid %s%s\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.pick(("flavor", "info_cache", "pci_requests", "numa_topology", "resources")), g.pick(g.inst), s_lazy)

    def selected(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.conductor.manager %sTook %.2f seconds to select destinations for 1 instance(s).%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), 0.05 + g.rnd() / 4, s_sel)

    def refresh(g):
        return "%s %s DEBUG nova.scheduler.client.report %sRefreshing inventories for resource provider %s%s\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.rps, s_rp)

    def lock(g):
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "%s" acquired by "nova.context.set_target_cell.<locals>.get_or_set_cached_cell_and_set_connections" :: waited 0.000s%s\n' % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.uuid(), s_lock)

    def rpc(g):
        return "%s %s INFO nova.compute.rpcapi %sAutomatically selected compute RPC version 6.1 from minimum service version 61\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()))

    def reconnect(g):
        return "%s %s INFO oslo.messaging._drivers.impl_rabbit [-] [%s] Reconnected to AMQP server on 172.27.100.137:5672 via [amqp] client with port %d.\n" % (
            g.ts, g.pick(g.pids), g.ids.uuid(), 40000 + int(g.rnd() * 20000))

    def multi(g):
        return ('%s %s WARNING nova.scheduler.client.report %sFailed to update inventory to [{\'MEMORY_MB\': {\'total\': 257675}}] for resource provider with UUID %s.  Got 409: {"errors": [{"status": 409, "title": "Conflict", "detail": "There was a conflict when trying to complete your request.\n\n resource provider generation conflict  ", "code": "placement.concurrent_update", "request_id": "%s"}]}\n') % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.rps, g.ids.req())

    def err_tb(g):
        pid = g.pick(g.pids)
        mid = g.ids.hex(32)
        head = "%s %s ERROR nova.conductor.manager %sFailed to schedule instances: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s\n" % (
            g.ts, pid, ctx_admin(g.era, g.ids.req()), mid)
        return head + traceback_lines(g.ts, pid, "nova.conductor.manager", TB_MSGTIMEOUT,
                                      "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s" % mid)

    def bad_utf8(g):
        return "%s %s INFO nova.compute.rpcapi %sInstance name 'd\xe9mo-01' normalised for notification\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()))

    tpls = [T(8, lazy, True), T(4, selected, True), T(4, refresh, True), T(6, lock, True), T(2, rpc), T(0.4, reconnect),
            T(0.2, multi), T(0.06, err_tb)]
    return tpls, bad_utf8


def scheduler_templates():
    s_start = dbg("select_destinations", "nova/scheduler/manager.py", 141)
    s_filt = dbg("get_filtered_objects", "nova/filters.py", 104)
    s_sync = dbg("sync_instance_info", "nova/scheduler/host_manager.py", 957)
    s_per = dbg("run_periodic_tasks", "oslo_service/periodic_task.py", 210)
    filters = ["AvailabilityZoneFilter", "ComputeFilter", "ComputeCapabilitiesFilter", "ImagePropertiesFilter",
               "ServerGroupAntiAffinityFilter", "ServerGroupAffinityFilter"]

    def start(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.scheduler.manager %sStarting to schedule for instances: ['%s']%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.ids.uuid(), s_start)

    def filt(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.filters %sFilter %s returned %d host(s)%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.pick(filters), 2 + int(g.rnd() * 4), s_filt)

    def synced(g):
        return "%s %s DEBUG nova.scheduler.host_manager %sSuccessfully synced instances from host '%s'.%s\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.pick(g.hosts), s_sync)

    def periodic(g):
        return "%s %s DEBUG oslo_service.periodic_task %sRunning periodic task SchedulerManager._discover_hosts_in_cells%s\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), s_per)

    def nomatch(g):
        return "%s %s INFO nova.scheduler.host_manager %sThe instance sync for host '%s' did not match. Re-created its InstanceList.\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.pick(g.hosts))

    def weighed(g):
        h = g.pick(g.hosts)
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG nova.scheduler.filter_scheduler %sWeighed [WeighedHost [host: (%s, %s) ram: %dMB disk: 3725GB io_ops: 0 instances: %d, weight: 2.0]]%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), h.split(".")[0], h, 150000 + int(g.rnd() * 9000), 30 + int(g.rnd() * 12),
            dbg("_get_sorted_hosts", "nova/scheduler/filter_scheduler.py", 462))

    def multi(g):
        return ("%s %s WARNING nova.scheduler.host_manager %sNo compute service record found for host %s\n"
                "Known hosts:\n  %s\n") % (g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.pick(g.hosts), "\n  ".join(g.hosts[:3]))

    def err_tb(g):
        pid = g.pick(g.pids)
        head = "%s %s ERROR nova.scheduler.host_manager %sFailed to refresh host states: oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')\n" % (
            g.ts, pid, ctx_admin(g.era, g.ids.req()))
        return head + traceback_lines(g.ts, pid, "nova.scheduler.host_manager", TB_DB,
                                      "oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')")

    def bad_utf8(g):
        return "%s %s INFO nova.scheduler.host_manager %sAggregate 'r\xe9seau-az1' metadata refreshed\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()))

    tpls = [T(4, start, True), T(12, filt, True), T(3, synced, True), T(2, periodic, True), T(1.2, nomatch), T(3, weighed, True),
            T(0.25, multi), T(0.08, err_tb)]
    return tpls, bad_utf8


# ---- cinder ----------------------------------------------------------------------------

def cinder_api_templates():
    s_body = dbg("get_body", "cinder/api/openstack/wsgi.py", 720)

    def pair(g):
        u, p = g.pick(TENANTS)
        rid = g.ids.req()
        ctx = ctx_req(g.era, rid, u, p)
        pid = g.pick(g.pids)
        path = g.pick(("volumes/detail", "volumes/" + g.pick(g.vols), "snapshots/detail", "types"))
        return ("%s %s INFO cinder.api.openstack.wsgi %sGET http://172.27.100.129:8776/v3/%s/%s\n"
                "%s %s INFO cinder.api.openstack.wsgi %shttp://172.27.100.129:8776/v3/%s/%s returned with HTTP 200\n") % (
            g.ts, pid, ctx, p, path, g.ts, pid, ctx, p, path)

    def getall(g):
        u, p = g.pick(TENANTS)
        return "%s %s INFO cinder.volume.api %sGet all volumes completed successfully.\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p))

    def body(g):
        u, p = g.pick(TENANTS)
        return "%s %s DEBUG cinder.api.openstack.wsgi %sEmpty body provided in request%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), s_body)

    def multi(g):
        u, p = g.pick(TENANTS)
        return ("%s %s INFO cinder.api.openstack.wsgi %sHTTP exception thrown: Invalid volume: Volume status must be available or error\n"
                "  volume_id: %s\n") % (g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.pick(g.vols))

    def err_tb(g):
        pid = g.pick(g.pids)
        u, p = g.pick(TENANTS)
        head = "%s %s ERROR cinder.api.middleware.fault %sCaught error: <class 'oslo_db.exception.DBConnectionError'> (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')\n" % (
            g.ts, pid, ctx_req(g.era, g.ids.req(), u, p))
        return head + traceback_lines(g.ts, pid, "cinder.api.middleware.fault", TB_DB,
                                      "oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')")

    def bad_utf8(g):
        u, p = g.pick(TENANTS)
        return "%s %s INFO cinder.volume.api %sVolume 'donn\xe9es-01' renamed\n" % (g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p))

    return [T(10, pair), T(4, getall), T(6, body, True), T(0.3, multi), T(0.05, err_tb)], bad_utf8


def cinder_volume_templates():
    s_pub = dbg("_publish_service_capabilities", "cinder/manager.py", 194)
    s_per = dbg("run_periodic_tasks", "oslo_service/periodic_task.py", 210)
    s_rados = dbg("_connect_to_rados", "cinder/volume/drivers/rbd.py", 417)

    def pub(g):
        return "%s %s DEBUG cinder.manager %sNotifying Schedulers of capabilities ...%s\n" % (g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_pub)

    def per(g):
        return "%s %s DEBUG oslo_service.periodic_task %sRunning periodic task VolumeManager.publish_service_capabilities%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_per)

    def rados(g):
        return "%s %s DEBUG cinder.volume.drivers.rbd %sconnecting to cinder-ceph (timeout=-1).%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_rados)

    def stats(g):
        return "%s %s INFO cinder.volume.manager %sInitializing RPC dependent components of volume driver RBDDriver (1.2.0)\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req())) if g.rnd() < 0.02 else \
            "%s %s INFO cinder.volume.manager %sTerminate volume connection completed successfully.\n" % (
                g.ts, g.pid, ctx_req(g.era, g.ids.req(), NOVA_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN))

    def attach(g):
        return "%s %s INFO cinder.volume.manager %sAttach volume completed successfully.\n" % (
            g.ts, g.pid, ctx_req(g.era, g.ids.req(), NOVA_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN))

    def multi(g):
        return ("%s %s WARNING cinder.volume.drivers.rbd %sUnable to get rados pool stats:\n"
                "  pool: cinder-ceph\n  error: timed out\n") % (g.ts, g.pid, ctx_admin(g.era, g.ids.req()))

    def err_tb(g):
        mid = g.ids.hex(32)
        head = "%s %s ERROR cinder.volume.manager %sFailed to report capabilities: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), mid)
        return head + traceback_lines(g.ts, g.pid, "cinder.volume.manager", TB_MSGTIMEOUT,
                                      "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID %s" % mid)

    def bad_utf8(g):
        return "%s %s INFO cinder.volume.manager %sVolume type 'r\xe9plique' capabilities updated\n" % (g.ts, g.pid, ctx_admin(g.era, g.ids.req()))

    return [T(6, pub, True), T(6, per, True), T(4, rados, True), T(3, stats), T(2, attach), T(0.2, multi), T(0.05, err_tb)], bad_utf8


# ---- keystone (oslo log + apache access) -------------------------------------------------

def keystone_templates():
    s_req = dbg("log_request_info", "keystone/server/flask/request_processing/req_logging.py", 27)
    UA = "keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"

    def token(g):
        rid = g.ids.req()
        pid = g.pick(g.pids)
        acc = '%s - - %s "POST /v3/auth/tokens HTTP/1.1" 201 %d "-" "%s"\n' % (g.pick(g.hosts), g.ck.apache(g.t), 8700 + int(g.rnd() * 200), UA)
        g.aux.append(acc)
        g.auxn += len(acc)
        return "%s %s INFO keystone.common.fernet_utils %sLoaded 2 Fernet keys from /etc/keystone/fernet-keys/, but `[fernet_tokens] max_active_keys = 3`; perhaps there have not been enough key rotations to reach `max_active_keys` yet?\n" % (
            g.ts, pid, ctx_admin(g.era, rid)) if g.rnd() < 0.05 else \
            "%s %s DEBUG keystone.server.flask.request_processing.req_logging %sREQUEST_METHOD: `POST`%s\n" % (g.ts, pid, ctx_admin(g.era, rid), s_req)

    def validate(g):
        u, p = g.pick(TENANTS)
        rid = g.ids.req()
        pid = g.pick(g.pids)
        acc = '%s - - %s "GET /v3/auth/tokens HTTP/1.1" 200 %d "-" "python-keystoneclient"\n' % (g.pick(g.hosts), g.ck.apache(g.t), 8700 + int(g.rnd() * 200))
        g.aux.append(acc)
        g.auxn += len(acc)
        return ("%s %s DEBUG keystone.server.flask.request_processing.req_logging %sREQUEST_METHOD: `GET`%s\n"
                "%s %s DEBUG keystone.server.flask.request_processing.req_logging %sSCRIPT_NAME: ``%s\n"
                "%s %s DEBUG keystone.server.flask.request_processing.req_logging %sPATH_INFO: `/v3/auth/tokens`%s\n") % (
            g.ts, pid, ctx_req(g.era, rid, u, p), s_req, g.ts, pid, ctx_req(g.era, rid, u, p), s_req, g.ts, pid, ctx_req(g.era, rid, u, p), s_req)

    def info(g):
        u, p = g.pick(TENANTS)
        rid = g.ids.req()
        acc = '%s - - %s "GET /v3/projects?domain_id=default HTTP/1.1" 200 %d "-" "%s"\n' % (g.pick(g.hosts), g.ck.apache(g.t), 1900 + int(g.rnd() * 200), UA)
        g.aux.append(acc)
        g.auxn += len(acc)
        return "%s %s INFO keystone.common.wsgi %sGET http://172.27.100.120:5000/v3/projects?domain_id=default\n" % (g.ts, g.pick(g.pids), ctx_req(g.era, rid, u, p))

    def unauth(g):
        acc = '%s - - %s "POST /v3/auth/tokens HTTP/1.1" 401 %d "-" "%s"\n' % (g.pick(g.hosts), g.ck.apache(g.t), 442, UA)
        g.aux.append(acc)
        g.auxn += len(acc)
        return "%s %s WARNING keystone.server.flask.application %sAuthorization failed. The request you have made requires authentication. from %s: keystone.exception.Unauthorized: The request you have made requires authentication.\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.pick(g.hosts))

    def multi(g):
        return ("%s %s WARNING keystone.common.password_hashing %sTruncating password to algorithm specific maximum length 72 characters.\n"
                "  user: %s\n") % (g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.hex(32))

    def err_tb(g):
        pid = g.pick(g.pids)
        head = "%s %s ERROR keystone.server.flask.application %sThe request you have made requires authentication.: keystone.exception.Unauthorized: The request you have made requires authentication.\n" % (
            g.ts, pid, ctx_admin(g.era, g.ids.req()))
        return head + traceback_lines(g.ts, pid, "keystone.server.flask.application", TB_KS,
                                      "keystone.exception.Unauthorized: The request you have made requires authentication.")

    def bad_utf8(g):
        return "%s %s INFO keystone.common.wsgi %sGET http://172.27.100.120:5000/v3/users?name=Ren\xe9\n" % (g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()))

    return [T(10, token), T(8, validate, True), T(3, info), T(0.4, unauth), T(0.25, multi), T(0.06, err_tb)], bad_utf8


# ---- masakari -------------------------------------------------------------------------

def masakari_engine_templates():
    s_per = dbg("run_periodic_tasks", "oslo_service/periodic_task.py", 210)
    s_lock = dbg("inner", "oslo_concurrency/lockutils.py", 359)
    tasks = ["MasakariManager._process_unfinished_notifications", "MasakariManager._check_expired_notifications"]

    def periodic(g):
        return "%s %s DEBUG oslo_service.periodic_task %sRunning periodic task %s%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(tasks), s_per)

    def lock(g):
        return '%s %s DEBUG oslo_concurrency.lockutils %sLock "masakari-engine-periodic" acquired by "masakari.engine.manager.MasakariManager._process_unfinished_notifications" :: waited 0.000s%s\n' % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_lock)

    def reconnect(g):
        u = g.ids.uuid()
        return ("%s %s ERROR oslo.messaging._drivers.impl_rabbit [-] [%s] AMQP server on 172.27.100.137:5672 is unreachable: [Errno 104] Connection reset by peer. Trying again in 1 seconds.: ConnectionResetError: [Errno 104] Connection reset by peer\n"
                "%s %s INFO oslo.messaging._drivers.impl_rabbit [-] [%s] Reconnected to AMQP server on 172.27.100.137:5672 via [amqp] client with port %d.\n") % (
            g.ts, g.pid, u, g.ts, g.pid, u, 40000 + int(g.rnd() * 20000))

    def multi(g):
        return ("%s %s WARNING masakari.engine.drivers.taskflow.driver %sTask 'PrepareHAEnabledInstancesTask' (%s) transitioned into state 'FAILURE' from state 'RUNNING'\n"
                "\nFailure: masakari.exception.SkipHostRecoveryException: Skipped host 'unknown' recovery as no instances needs to be evacuated\n") % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.ids.uuid())

    def bad_utf8(g):
        return "%s %s INFO masakari.engine.manager %sSegment 's\xe9gment-1' reloaded\n" % (g.ts, g.pid, ctx_admin(g.era, g.ids.req()))

    return [T(10, periodic), T(5, lock), T(0.08, reconnect)], bad_utf8


def masakari_api_templates():
    s_call = dbg("_process_stack", "masakari/api/openstack/wsgi.py", 615)

    def seg(g):
        rid = g.ids.req()
        acc = '%s - - %s "GET /v1/%s/segments HTTP/1.1" 200 %d "-" "openstacksdk/0.61.0 keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"\n' % (
            g.ip, g.ck.apache(g.t), ADMIN_PROJ, 700 + int(g.rnd() * 50))
        g.aux.append(acc)
        g.auxn += len(acc)
        return "%s %s DEBUG masakari.api.openstack.wsgi %sCalling method '<bound method SegmentsController.index of <masakari.api.openstack.ha.segments.SegmentsController object at 0x7f%010x>>'%s\n" % (
            g.ts, g.pick(g.pids), ctx_req(g.era, rid, ADMIN_USER, ADMIN_PROJ, ADMIN_DOMAIN, ADMIN_DOMAIN), int(g.rnd() * 2 ** 36), s_call)

    def check(g):
        acc = '%s - - %s "GET / HTTP/1.1" 200 531 "-" "curl/7.68.0"\n' % (g.ip, g.ck.apache(g.t))
        g.aux.append(acc)
        g.auxn += len(acc)
        return ""

    def deprec(g):
        return "%s %s WARNING keystonemiddleware.auth_token [-] AuthToken middleware is set with keystone_authtoken.service_token_roles_required set to False. This is backwards compatible but deprecated behaviour. Please set this to True.\n" % (
            g.ts, g.pick(g.pids))

    def bad_utf8(g):
        return "%s %s INFO masakari.api.openstack [-] Loaded extensions for segment 's\xe9gment-1'\n" % (g.ts, g.pick(g.pids))

    return [T(6, seg), T(3, check), T(0.1, deprec)], bad_utf8


# ---- DEBUG-everywhere extras (--debug all): oslo.messaging, keystoneauth, heartbeats -----

PLACEMENT = "http://172.27.100.121:8778"
KSA_UA = "keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"


def rpc_debug_templates():
    s_recv = dbg("__call__", "oslo_messaging/_drivers/amqpdriver.py", 372)
    s_reply = dbg("_send_reply", "oslo_messaging/_drivers/amqpdriver.py", 165)
    s_cast = dbg("_send", "oslo_messaging/_drivers/amqpdriver.py", 673)
    s_call = dbg("_send", "oslo_messaging/_drivers/amqpdriver.py", 661)

    def recv(g):
        return "%s %s DEBUG oslo_messaging._drivers.amqpdriver [-] received message msg_id: %s reply to reply_%s%s\n" % (
            g.ts, g.pid or g.pick(g.pids), g.ids.hex(32), g.ids.hex(32), s_recv)

    def reply(g):
        return "%s %s DEBUG oslo_messaging._drivers.amqpdriver %ssending reply msg_id: %s reply queue: reply_%s time elapsed: %.9fs%s\n" % (
            g.ts, g.pid or g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.hex(32), g.ids.hex(32), g.rnd() / 20, s_reply)

    def cast(g):
        return "%s %s DEBUG oslo_messaging._drivers.amqpdriver %sCAST unique_id: %s NOTIFY exchange 'nova' topic 'notifications.info'%s\n" % (
            g.ts, g.pid or g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.hex(32), s_cast)

    def call(g):
        return "%s %s DEBUG oslo_messaging._drivers.amqpdriver %sCALL msg_id: %s exchange 'nova' topic 'conductor'%s\n" % (
            g.ts, g.pid or g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.hex(32), s_call)

    return [T(5, recv, True), T(5, reply, True), T(2, cast, True), T(3, call, True)]


def ksa_debug_templates(agent):
    """keystoneauth REQ/RESP lines of a service talking to placement (one record each,
    several lines of one request share its context)."""
    s_req = dbg("_http_log_request", "keystoneauth1/session.py", 517)
    s_resp = dbg("_http_log_response", "keystoneauth1/session.py", 548)
    s_used = dbg("request", "keystoneauth1/session.py", 954)

    def placement(g):
        rid = g.ids.req()
        ctx = ctx_admin(g.era, rid)
        pid = g.pid or g.pick(g.pids)
        rp = g.rps
        nid = g.ids.req()
        path = "/resource_providers/%s/%s" % (rp, g.pick(("inventories", "aggregates", "traits", "allocations")))
        return ('%s %s DEBUG keystoneauth.session %sREQ: curl -g -i -X GET %s%s -H "Accept: application/json" -H "OpenStack-API-Version: placement 1.26" '
                '-H "User-Agent: %s %s" -H "X-Auth-Token: {SHA256}%s"%s\n'
                "%s %s DEBUG keystoneauth.session %sRESP: [200] Connection: Keep-Alive Content-Length: %d Content-Type: application/json "
                "Date: %s Keep-Alive: timeout=75, max=100 Server: Apache/2.4.41 (Ubuntu) cache-control: no-cache openstack-api-version: placement 1.26 "
                "vary: openstack-api-version x-openstack-request-id: %s%s\n"
                "%s %s DEBUG keystoneauth.session %sGET call to placement for %s%s used request id %s%s\n") % (
            g.ts, pid, ctx, PLACEMENT, path, agent, KSA_UA, g.ids.hex(64), s_req,
            g.ts, pid, ctx, 180 + int(g.rnd() * 400), g.ck.http(g.t), nid, s_resp,
            g.ts, pid, ctx, PLACEMENT, path, nid, s_used)

    return [T(4, placement, True)]


def heartbeat_templates():
    def outlasted(g):
        return "%s %s WARNING oslo.service.loopingcall [-] Function 'nova.servicegroup.drivers.db.DbDriver._report_state' run outlasted interval by %.2f sec\n" % (
            g.ts, g.pid or g.pick(g.pids), 0.3 + g.rnd() * 3)

    return [T(0.05, outlasted)]


# ---- every service on every host (--services all) ----------------------------------------

def syslog_templates():
    msgs = [
        "systemd[1]: Started Session %d of user ubuntu.",
        "CRON[%d]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
        "systemd-resolved[812]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server 10.5.0.2.",
        "chronyd[901]: Selected source 10.5.0.2 (ntp.ubuntu.com)",
        "kernel: [%d.123456] IPv6: ADDRCONF(NETDEV_CHANGE): tap%s: link becomes ready",
        "systemd[1]: Starting Message of the Day...",
        "snapd[1187]: storehelpers.go:721: cannot refresh: snap has no updates available: \"core20\", \"lxd\"",
        "rsyslogd: [origin software=\"rsyslogd\" swVersion=\"8.2001.0\" x-pid=\"733\" x-info=\"https://www.rsyslog.com\"] rsyslogd was HUPed",
    ]

    def line(g):
        m = g.pick(msgs)
        if "%s" in m:
            m = m % (int(g.rnd() * 900000), g.ids.hex(11))
        elif "%d" in m:
            m = m % int(g.rnd() * 90000)
        return "%s %s %s\n" % (g.ck.syslog(g.t), g.hname, m)

    def multi(g):
        return "%s %s kernel: [%d.654321] INFO: task jbd2/sda1-8:412 blocked for more than 120 seconds.\n" % (
            g.ck.syslog(g.t), g.hname, int(g.rnd() * 900000))

    def bad_utf8(g):
        return "%s %s sshd[%d]: Invalid user caf\xe9 from 10.5.0.9 port 51234\n" % (g.ck.syslog(g.t), g.hname, int(g.rnd() * 90000))

    return [T(20, line), T(0.1, multi)], bad_utf8


def libvirt_templates():
    def line(g):
        return g.pick((
            "%s+0000: %d: error : virNetSocketReadWire:1806 : End of file while reading data: Input/output error\n",
            "%s+0000: %d: warning : qemuDomainObjTaint:5602 : Domain id=12 name='instance-0000a1b2' uuid=%s is tainted: custom-monitor\n",
            "%s+0000: %d: info : libvirt version: 6.0.0, package: 0ubuntu8.16 (Christian Ehrhardt <christian.ehrhardt@canonical.com> Mon, 20 Jun 2022 13:04:45 +0200)\n",
            "%s+0000: %d: warning : virSecuritySELinuxRestoreFileLabel:1432 : cannot resolve symlink /dev/disk/by-path/ip-10.5.0.50:3260: No such file or directory\n",
        )).replace("%s", g.ck.utc(g.t), 1).replace("%d", str(2000 + int(g.rnd() * 3000)), 1).replace("%s", g.pick(g.inst), 1)

    def bad_utf8(g):
        return "%s+0000: %d: info : hostname: n\xe9ud\n" % (g.ck.utc(g.t), 2000 + int(g.rnd() * 3000))

    return [T(1, line)], bad_utf8


def ovs_agent_templates():
    s_cmd = dbg("create_process", "neutron/agent/linux/utils.py", 88)
    s_loop = dbg("rpc_loop", "neutron/plugins/ml2/drivers/openvswitch/agent/ovs_neutron_agent.py", 2610)
    s_done = dbg("loop_count_and_wait", "neutron/plugins/ml2/drivers/openvswitch/agent/ovs_neutron_agent.py", 2317)
    L = "neutron.plugins.ml2.drivers.openvswitch.agent.ovs_neutron_agent"

    def loop(g):
        n = int(g.rnd() * 90000)
        rid = g.ids.req()
        return ("%s %s DEBUG %s %sAgent rpc_loop - iteration:%d started%s\n"
                "%s %s DEBUG %s %sAgent rpc_loop - iteration:%d completed. Processed ports statistics: {'regular': {'added': 0, 'updated': 0, 'removed': 0}}. Elapsed:0.%03d%s\n") % (
            g.ts, g.pid, L, ctx_admin(g.era, rid), n, s_loop, g.ts, g.pid, L, ctx_admin(g.era, rid), n, int(g.rnd() * 999), s_done)

    def cmd(g):
        return "%s %s DEBUG neutron.agent.linux.utils %sRunning command: ['ovs-vsctl', '--timeout=10', '--oneline', '--format=json', '--', '--columns=name,external_ids,ofport', 'list', 'Interface']%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), s_cmd)

    def filters(g):
        return "%s %s INFO neutron.agent.securitygroups_rpc %sPreparing filters for devices {'%s'}\n" % (
            g.ts, g.pid, ctx_req(g.era, g.ids.req(), NEUTRON_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN), g.ids.uuid())

    def bad_utf8(g):
        return "%s %s INFO %s %sPort 'p\xe9rim\xe8tre' skipped\n" % (g.ts, g.pid, L, ctx_admin(g.era, g.ids.req()))

    return [T(6, loop, True), T(3, cmd, True), T(1, filters)], bad_utf8


def neutron_server_templates():
    s_net = dbg("get_network_info", "neutron/api/rpc/handlers/dhcp_rpc.py", 212)

    def wsgi(g):
        u, p = g.pick(TENANTS)
        return '%s %s INFO neutron.wsgi %s%s "GET /v2.0/ports?device_id=%s HTTP/1.1" status: 200  len: %d time: %.7f\n' % (
            g.ts, g.pick(g.pids), ctx_req(g.era, g.ids.req(), u, p), g.ip, g.pick(g.inst), 900 + int(g.rnd() * 400), g.rnd() / 5)

    def event(g):
        return "%s %s INFO neutron.notifiers.nova [-] Nova event response: {'server_uuid': '%s', 'name': 'network-vif-plugged', 'status': 'completed', 'tag': '%s', 'code': 200}\n" % (
            g.ts, g.pick(g.pids), g.pick(g.inst), g.ids.uuid())

    def healthcheck(g):
        return "%s %s INFO neutron.db.agents_db [None req-%s - - - - - -] Agent healthcheck: found 0 dead agents out of %d:\n" % (
            g.ts, g.pick(g.pids), g.ids.uuid(), 12 + int(g.rnd() * 3)) if g.era != PRE else \
            "%s %s INFO neutron.db.agents_db [req-%s - - - - -] Agent healthcheck: found 0 dead agents out of %d:\n" % (
                g.ts, g.pick(g.pids), g.ids.uuid(), 12 + int(g.rnd() * 3))

    def netinfo(g):
        return "%s %s DEBUG neutron.api.rpc.handlers.dhcp_rpc %sNetwork %s requested from %s%s\n" % (
            g.ts, g.pick(g.pids), ctx_admin(g.era, g.ids.req()), g.ids.uuid(), g.pick(g.hosts), s_net)

    def bad_utf8(g):
        return "%s %s INFO neutron.wsgi [-] network 'r\xe9seau' updated\n" % (g.ts, g.pick(g.pids))

    return [T(8, wsgi), T(2, event), T(0.3, healthcheck), T(6, netinfo, True)], bad_utf8


def rabbitmq_templates():
    def accept(g):
        pid = "<0.%d.0>" % int(g.rnd() * 60000)
        port = 30000 + int(g.rnd() * 30000)
        h = g.pick(g.hosts)
        return ("%s [info] %s accepting AMQP connection %s (%s:%d -> 172.27.100.137:5672)\n"
                "%s [info] %s connection %s (%s:%d -> 172.27.100.137:5672): user '%s' authenticated and granted access to vhost 'openstack'\n") % (
            g.ts, pid, pid, h, port, g.ts, pid, pid, h, port, g.pick(("nova", "cinder", "neutron", "masakari")))

    def multi(g):
        pid = "<0.%d.0>" % int(g.rnd() * 60000)
        return "%s [warning] %s closing AMQP connection %s (%s:%d -> 172.27.100.137:5672, vhost: 'openstack', user: 'nova'):\nclient unexpectedly closed TCP connection\n" % (
            g.ts, pid, pid, g.pick(g.hosts), 30000 + int(g.rnd() * 30000))

    def bad_utf8(g):
        return "%s [info] <0.1.0> queue 'caf\xe9' declared\n" % g.ts

    return [T(6, accept), T(0.5, multi)], bad_utf8


def cinder_access_templates():
    def acc(g):
        u, p = g.pick(TENANTS)
        return '%s - - %s "GET /v3/%s/volumes/%s HTTP/1.1" 200 %d "-" "python-cinderclient"\n' % (
            g.ip, g.ck.apache(g.t), p, g.pick(g.vols), 1400 + int(g.rnd() * 200))

    def bad_utf8(g):
        return '%s - - %s "GET /v3/x/volumes?name=caf\xe9 HTTP/1.1" 200 12 "-" "python-cinderclient"\n' % (g.ip, g.ck.apache(g.t))

    return [T(1, acc)], bad_utf8


def cinder_scheduler_templates():
    s_upd = dbg("update_service_capabilities", "cinder/scheduler/host_manager.py", 557)

    def upd(g):
        return "%s %s DEBUG cinder.scheduler.host_manager %sReceived volume service update from %s@cinder-ceph: {'vendor_name': 'Open Source', 'driver_version': '1.2.0', 'storage_protocol': 'ceph', 'total_capacity_gb': 27647.84, 'free_capacity_gb': %.2f, 'reserved_percentage': 0}%s\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(g.hosts), 20000 + g.rnd() * 7000, s_upd)

    def info(g):
        return "%s %s INFO cinder.scheduler.base_filter %sFiltering removed all hosts for the request with volume ID '%s'.\n" % (
            g.ts, g.pid, ctx_admin(g.era, g.ids.req()), g.pick(g.vols))

    def bad_utf8(g):
        return "%s %s INFO cinder.scheduler.manager %sPool 'caf\xe9' refreshed\n" % (g.ts, g.pid, ctx_admin(g.era, g.ids.req()))

    return [T(8, upd, True), T(0.3, info)], bad_utf8


# --------------------------------------------------------------------------------------
# outputs, story events, day generation


class Host:
    """One root of the bundle (a machine, a container, a sosreport...)."""

    def __init__(self, name, juju, ip):
        self.name = name  # its hostname
        self.juju = juju  # juju-crashdump folder: "0/baremetal", "3/lxd/4"
        self.ip = ip
        self.zone = None  # zoneinfo name of its local time (None: UTC)
        self.offset_s = 0  # known clock offset: how far its clock is ahead of true time
        self.clock = Clock()


class Out:
    def __init__(self, key, relbase, host):
        self.key = key
        self.host = host
        self.clock = host.clock
        self.relbase = relbase  # path of the current file, relative to the bundle root
        self.events = []  # (ms, seq, text)
        self.lines = 0

    def add(self, ms, text, seq):
        self.events.append((ms, seq, text))


class Group:
    """A generator producing one or two outputs (main oslo log, optional access log)."""

    def __init__(self, name, main, aux, tpls, bad, era, share, pid, pids, host, always_debug=False):
        self.name, self.main, self.aux = name, main, aux
        self.tpls, self.bad = tpls, bad
        self.era, self.share = era, share
        self.pid, self.pids, self.host = pid, pids, host
        self.always_debug = always_debug
        self.blackouts = []  # (start_ms, end_ms, new_pid)
        self.tables = {}

    def table(self, debug):
        if debug not in self.tables:
            self.tables[debug] = build_table(self.tpls, debug)
        return self.tables[debug]


def day_weights():
    # gz days share 1/3, .1 1/3, current 1/3
    n_gz = DAYS - 2
    return [1 / 3 / n_gz] * n_gz + [1 / 3, 1 / 3]


def gen_day(group, day, budget, g, rnd):
    """Background lines of one group for one day, merged with its story events.
    Returns {out: str}."""
    t0 = day * DAY_MS
    t1 = min((day + 1) * DAY_MS, COLLECT_MS)
    shared = group.aux is group.main  # access lines in the API's own stream (k8s pods)
    outs = [group.main] + ([group.aux] if group.aux and not shared else [])
    evs = {}
    for o in outs:
        lst = [e for e in o.events if t0 <= e[0] < t1]
        lst.sort()
        evs[o] = lst
    # blackouts intersecting the day
    bos = [(max(s, t0), min(e, t1), pid) for (s, e, pid) in group.blackouts if s < t1 and e > t0]
    bos.sort()
    active = (t1 - t0) - sum(e - s for s, e, _ in bos)
    mpb = active / max(budget, 1)  # ms per byte
    debug = group.always_debug or day >= DEBUG_FROM_DAY
    table = group.table(debug)
    tl = len(table)
    main_buf, aux_buf = [], []
    g.aux = main_buf if shared else aux_buf
    g.auxn = 0
    g.era = group.era
    # pid in force at day start
    g.pid = group.pid
    for s, e, pid in group.blackouts:
        if e <= t0:
            g.pid = pid
    n = 0
    t = t0
    last = 250
    bi = 0
    nb = bos[bi][0] if bos else 1 << 62
    mev = evs[group.main]
    aev = evs[group.aux] if group.aux and not shared else []
    mi = ai = 0
    nm = mev[0][0] if mev else 1 << 62
    na = aev[0][0] if aev else 1 << 62
    nx = min(nm, na)
    g.ck = group.main.clock
    oslo = g.ck.oslo
    bad = group.bad
    bad_next = g.bad
    while n + g.auxn < budget:
        t += int(last * mpb * (0.2 + 1.6 * rnd()))
        if t >= nb:
            t += bos[bi][1] - bos[bi][0]
            g.pid = bos[bi][2]
            bi += 1
            nb = bos[bi][0] if bi < len(bos) else 1 << 62
        if t >= t1:
            break
        if t >= nx:
            while nm <= t:
                s = mev[mi][2]
                main_buf.append(s)
                n += len(s)
                mi += 1
                nm = mev[mi][0] if mi < len(mev) else 1 << 62
            while na <= t:
                s = aev[ai][2]
                aux_buf.append(s)
                g.auxn += len(s)
                ai += 1
                na = aev[ai][0] if ai < len(aev) else 1 << 62
            nx = min(nm, na)
        g.t = t
        g.ts = oslo(t)
        bad_next -= 1
        if bad_next == 0:
            s = bad(g)
            bad_next = 70000 + int(rnd() * 60000)
        else:
            s = table[int(rnd() * tl)](g)
        main_buf.append(s)
        last = len(s) + 1 if s else 120
        n += len(s)
    g.bad = bad_next
    # remaining story events of the day
    main_buf.extend(e[2] for e in mev[mi:])
    aux_buf.extend(e[2] for e in aev[ai:])
    res = {group.main: "".join(main_buf)}
    if group.aux and not shared:
        res[group.aux] = "".join(aux_buf)
    return res


# --------------------------------------------------------------------------------------
# the story: masakari host-failure recoveries


class Story:
    def __init__(self, rng, ids, topo):
        self.rng = rng
        self.ids = ids
        self.topo = topo
        self.seq = 0
        self.truth = []
        self.captures = []  # (relative path, text)

    def emit(self, out, ms, text):
        self.seq += 1
        out.add(ms, text, self.seq)

    # --- line builders
    def oslo(self, out, ms, pid, level, logger, ctx, msg, inst=None):
        self.emit(out, ms, "%s %s %s %s %s%s%s\n" % (out.clock.oslo(ms), pid, level, logger, ctx,
                                                   "[instance: %s] " % inst if inst else "", msg))

    def nova_call(self, ms, method, uri, status, blen, gid, dur=None, pre_lines=None, mc=None, body=None, sent=None):
        """One masakari -> nova-api call: access line (start) + requestlog line (end).
        pre_lines: list of (level, logger, msg) logged by nova-api before the requestlog line.
        mc: (engine out, engine pid, engine context) of the calling masakari thread: with
        --debug all, its keystoneauth / novaclient DEBUG lines around the call."""
        tp = self.topo
        rng = self.rng
        nid = self.ids.req()
        era = tp.era["ncc"]
        ctx = ctx_req(era, nid, MASAKARI_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN, gid=gid)
        if dur is None:
            dur = 0.03 + rng.random() * 0.35
        end = ms + int(dur * 1000)
        c = tp.pick_ctl()
        nacc, napi, ip = tp.outs[tp.K("nacc", c)], tp.outs[tp.K("napi", c)], tp.cip[("ncc", c)]
        pid = rng.choice(tp.api_pids_c[c])
        acc = '%s - - %s "%s %s HTTP/1.1" %d %d "-" "python-novaclient"\n' % (ip, nacc.clock.apache(ms), method, uri, status, blen + 330)
        self.emit(nacc, ms, acc)
        pre = list(pre_lines or [])
        if tp.dbg_all:
            if method == "POST" and uri.endswith("/action"):
                pre.insert(0, ("DEBUG", "nova.api.openstack.wsgi", "Action: 'action', calling method: <bound method %s of <nova.api.openstack.compute.%s object at 0x7f%010x>>, body: %s%s" % (
                    "EvacuateController._evacuate" if body and "evacuate" in body else "ServersController._action", "evacuate.EvacuateController" if body and "evacuate" in body else "servers.ServersController",
                    rng.getrandbits(36), body or "{}", dbg("_process_stack", "nova/api/openstack/wsgi.py", 511))))
            else:
                pre.insert(0, ("DEBUG", "nova.api.openstack.wsgi", "Calling method '<bound method ServersController.show of <nova.api.openstack.compute.servers.ServersController object at 0x7f%010x>>'%s" % (
                    rng.getrandbits(36), dbg("_process_stack", "nova/api/openstack/wsgi.py", 511))))
            pre.insert(1, ("DEBUG", "oslo_concurrency.lockutils", 'Lock "00000000-0000-0000-0000-000000000000" acquired by "nova.context.set_target_cell.<locals>.get_or_set_cached_cell_and_set_connections" :: waited 0.000s%s' % dbg("inner", "oslo_concurrency/lockutils.py", 359)))
            if status >= 400:
                pre.append(("DEBUG", "nova.api.openstack.wsgi", "Returning %d to user: %s%s" % (
                    status, pre_lines[-1][2].split("thrown: ", 1)[-1] if pre_lines else "Bad request", dbg("__call__", "nova/api/openstack/wsgi.py", 941))))
        k = end - 2 * len(pre) - 2
        for level, logger, msg in pre:
            self.oslo(napi, k, pid, level, logger, ctx, msg)
            k += 2
        self.emit(napi, end, "%s %s INFO nova.api.openstack.requestlog %s%s \"%s %s\" status: %d len: %d microversion: 2.53 time: %.6f\n" % (
            napi.clock.oslo(end), pid, ctx, ip, method, uri, status, blen, dur))
        if tp.dbg_all and mc is not None:
            self.client_debug(mc, sent or ms, end, method, "http://%s:8774%s" % (ip, uri), status, blen, gid, nid, body, nacc.clock)
        return nid, end

    def client_debug(self, mc, ms, end, method, url, status, blen, gid, nid, body, srv_clock):
        """masakari-engine DEBUG lines of one novaclient call: a new client and keystone
        session, the token request, REQ: curl, RESP: and novaclient's request id line."""
        eng, epid, c = mc
        ids = self.ids
        ks = "http://172.27.100.120:5000"
        S = dbg
        self.oslo(eng, ms - 14, epid, "DEBUG", "masakari.compute.nova", c, 'Creating a Nova client using "masakari" user%s' % S("novaclient", "masakari/compute/nova.py", 104))
        self.oslo(eng, ms - 12, epid, "DEBUG", "keystoneauth.identity.v3.base", c, "Making authentication request to %s/v3/auth/tokens%s" % (ks, S("get_auth_ref", "keystoneauth1/identity/v3/base.py", 188)))
        self.oslo(eng, ms - 11, epid, "DEBUG", "urllib3.connectionpool", c, "Starting new HTTP connection (1): 172.27.100.120:5000%s" % S("_new_conn", "urllib3/connectionpool.py", 227))
        self.oslo(eng, ms - 3, epid, "DEBUG", "urllib3.connectionpool", c, '%s "POST /v3/auth/tokens HTTP/1.1" 201 %d%s' % (ks, 8700 + self.rng.randrange(200), S("_make_request", "urllib3/connectionpool.py", 452)))
        hdr = ' -H "X-OpenStack-Request-ID: %s"' % gid if gid else ""
        d = " -d '%s'" % body if body else ""
        self.oslo(eng, ms - 1, epid, "DEBUG", "keystoneauth.session", c,
                  'REQ: curl -g -i -X %s %s -H "Accept: application/json" -H "Content-Type: application/json" -H "User-Agent: python-novaclient" '
                  '-H "X-Auth-Token: {SHA256}%s" -H "X-OpenStack-Nova-API-Version: 2.53"%s%s%s' % (method, url, ids.hex(64), hdr, d, S("_http_log_request", "keystoneauth1/session.py", 517)))
        self.oslo(eng, end + 2, epid, "DEBUG", "urllib3.connectionpool", c, '%s "%s %s HTTP/1.1" %d %d%s' % (
            url[:url.index("/v2.1")], method, url[url.index("/v2.1"):], status, blen, S("_make_request", "urllib3/connectionpool.py", 452)))
        if status == 503:
            self.oslo(eng, end + 3, epid, "DEBUG", "keystoneauth.session", c,
                      "RESP: [503] Content-Length: 299 Content-Type: text/html; charset=iso-8859-1 Date: %s Server: Apache/2.4.41 (Ubuntu)%s" % (
                          srv_clock.http(end), S("_http_log_response", "keystoneauth1/session.py", 548)))
            self.oslo(eng, end + 4, epid, "DEBUG", "keystoneauth.session", c, "Request returned failure status: 503%s" % S("request", "keystoneauth1/session.py", 1111))
            return
        self.oslo(eng, end + 3, epid, "DEBUG", "keystoneauth.session", c,
                  "RESP: [%d] Connection: Keep-Alive Content-Length: %d Content-Type: application/json Date: %s Keep-Alive: timeout=75, max=100 "
                  "OpenStack-API-Version: compute 2.53 Server: Apache/2.4.41 (Ubuntu) Vary: OpenStack-API-Version,X-OpenStack-Nova-API-Version "
                  "X-OpenStack-Nova-API-Version: 2.53 x-compute-request-id: %s x-openstack-request-id: %s%s" % (
                      status, blen, srv_clock.http(end), nid, nid, S("_http_log_response", "keystoneauth1/session.py", 548)))
        self.oslo(eng, end + 4, epid, "DEBUG", "novaclient.v2.client", c, "%s call to compute for %s used request id %s%s" % (
            method, url, nid, S("request", "keystoneauth1/session.py", 954)))
        if status >= 400:
            self.oslo(eng, end + 5, epid, "DEBUG", "keystoneauth.session", c, "Request returned failure status: %d%s" % (status, S("request", "keystoneauth1/session.py", 1111)))

    def flow(self, eng, ms, epid, ctx, what, frm, to, result=None):
        """taskflow listener DEBUG line (--debug all)."""
        if not self.topo.dbg_all:
            return
        kind, name = what
        uid = self.flow_ids.setdefault(what, self.ids.uuid())
        r = " with result '%s'" % result if result is not None else ""
        self.oslo(eng, ms, epid, "DEBUG", "masakari.engine.drivers.taskflow.driver", ctx,
                  "%s '%s' (%s) transitioned into state '%s' from state '%s'%s%s" % (
                      kind, name, uid, to, frm, r, dbg("_flow_receiver" if kind == "Flow" else "_task_receiver", "taskflow/listeners/logging.py", 145 if kind == "Flow" else 190)))

    def recovery(self, idx, kind, T0, F, dests, insts, bfv, bfv_form="rebuild"):
        tp = self.topo
        rng = self.rng
        ids = self.ids
        me = tp.era["masakari"]
        ce = tp.pick_ctl()  # the engine that got the notification over RPC
        eng = tp.outs[tp.K("engine", ce)]
        epid = tp.engine_pid_c[ce]
        self.flow_ids = {}
        notif = ids.uuid()
        fhost = tp.nova_host[F]
        gid_api = ids.req()  # masakari-api request id of POST /v1/notifications
        gid = gid_api if me == ZED else None
        statuses = []
        ev_reqs = {}
        rebuilt = {}

        # failure of host F: compute log goes silent (or hangs, for the race)
        if kind == "evacuate-400-race":
            t_fail = T0 - 60_000 - rng.randrange(0, 30_000)
        else:
            t_fail = T0 - rng.randrange(60_000, 150_000)

        if tp.rich:
            # the instances were built on the failed host some time before: its compute log
            # names them (the link from an instance to its host that real logs carry)
            cout0, cera0 = tp.outs[("cmp", F)], tp.era[("cmp", F)]
            bos = tp.groups[("cmp", F)].blackouts
            for u in insts:
                for _ in range(5):
                    tb = t_fail - rng.randrange(2 * 3600_000, 3 * DAY_MS)
                    if tb > 60_000 and not any(s0 - 60_000 <= tb <= e0 + 60_000 for s0, e0, _p in bos):
                        break
                else:
                    continue
                bu, bp = TENANTS[rng.randrange(len(TENANTS))]
                bctx = ctx_req(cera0, ids.req(), bu, bp)
                cp = tp.groups[("cmp", F)].pid
                for s0, e0, p0 in bos:  # the pid in force then
                    if e0 <= tb:
                        cp = p0
                self.oslo(cout0, tb, cp, "INFO", "nova.compute.claims", bctx, "Claim successful on node %s" % fhost, inst=u)
                self.oslo(cout0, tb + rng.randrange(6000, 14000), cp, "INFO", "nova.compute.manager", bctx,
                          "Took %.2f seconds to build instance." % (6 + rng.random() * 8), inst=u)

        # masakari-api: notification POST (+ optional duplicate 409 from the other hostmonitor)
        ca = tp.pick_ctl()
        macc, mapi, mas_ip = tp.outs[tp.K("macc", ca)], tp.outs[tp.K("mapi", ca)], tp.cip[("masakari", ca)]
        tpost = T0 - 60
        self.emit(macc, tpost, '%s - - %s "POST /v1/%s/notifications HTTP/1.1" 202 %d "-" "openstacksdk/0.61.0 keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"\n' % (
            mas_ip, macc.clock.apache(tpost), SERVICES_PROJ, 900 + rng.randrange(40)))
        if rng.random() < 0.5:
            rid = ids.req()
            self.emit(macc, tpost + 40, '%s - - %s "POST /v1/%s/notifications HTTP/1.1" 409 475 "-" "openstacksdk/0.61.0 keystoneauth1/4.4.0 python-requests/2.25.1 CPython/3.8.10"\n' % (
                mas_ip, macc.clock.apache(tpost + 40), SERVICES_PROJ))
            self.oslo(mapi, tpost + 120, rng.choice(tp.mapi_pids_c[ca]), "INFO", "masakari.api.openstack.wsgi",
                      ctx_req(tp.era["masakari"], rid, MASAKARI_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN),
                      "HTTP exception thrown: Notification received from host %s of type COMPUTE_HOST is duplicate." % fhost)

        def run_attempt(t, first_ctx, gid, attempt_kind, insts):
            """One processing run of the notification over the instances still on the
            failed host. Returns (end_ms, status)."""
            self.oslo(eng, t, epid, "INFO", "masakari.engine.manager", first_ctx,
                      "Processing notification %s of type: COMPUTE_HOST" % notif)
            self.flow_ids = {}
            pd = self.pd = []  # progress details of this run: (task, ms, progress, message)
            pd.append(("DisableComputeServiceTask", t + 40, "0.0", "Disabling compute service on host: '%s'" % fhost))
            self.flow(eng, t + 30, epid, first_ctx, ("Flow", "instance_evacuate_engine"), "PENDING", "RUNNING")
            self.flow(eng, t + 32, epid, first_ctx, ("Task", "DisableComputeServiceTask"), "PENDING", "RUNNING")
            t += 120 + rng.randrange(80)
            lid = ids.req()
            gg = gid or ""
            c = ctx_masakari_nova(me, lid, gg)
            self.oslo(eng, t, epid, "INFO", "masakari.compute.nova", c, "Disable nova-compute on %s" % fhost)
            _, e1 = self.nova_call(t + 20, "GET", "/v2.1/os-services?host=%s&binary=nova-compute" % fhost, 200, 404, gid, mc=(eng, epid, c))
            _, e2 = self.nova_call(e1 + 5, "PUT", "/v2.1/os-services/%s" % tp.svc_uuid[F], 200, 386, gid, mc=(eng, epid, c),
                                   body='{"status": "disabled", "disabled_reason": "Masakari detected host failed."}')
            t = e2 + 5
            pd.append(("DisableComputeServiceTask", e2 + 2, "1.0", "Disabled compute service on host: '%s'" % fhost))
            self.oslo(eng, t, epid, "INFO", "masakari.engine.drivers.taskflow.host_failure", c,
                      "Sleeping %d sec before starting recovery thread until nova recognizes the node down." % tp.wait_period)
            t += tp.wait_period * 1000 + rng.randrange(20, 90)
            self.flow(eng, t - 6, epid, c, ("Task", "DisableComputeServiceTask"), "RUNNING", "SUCCESS", "None")
            self.flow(eng, t - 4, epid, c, ("Task", "PrepareHAEnabledInstancesTask"), "PENDING", "RUNNING")
            lid = ids.req()
            c = ctx_masakari_nova(me, lid, gg)
            self.oslo(eng, t, epid, "INFO", "masakari.compute.nova", c, "Fetch Server list on %s" % fhost)
            _, e = self.nova_call(t + 20, "GET", "/v2.1/servers/detail?all_tenants=True&host=%s" % fhost, 200, 1800 * len(insts), gid, mc=(eng, epid, c))
            n = len(insts)
            for k_, (pg, m_) in enumerate((("0.0", "Preparing instances for evacuation"),
                                           ("0.3", "Total instances running on failed host '%s' is %d" % (fhost, n)),
                                           ("0.6", "Total HA Enabled instances count: '%d'" % n),
                                           ("0.7", "Total Non-HA Enabled instances count: '0'"),
                                           ("0.8", "All instances (HA Enabled/Non-HA Enabled) should be considered for evacuation. Total count is: '%d'" % n),
                                           ("1.0", "Instances to be evacuated are: '%s'" % ",".join(insts)))):
                pd.append(("PrepareHAEnabledInstancesTask", (t - 10) if k_ == 0 else e + 2 + k_, pg, m_))
            t = e + rng.randrange(300, 2500)
            pd.append(("EvacuateInstancesTask", t - 2, "0.0", "Start evacuation of instances from failed host '%s', instance uuids are: '%s'" % (fhost, ",".join(insts))))
            self.flow(eng, t - 8, epid, c, ("Task", "PrepareHAEnabledInstancesTask"), "RUNNING", "SUCCESS", "None")
            self.flow(eng, t - 6, epid, c, ("Task", "EvacuateInstancesTask"), "PENDING", "RUNNING")
            failed = []
            lasts = []
            slots = [t] * 3  # host_failure_recovery_threads = 3 (with --instances)
            for k, u in enumerate(insts):
                if tp.many:
                    j = min(range(3), key=lambda x: slots[x])
                    ti = max(t + k * 9, slots[j])
                else:
                    ti = t + k * rng.randrange(8, 40)
                # get, get (.locked)
                pd.append(("EvacuateInstancesTask", ti - 1, "0.5", "Evacuation of instance started: '%s'" % u))
                c = ctx_masakari_nova(me, ids.req(), gg)
                self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", c, "Call get server command for instance %s" % u)
                if attempt_kind == "pending-after-finished" and u in pending:
                    # the get_server call dies in keystone/nova; eventlet swallows the
                    # exception: nothing else is logged for this instance
                    if tp.dbg_all:
                        self.client_debug((eng, epid, c), ti + 15, ti + 15 + rng.randrange(20, 200), "GET",
                                          "http://%s:8774/v2.1/servers/%s" % (tp.cip[("ncc", 0)], u), 503, 299, gid, None, None, eng.clock)
                    if tp.many:
                        slots[j] = ti + 300
                    continue
                _, e = self.nova_call(ti + 15, "GET", "/v2.1/servers/%s" % u, 200, 1863, gid, mc=(eng, epid, c))
                ti = e + rng.randrange(10, 300)
                c = ctx_masakari_nova(me, ids.req(), gg)
                self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", c, "Call get server command for instance %s" % u)
                _, e = self.nova_call(ti + 15, "GET", "/v2.1/servers/%s" % u, 200, 1863, gid, mc=(eng, epid, c))
                ti = e + rng.randrange(10, 300)
                lock_ctx = ctx_masakari_nova(me, ids.req(), gg)
                self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", lock_ctx, "Call lock server command for instance %s" % u)
                _, e = self.nova_call(ti + 15, "POST", "/v2.1/servers/%s/action" % u, 202, 0, gid, mc=(eng, epid, lock_ctx), body='{"lock": null}')
                ti = e + rng.randrange(10, 200)
                self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", lock_ctx,
                          "Call evacuate command for instance %s on host None" % u)
                if attempt_kind == "evacuate-400-race" and (ti + 20 < cut[0] if cut[0] is not None else u in raced):
                    raced_dyn.add(u)
                    nid, e = self.nova_call(ti + 20, "POST", "/v2.1/servers/%s/action" % u, 400, 96, gid, pre_lines=[
                        ("ERROR", "nova.compute.api", "Instance compute service state on %s expected to be down, but it was up." % fhost),
                        ("INFO", "nova.api.openstack.wsgi", "HTTP exception thrown: Compute service of %s is still in use." % fhost)],
                        mc=(eng, epid, lock_ctx), body='{"evacuate": {}}')
                    ev_reqs.setdefault(u, []).append(nid)
                    ti = e + rng.randrange(5, 60)
                    msg = "Invalid input received: Compute service of %s is still in use. (HTTP 400) (Request-ID: %s)" % (fhost, nid)
                    self.oslo(eng, ti, epid, "WARNING", "masakari.engine.drivers.taskflow.host_failure", lock_ctx,
                              "%s: masakari.exception.InvalidInput: %s" % (msg, msg))
                    failed.append(u)
                    self.race_evac.append(ti)
                    ti += rng.randrange(300, 1800)
                else:
                    late = u in bfv and bfv_form == "accept"
                    # "accept" form: Nova takes the evacuate call only ~13 min after
                    # Masakari started it (the client's request waits); the rebuild is then quick
                    wait = rng.randrange(12 * 60_000, 14 * 60_000) if late else 0
                    nid, e = self.nova_call(ti + 20 + wait, "POST", "/v2.1/servers/%s/action" % u, 200, 0, gid, dur=0.3 + rng.random() * 0.4,
                                            mc=(eng, epid, lock_ctx), body='{"evacuate": {}}', sent=ti + 20)
                    ev_reqs.setdefault(u, []).append(nid)
                    if late:
                        accepted[u] = e
                    self.rebuild(u, nid, e, gid, bfv=(u in bfv), dest=dests[k % len(dests)], rebuilt=rebuilt, late=(u in bfv and not late))
                    ti = e + rng.randrange(200, 900)
                    polls = 2 if u in bfv else rng.randrange(2, 5)
                    if tp.hard and u not in bfv:  # verify_interval = 1: one poll a second until ACTIVE
                        polls = rng.randrange(3, 9)
                    for _ in range(polls):
                        c = ctx_masakari_nova(me, ids.req(), gg)
                        self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", c, "Call get server command for instance %s" % u)
                        _, e = self.nova_call(ti + 15, "GET", "/v2.1/servers/%s" % u, 200, 1869, gid, dur=0.08 + rng.random() * 0.05, mc=(eng, epid, c))
                        ti = e + (rng.randrange(4800, 5200) if u in bfv else rng.randrange(900, 1200))
                c = ctx_masakari_nova(me, ids.req(), gg)
                self.oslo(eng, ti, epid, "INFO", "masakari.compute.nova", c, "Call unlock server command for instance %s" % u)
                _, e = self.nova_call(ti + 15, "POST", "/v2.1/servers/%s/action" % u, 202, 0, gid, mc=(eng, epid, c), body='{"unlock": null}')
                lasts.append((e + 10, c))
                if tp.many:
                    slots[j] = e + 10
            t, c = max(lasts) if lasts else (t + 500, ctx_masakari_nova(me, ids.req(), gg))
            if failed:
                t += 700
                tf = ids.uuid()
                tree = ("2 predecessors (most recent first):\n"
                        "  Atom 'PrepareHAEnabledInstancesTask' {'intention': 'EXECUTE', 'state': 'SUCCESS', 'requires': {'context': <masakari.context.RequestContext object at 0x7f6d8c4a2f98>, 'host_name': '%s'}, 'provides': {'instance_list': [%s]}}\n"
                        "  |__Atom 'DisableComputeServiceTask' {'intention': 'EXECUTE', 'state': 'SUCCESS', 'requires': {'context': <masakari.context.RequestContext object at 0x7f6d8c4a2f98>, 'host_name': '%s'}, 'provides': None}\n"
                        "     |__Flow 'instance_evacuate_engine': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '%s' from host '%s'") % (
                    fhost, ", ".join("'%s'" % u for u in insts), fhost, ",".join(failed), fhost)
                lg = "masakari.engine.drivers.taskflow.driver"
                ts = eng.clock.oslo(t)
                text = "%s %s WARNING %s %sTask 'EvacuateInstancesTask' (%s) transitioned into state 'FAILURE' from state 'RUNNING'\n%s\n" % (
                    ts, epid, lg, c, tf, tree)
                text += traceback_lines(ts, epid, lg, [
                    ('File "%staskflow/engines/action_engine/executor.py", line 53, in _execute_task' % PY, "result = task.execute(**arguments)"),
                    ('File "%smasakari/engine/drivers/taskflow/host_failure.py", line 334, in execute' % PY, "raise exception.HostRecoveryFailureException(")],
                    "masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '%s' from host '%s'" % (",".join(failed), fhost))
                self.emit(eng, t, text)
                for name in ("EvacuateInstancesTask", "PrepareHAEnabledInstancesTask", "DisableComputeServiceTask"):
                    t += 12
                    self.oslo(eng, t, epid, "WARNING", lg, c, "Task '%s' (%s) transitioned into state 'REVERTED' from state 'REVERTING'" % (name, ids.uuid()))
                t += 13
                self.oslo(eng, t, epid, "WARNING", lg, c, "Flow 'instance_evacuate_engine' (%s) transitioned into state 'REVERTED' from state 'RUNNING'" % ids.uuid())
                t += 340
                m = "Failed to evacuate instances '%s' from host '%s'" % (",".join(failed), fhost)
                self.oslo(eng, t, epid, "ERROR", "masakari.engine.manager", c,
                          "Failed to process notification '%s'. Reason: %s: masakari.exception.HostRecoveryFailureException: %s" % (notif, m, m))
                t += 4
                self.oslo(eng, t, epid, "INFO", "masakari.engine.manager", c, "Notification %s exits with status: error." % notif)
                pd.append(("EvacuateInstancesTask", t - 1000, "0.7", "Failed to evacuate instances '%s' from host '%s'" % (",".join(failed), fhost)))
                return t, "error"
            done = sorted(u for u in insts if u not in pending)
            pd.append(("EvacuateInstancesTask", t - 6, "0.7", "Successfully evacuate instances '%s' from host '%s'" % (",".join(done), fhost)))
            pd.append(("EvacuateInstancesTask", t - 5, "1.0", "Evacuation process completed!"))
            self.flow(eng, t - 4, epid, c, ("Task", "EvacuateInstancesTask"), "RUNNING", "SUCCESS", "None")
            self.flow(eng, t - 2, epid, c, ("Flow", "instance_evacuate_engine"), "RUNNING", "SUCCESS")
            self.oslo(eng, t, epid, "INFO", "masakari.engine.manager", c, "Notification %s exits with status: finished." % notif)
            return t, "finished"

        pending = set()
        if kind == "pending-after-finished":
            pending = set(insts[-rng.randrange(1, 4):]) if tp.hard else {insts[-1]}
        raced = set(insts)
        raced_dyn = set()
        cut = [None]
        if kind == "evacuate-400-race" and tp.hard:
            # only the evacuate calls made before Nova sees the host down are refused; the
            # ones after that moment (whatever their worker thread) are accepted
            cut[0] = T0 + tp.wait_period * 1000 + rng.randrange(6_000, 40_000)
        accepted = {}
        self.race_evac = []
        first_ctx = ctx_req(me, gid_api, MASAKARI_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN)
        t_end, st = run_attempt(T0, first_ctx, gid, kind, insts)
        statuses.append(st)
        if cut[0] is not None:
            raced = raced_dyn
            cut[0] = None
        if st == "error":
            # periodic process_unfinished_notifications re-runs it (admin context), over
            # the instances still on the failed host
            t_retry = t_end + rng.randrange(60_000, 118_000)
            prid = ids.req()
            left = insts if raced == set(insts) else [u for u in insts if u in raced]
            t_end, st = run_attempt(t_retry, ctx_admin(me, prid), prid if me == ZED else None, "healthy", left)
            statuses.append(st)

        # compute host F: hang heartbeats (race) and silence until it comes back
        cout = tp.outs[("cmp", F)]
        cpid_old = tp.cmp_pid[F]
        if kind == "evacuate-400-race":
            last_hb = min(self.race_evac) - rng.randrange(25_000, 50_000)
            hb = []
            x = last_hb
            while x > t_fail:
                hb.append(x)
                x -= 51_000 - rng.randrange(0, 900)
            for x in sorted(hb):
                self.oslo(cout, x, cpid_old, "WARNING", "oslo.service.loopingcall", "[-] ",
                          "Function 'nova.servicegroup.drivers.db.DbDriver._report_state' run outlasted interval by %.2f sec" % (40 + rng.random()))
        t_back = t_end + rng.randrange(20 * 60_000, 45 * 60_000)
        t_back = min(t_back, COLLECT_MS - 60_000)
        new_pid = str(rng.randrange(1500, 9000))
        tp.groups[("cmp", F)].blackouts.append((t_fail, t_back, new_pid))
        tp.cmp_pid[F] = new_pid
        nv = tp.nova_version[F]
        x = t_back + 100
        self.oslo(cout, x, new_pid, "INFO", "nova.virt.driver", "[-] ", "Loading compute driver 'libvirt.LibvirtDriver'")
        self.oslo(cout, x + 2700, new_pid, "INFO", "nova.service", "[-] ", "Starting compute node (version %s)" % nv)
        rq = ids.req()
        x += 5000
        for u in insts:
            if u in rebuilt:
                self.oslo(cout, x, new_pid, "INFO", "nova.compute.manager", ctx_admin(tp.era[("cmp", F)], rq),
                          "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", inst=u)
                x += 1500
                self.oslo(cout, x, new_pid, "INFO", "nova.virt.libvirt.driver", ctx_admin(tp.era[("cmp", F)], rq), "Instance destroyed successfully.", inst=u)
                x += 300

        if tp.captures:
            # `openstack notification show <id> -f json` taken after the fact (last run's
            # progress details; their timestamps are the engine host's UTC clock)
            tasks = []
            for name in ("DisableComputeServiceTask", "PrepareHAEnabledInstancesTask", "EvacuateInstancesTask"):
                det = sorted((x for x in self.pd if x[0] == name), key=lambda x: x[1])
                state = "FAILURE" if statuses[-1] == "error" and name == "EvacuateInstancesTask" else "SUCCESS"
                tasks.append({"name": name, "state": state, "progress": 1.0, "progress_details": [
                    {"timestamp": eng.clock.utc(ms) + "%03d" % (ms * 37 % 1000), "progress": pg, "message": m} for _, ms, pg, m in det]})
            iso6 = lambda ms: eng.clock.utc(ms).replace(" ", "T") + "000"
            cap = {"created_at": iso6(tpost), "updated_at": iso6(t_end), "notification_uuid": notif, "type": "COMPUTE_HOST",
                   "status": statuses[-1], "source_host_uuid": tp.svc_uuid[F], "generated_time": iso6(tpost - 4000)[:19] + ".000000",
                   "payload": {"event": "STOPPED", "host_status": "NORMAL", "cluster_status": "OFFLINE"},
                   "recovery_workflow_details": tasks}
            self.captures.append(("notification-show-%s.txt" % notif,
                                  "$ openstack notification show %s -f json\n%s\n" % (notif, json.dumps(cap, indent=2))))

        concerned = {
            "healthy": [],
            "evacuate-400-race": [u for u in insts if u in raced],
            "pending-after-finished": sorted(pending),
            "bfv-evacuation-delay": sorted(bfv),
        }[kind]
        day = T0 // DAY_MS
        self.truth.append({
            "index": idx,
            "notification_id": notif,
            "expected": kind,
            "instances_concerned": concerned,
            "failed_host": fhost,
            "failed_host_machine": tp.machine_of[F],
            "failed_host_hostname": tp.short[F],
            "instances": list(insts),
            "boot_from_volume": sorted(bfv),
            "bfv_form": (bfv_form if bfv else None),
            "expected_detectors": [] if kind == "healthy" else [kind],
            "evacuate_accepted": {u: Clock.iso(v) for u, v in accepted.items()},
            "destinations": {u: rebuilt[u][0] for u in insts if u in rebuilt},
            "rebuild_start": {u: Clock.iso(rebuilt[u][1]) for u in insts if u in rebuilt},
            "evacuate_request_ids": ev_reqs,
            "global_request_id": gid_api if me == ZED else None,
            "masakari_api_request_id": gid_api,
            "statuses": statuses,
            "final_status": statuses[-1],
            "start": Clock.iso(T0),
            "end": Clock.iso(t_end),
            "host_down": Clock.iso(t_fail),
            "host_back": Clock.iso(t_back),
            "engine_log": eng.rot(eng.relbase, day),
        })

    def rebuild(self, u, nid, t_acc, gid, bfv, dest, rebuilt, late=True):
        """nova-compute lines on the destination for an accepted evacuation."""
        tp, rng, ids = self.topo, self.rng, self.ids
        era = tp.era[("cmp", dest)]
        out = tp.outs[("cmp", dest)]
        pid = tp.cmp_pid[dest]
        ctx = ctx_req(era, nid, MASAKARI_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN, gid=gid)
        if bfv and late:
            t = t_acc + rng.randrange(8 * 60_000 + 20_000, 14 * 60_000)
        elif bfv:
            t = t_acc + rng.randrange(20_000, 50_000)
        else:
            t = t_acc + rng.randrange(900, 3500)
        rebuilt[u] = (tp.nova_host[dest], t)
        if tp.dbg_all:
            # the evacuation's request context carries on into nova-conductor, the
            # scheduler and the destination compute; these lines have no [instance: ] tag
            cc = tp.pick_ctl()
            cond, sched = tp.outs[tp.K("cond", cc)], tp.outs[tp.K("sched", cc)]
            cera = tp.era["ncc"]
            cctx0 = ctx_req(cera, nid, MASAKARI_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN, gid=gid)
            tc = t_acc + 40
            cpid = tp.groups[tp.K("cond", cc)].pids[0]
            spid = tp.groups[tp.K("sched", cc)].pids[0]
            self.oslo(sched, tc + 30, spid, "DEBUG", "nova.scheduler.manager", cctx0, "Starting to schedule for instances: ['%s']%s" % (
                u, dbg("select_destinations", "nova/scheduler/manager.py", 141)))
            self.oslo(sched, tc + 60, spid, "DEBUG", "nova.filters", cctx0, "Filter ComputeFilter returned %d host(s)%s" % (
                tp.n_compute - 1, dbg("get_filtered_objects", "nova/filters.py", 104)))
            self.oslo(cond, tc + 120, cpid, "DEBUG", "nova.conductor.manager", cctx0, "Took 0.%02d seconds to select destinations for 1 instance(s).%s" % (
                rng.randrange(5, 40), dbg("_schedule_instances", "nova/conductor/manager.py", 957)))
            self.oslo(out, t - 20, pid, "DEBUG", "oslo_concurrency.lockutils", ctx, 'Lock "compute_resources" acquired by "nova.compute.resource_tracker.ResourceTracker.rebuild_claim" :: waited 0.000s%s' % (
                dbg("inner", "oslo_concurrency/lockutils.py", 359)))
        self.oslo(out, t, pid, "INFO", "nova.compute.manager", ctx, "Evacuating instance", inst=u)
        t += 90 + rng.randrange(150)
        self.oslo(out, t, pid, "INFO", "nova.compute.claims", ctx, "Claim successful on node %s" % tp.nova_host[dest], inst=u)
        t += 100 + rng.randrange(150)
        if bfv:
            # with --failures hard this line has no [instance: ] tag (only the request context)
            self.oslo(out, t, pid, "INFO", "nova.compute.manager", ctx, "disk on volume, evacuating using existing volume", inst=None if tp.hard else u)
            vol = ids.uuid()
            cctx = ctx_req(tp.era["cinder"], ids.req(), NOVA_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN, gid=gid)
            cc = tp.pick_ctl()
            capi = tp.outs[tp.K("capi", cc)]
            cvol = tp.outs[tp.K("cvol", cc)]
            ca = rng.choice(tp.capi_pids_c[cc])
            for k, (m, path, st) in enumerate([("POST", "attachments", 200), ("PUT", "attachments/" + ids.uuid(), 200)]):
                self.oslo(capi, t + 200 + 400 * k, ca, "INFO", "cinder.api.openstack.wsgi", cctx,
                          "%s http://172.27.100.129:8776/v3/%s/%s" % (m, SERVICES_PROJ, path))
                self.oslo(capi, t + 380 + 400 * k, ca, "INFO", "cinder.api.openstack.wsgi", cctx,
                          "http://172.27.100.129:8776/v3/%s/%s returned with HTTP %d" % (SERVICES_PROJ, path, st))
            self.oslo(cvol, t + 1100, tp.cvol_pid_c[cc], "INFO", "cinder.volume.manager", cctx,
                      "Terminate volume connection completed successfully.")
            self.oslo(cvol, t + 1900, tp.cvol_pid_c[cc], "INFO", "cinder.volume.manager", cctx,
                      "Attach volume completed successfully.")
            t += 2500
        else:
            self.oslo(out, t, pid, "INFO", "nova.compute.manager", ctx, "disk on shared storage, evacuating using existing disk", inst=u)
        t += 2500 + rng.randrange(2000)
        rq = ids.req()
        self.oslo(out, t, pid, "INFO", "nova.compute.manager", ctx_admin(era, rq), "VM Started (Lifecycle Event)", inst=u)
        self.oslo(out, t + 50, pid, "INFO", "nova.virt.libvirt.driver", "[-] ", "Instance spawned successfully.", inst=u)
        self.oslo(out, t + 120, pid, "INFO", "nova.compute.manager", ctx_admin(era, rq), "VM Resumed (Lifecycle Event)", inst=u)
        self.oslo(out, t + 230, pid, "INFO", "nova.compute.manager", ctx_admin(era, rq),
                  "During sync_power_state the instance has a pending task (rebuild_spawning). Skip.", inst=u)
        # neutron tells nova the port is up
        cc = tp.pick_ctl()
        napi, nacc, nip = tp.outs[tp.K("napi", cc)], tp.outs[tp.K("nacc", cc)], tp.cip[("ncc", cc)]
        te = t + 400 + rng.randrange(300)
        nctx = ctx_req(tp.era["ncc"], ids.req(), NEUTRON_USER, SERVICES_PROJ, SERVICE_DOMAIN, SERVICE_DOMAIN)
        pid = rng.choice(tp.api_pids_c[cc])
        self.emit(nacc, te, '%s - - %s "POST /v2.1/os-server-external-events HTTP/1.1" 200 671 "-" "python-novaclient"\n' % (nip, nacc.clock.apache(te)))
        self.oslo(napi, te + 60, pid, "INFO", "nova.api.openstack.compute.server_external_events", nctx,
                  "Creating event network-vif-plugged:%s for instance %s on %s" % (ids.uuid(), u, tp.nova_host[dest]))
        self.oslo(napi, te + 72, pid, "INFO", "nova.api.openstack.requestlog", nctx,
                  '%s "POST /v2.1/os-server-external-events" status: 200 len: 213 microversion: 2.1 time: 0.081022' % nip)


# --------------------------------------------------------------------------------------
# layouts: where each host's files go


LAYOUTS = ("juju", "juju-nostatus", "sosreport", "kolla", "k8s")
KOLLA_ACCESS = {
    "var/log/apache2/masakari_access.log": "var/log/kolla/masakari/masakari-api-access.log",
    "var/log/apache2/nova-api-os-compute_access.log": "var/log/kolla/nova/nova-api-access.log",
    "var/log/apache2/keystone_access.log": "var/log/kolla/keystone/keystone-apache-public-access.log",
    "var/log/apache2/cinder_access.log": "var/log/kolla/cinder/cinder-api-access.log",
}
# openstack-helm pods: logical log -> (pod name prefix, container); access logs share the
# API container's stream (Apache / uWSGI write both to stdout)
K8S_PODS = {
    "var/log/nova/nova-compute.log": ("nova-compute-default-", "nova-compute"),
    "var/log/libvirt/libvirtd.log": ("libvirt-libvirt-default-", "libvirt"),
    "var/log/neutron/neutron-openvswitch-agent.log": ("neutron-ovs-agent-default-", "neutron-ovs-agent"),
    "var/log/masakari/masakari-engine.log": ("masakari-engine-5b8f7c9d4-", "masakari-engine"),
    "var/log/masakari/masakari-api.log": ("masakari-api-7d9c8b6f5-", "masakari-api"),
    "var/log/nova/nova-api-wsgi.log": ("nova-api-osapi-6c7d8f9b5-", "nova-osapi"),
    "var/log/nova/nova-conductor.log": ("nova-conductor-7f8c9d6b4-", "nova-conductor"),
    "var/log/nova/nova-scheduler.log": ("nova-scheduler-5d6c7b8f9-", "nova-scheduler"),
    "var/log/cinder/cinder-api.log": ("cinder-api-6b7c8d9f5-", "cinder-api"),
    "var/log/cinder/cinder-volume.log": ("cinder-volume-7c8d9b6f4-", "cinder-volume"),
    "var/log/cinder/cinder-scheduler.log": ("cinder-scheduler-8d9c7b5f6-", "cinder-scheduler"),
    "var/log/keystone/keystone.log": ("keystone-api-6f7d8c9b5-", "keystone-api"),
    "var/log/neutron/neutron-server.log": ("neutron-server-5f6d7c8b9-", "neutron-server"),
}
K8S_MERGE = {
    "var/log/apache2/masakari_access.log": "var/log/masakari/masakari-api.log",
    "var/log/apache2/nova-api-os-compute_access.log": "var/log/nova/nova-api-wsgi.log",
    "var/log/apache2/keystone_access.log": "var/log/keystone/keystone.log",
    "var/log/apache2/cinder_access.log": "var/log/cinder/cinder-api.log",
}


def kolla_path(logical):
    if logical in KOLLA_ACCESS:
        return KOLLA_ACCESS[logical]
    if logical == "var/log/nova/nova-api-wsgi.log":
        return "var/log/kolla/nova/nova-api.log"
    if logical.startswith("var/log/") and not logical.startswith("var/log/syslog"):
        return "var/log/kolla/" + logical[len("var/log/"):]
    return logical


KOLLA_ACCESS_FILES = set(KOLLA_ACCESS.values())
KOLLA_ACC_RE = re.compile(r'^(\S+ \S+ \S+ \[[^\]]*\] "[^"]*" \d{3} )(\d+)( ")', re.M)


def kolla_access(text):
    """Kolla's Apache LogFormat: `%b` (0 -> '-') then `%D` (microseconds) after the status."""
    n = [0]

    def sub(m):
        n[0] += 1
        b = m.group(2)
        return "%s%s %d%s" % (m.group(1), "-" if b == "0" else b, 2000 + (n[0] * 7919) % 900000, m.group(3))

    return KOLLA_ACC_RE.sub(sub, text)


def k8s_rot(base, day):
    """kubelet's rotation names: 0.log, 0.log.<yyyymmdd-hhmmss>[.gz]."""
    age = DAYS - 1 - day
    if age == 0:
        return base
    stamp = (START + _dt.timedelta(days=day + 1, seconds=61 + day)).strftime("%Y%m%d-%H%M%S")
    return base + "." + stamp + (".gz" if age >= 2 else "")


def cri_wrap(text):
    """Container runtime (CRI) log lines: '<RFC 3339 nano> <stream> <P|F> <payload>'. Lines
    longer than the runtime's buffer (here 480 bytes) are split into P(artial) pieces."""
    out = []
    ts = "2023-03-06T00:00:00.000000000Z"
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines):
        if len(line) > 23 and line[4] == "-" and line[10] == " " and line[13] == ":" and line[19] == ".":
            ts = "%sT%s%06dZ" % (line[:10], line[11:23], (n * 7919) % 1000000)
        elif " - - [" in line[:60]:  # Apache access line (UTC in pods): its %t
            a = line.index(" - - [") + 6
            d, mon, rest = line[a:a + 2], line[a + 3:a + 6], line[a + 7:a + 20]
            if mon in MONTHS:
                ts = "%s-%02d-%sT%s.%09dZ" % (rest[:4], MONTHS.index(mon) + 1, d, rest[5:13], (n * 7919) % 1000000000)
        stream = "stderr" if " ERROR " in line[:60] or " WARNING " in line[:60] else "stdout"
        while len(line) > 480:
            out.append("%s %s P %s" % (ts, stream, line[:480]))
            line = line[480:]
        out.append("%s %s F %s" % (ts, stream, line))
    return "\n".join(out) + "\n" if out else ""


# The forms `kubectl logs` output takes, given to the pods' files in turn (--wrap kubectl):
# --timestamps, --prefix, both, and --timestamps over pebble's own prefix (Sunbeam's
# containers run pebble: `<RFC 3339 ms>Z [<service>] <line>`).
KUBECTL_FORMS = ("both", "timestamps", "prefix", "timestamps-pebble")


def kubectl_wrap(text, form, pod, container):
    """`kubectl logs [--prefix] [--timestamps] <pod> -c <container>` output: the
    container's whole lines (kubectl joins the runtime's pieces), each behind
    `[pod/<pod>/<container>] ` and/or the runtime's UTC read time."""
    out = []
    ts = "2023-03-06T00:00:00.000000000Z"
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines):
        if len(line) > 23 and line[4] == "-" and line[10] == " " and line[13] == ":" and line[19] == ".":
            ts = "%sT%s%06dZ" % (line[:10], line[11:23], (n * 7919) % 1000000)
        elif " - - [" in line[:60]:  # Apache access line (UTC in pods): its %t
            a = line.index(" - - [") + 6
            d, mon, rest = line[a:a + 2], line[a + 3:a + 6], line[a + 7:a + 20]
            if mon in MONTHS:
                ts = "%s-%02d-%sT%s.%09dZ" % (rest[:4], MONTHS.index(mon) + 1, d, rest[5:13], (n * 7919) % 1000000000)
        if form == "timestamps-pebble":
            line = "%sZ [%s] %s" % (ts[:23], container, line)
        parts = []
        if form in ("both", "prefix"):
            parts.append("[pod/%s/%s]" % (pod, container))
        if form != "prefix":
            parts.append(ts)
        parts.append(line)
        out.append(" ".join(parts))
    return "\n".join(out) + "\n" if out else ""


# --------------------------------------------------------------------------------------
# topology, configs, juju_status.yaml


class Topo:
    pass


def juju_status(tp):
    L = []
    a = L.append
    a("model:\n  name: openstack\n  type: iaas\n  controller: maas-ob100\n  cloud: maas-ob100\n  region: default\n  version: 2.9.42\n"
      "  model-status:\n    current: available\n    since: 01 Mar 2023 09:22:40Z\n  sla: unsupported\nmachines:\n")

    def machine(ind, mid, host, ips, kind):
        s = ind
        out = ('%s"%s":\n' % (s, mid)) if "/" not in mid else ("%s%s:\n" % (s, mid))
        s2 = s + "  "
        out += "%sjuju-status:\n%s  current: started\n%s  since: 06 Mar 2023 08:13:02Z\n%s  version: 2.9.42\n" % (s2, s2, s2, s2)
        out += "%shostname: %s\n%sdns-name: %s\n%sip-addresses:\n" % (s2, host, s2, ips[0], s2)
        for ip in ips:
            out += "%s- %s\n" % (s2, ip)
        out += "%sinstance-id: %s\n%smachine-status:\n%s  current: running\n%s  message: %s\n%s  since: 06 Mar 2023 08:13:02Z\n" % (
            s2, host, s2, s2, s2, "Deployed" if kind == "bm" else "Container started", s2)
        out += "%sseries: focal\n" % s2
        return out

    for m in range(tp.n_machines):
        host = tp.machine_host[m]
        a(machine("  ", str(m), host, [tp.machine_ip[m], "10.5.0.%d" % (31 + m)], "bm"))
        a('    constraints: tags=%s\n    hardware: arch=amd64 cores=64 mem=262144M availability-zone=default\n' % ("compute" if m < tp.n_compute else "infra"))
        conts = [h for k, h in tp.hosts.items() if k[0] != "cmp" and h.juju.startswith("%d/lxd/" % m)]
        if conts:
            a("    containers:\n")
            for h in conts:
                a(machine("      ", h.juju, h.name, [h.ip, "10.5.0.%s" % h.ip.split(".")[-1]], "lxd"))
    a("applications:\n")

    def app(name, charm, version, units, subs=None):
        out = "  %s:\n    charm: %s\n    series: focal\n    os: ubuntu\n    charm-origin: charmhub\n    charm-name: %s\n" % (name, name, name)
        out += "    exposed: false\n    application-status:\n      current: active\n      message: Unit is ready\n      since: 06 Mar 2023 08:13:02Z\n"
        out += "    units:\n"
        for uname, mid, ip in units:
            out += "      %s:\n        workload-status:\n          current: active\n          message: Unit is ready\n" % uname
            out += "        juju-status:\n          current: idle\n          since: 15 Mar 2023 20:44:17Z\n          version: 2.9.42\n"
            out += '        machine: "%s"\n        public-address: %s\n' % (mid, ip)
        out += "    version: %s\n" % version
        return out

    def units(app_name, key):
        return [("%s/%d" % (app_name, c), tp.hosts[(key, c)].juju, tp.hosts[(key, c)].ip) for c in range(tp.C)]

    a(app("masakari", "masakari", tp.versions["masakari"], units("masakari", "masakari")))
    a(app("nova-cloud-controller", "nova-cloud-controller", tp.versions["ncc"], units("nova-cloud-controller", "ncc")))
    a(app("cinder", "cinder", tp.versions["cinder"], units("cinder", "cinder")))
    a(app("keystone", "keystone", tp.versions["keystone"], units("keystone", "keystone")))
    if ("neutron", 0) in tp.hosts:
        a(app("neutron-api", "neutron-api", tp.versions["ncc"], units("neutron-api", "neutron")))
        a(app("rabbitmq-server", "rabbitmq-server", "3.8.2", units("rabbitmq-server", "rabbitmq")))
    a(app("nova-compute", "nova-compute", tp.versions["ncc"],
          [("nova-compute/%d" % i, str(i), tp.machine_ip[i]) for i in range(tp.n_compute)]))
    a('controller:\n  timestamp: "21:06:58Z"\n')
    return "".join(L)


def nova_conf_compute(tp, i):
    return ("###############################################################################\n"
            "# [ WARNING ]\n# Configuration file maintained by Juju. Local changes may be overwritten.\n"
            "###############################################################################\n"
            "[DEFAULT]\nverbose=False\ndebug=True\ndhcpbridge_flagfile=/etc/nova/nova.conf\nlogdir=/var/log/nova\nstate_path=/var/lib/nova\n"
            "enabled_apis=osapi_compute,metadata\nhost = %s\nmy_ip = %s\n"
            "transport_url = rabbit://nova:Jw8b4XnTqLcYm3VdRkp2HsF9gZ6tNe7C@172.27.100.137:5672/openstack\n"
            "compute_driver = libvirt.LibvirtDriver\nreserved_host_memory_mb = 512\nuse_syslog = False\nreport_interval = 10\n\n"
            "[libvirt]\nvirt_type = kvm\nimages_type = rbd\nimages_rbd_pool = nova\nrbd_user = nova-compute\ncpu_mode = host-model\n\n"
            "[oslo_concurrency]\nlock_path=/var/lib/nova/tmp\n") % (tp.nova_host[i], tp.machine_ip[i])


def nova_conf_ncc(tp, c=0):
    return ("###############################################################################\n"
            "# [ WARNING ]\n# Configuration file maintained by Juju. Local changes may be overwritten.\n"
            "###############################################################################\n"
            "[DEFAULT]\nverbose=False\ndebug=True\nlogdir=/var/log/nova\nstate_path=/var/lib/nova\n"
            "enabled_apis=osapi_compute,metadata\nosapi_compute_listen = %s\nmy_ip = %s\n"
            "transport_url = rabbit://nova:Jw8b4XnTqLcYm3VdRkp2HsF9gZ6tNe7C@172.27.100.137:5672/openstack\n"
            "osapi_compute_workers = 4\ncpu_allocation_ratio = 2\nram_allocation_ratio = 0.98\nuse_syslog=False\n"
            "service_down_time = %d\nreport_interval = %d\n\n"
            "[database]\nconnection = mysql+pymysql://nova:Mx3bQ8rT5vKd2WnY7cHs9LgP4fJz6eAt@10.5.0.20/nova\nmax_pool_size = 4\n\n"
            "[conductor]\nworkers = 4\n\n[scheduler]\ndiscover_hosts_in_cells_interval = 30\n\n"
            "[filter_scheduler]\nenabled_filters = AvailabilityZoneFilter,ComputeFilter,ComputeCapabilitiesFilter,ImagePropertiesFilter,ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter\n\n"
            "[api]\nauth_strategy=keystone\n\n[wsgi]\napi_paste_config=/etc/nova/api-paste.ini\n") % (
        tp.cip[("ncc", c)], tp.cip[("ncc", c)], tp.service_down_time, tp.report_interval)


def masakari_conf(tp):
    return ("###############################################################################\n"
            "# [ WARNING ]\n# masakari configuration file maintained by Juju\n# local changes may be overwritten.\n"
            "###############################################################################\n"
            "[DEFAULT]\nenabled_apis = masakari_api\ndebug = True\nauth_strategy = keystone\nnotification_driver=taskflow_driver\n\n"
            "transport_url = rabbit://masakari:Jw8b4XnTqLcYm3VdRkp2HsF9gZ6tNe7C@172.27.100.137:5672/openstack\n\n"
            "os_user_domain_name = service_domain\nos_project_domain_name = service_domain\nos_privileged_user_name = masakari\n"
            "os_privileged_user_tenant = services\nos_privileged_user_auth_url = http://172.27.100.120:5000/v3\n\n"
            "wait_period_after_service_update = %d\n\n"
            "[wsgi]\napi_paste_config = /etc/masakari/api-paste.ini\n\n"
            "[taskflow]\nconnection = mysql+pymysql://masakari:Zr7cV2nH8qKx4TbW9mYs3LfP6dGj5eAu@10.5.0.20/masakari\n\n"
            "[host_failure]\nevacuate_all_instances = True\n") % tp.wait_period


def cinder_conf(tp, c=0):
    return ("[DEFAULT]\ndebug = True\nverbose = False\nvolume_group = cinder-volumes\nosapi_volume_listen = %s\n"
            "enabled_backends = cinder-ceph\nauth_strategy = keystone\n\n[cinder-ceph]\nvolume_backend_name = cinder-ceph\n"
            "volume_driver = cinder.volume.drivers.rbd.RBDDriver\nrbd_pool = cinder-ceph\nrbd_user = cinder-ceph\n") % tp.cip[("cinder", c)]


def keystone_conf(tp):
    return ("[DEFAULT]\ndebug = True\nlog_config_append = /etc/keystone/logging.conf\npublic_port = 5000\n\n"
            "[token]\nexpiration = 3600\nprovider = fernet\n\n[fernet_tokens]\nmax_active_keys = 3\n")


# --------------------------------------------------------------------------------------
# main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1G", help="total uncompressed log size: 20M, 100M, 1G, 4G (default 1G)")
    ap.add_argument("--out", required=True, help="output directory (must not exist, or be empty / a previous bundle)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--hosts", type=int, default=9,
                    help="hosts with logs: compute hosts + 4 LXD containers (masakari, nova-cloud-controller, cinder, keystone); default 9")
    ap.add_argument("--debug", choices=("default", "all"), default="default",
                    help="default: nova/cinder at DEBUG on the two newest days, masakari always; "
                         "all: every OpenStack service at DEBUG all along, with keystoneauth REQ/RESP, "
                         "novaclient, oslo.messaging and taskflow transition lines")
    ap.add_argument("--services", choices=("default", "all"), default="default",
                    help="all: also syslog on every host, libvirtd and the neutron OVS agent on computes, "
                         "neutron-server, rabbitmq, cinder-scheduler and cinder's access log on controllers")
    ap.add_argument("--controllers", type=int, default=0,
                    help="control planes (each: masakari, nova-cloud-controller, cinder, keystone "
                         "[, neutron, rabbitmq]); default 1, or 3 with --services all")
    ap.add_argument("--layout", choices=LAYOUTS, default="juju",
                    help="juju: juju-crashdump tree with juju_status.yaml (default); juju-nostatus: machine folders "
                         "N/ and containers N/lxd/M (numbered from 0) without juju_status.yaml; sosreport: one "
                         "sosreport-<host>[-<case>]-<date>-<rand>/ per host; kolla: <host>/var/log/kolla/<service>/; "
                         "k8s: <node>/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log in CRI format")
    ap.add_argument("--wrap", choices=("cri", "kubectl"), default="cri",
                    help="with --layout k8s: cri (the kubelet's files, default) or kubectl (`kubectl logs` output "
                         "with --prefix and/or --timestamps, and --timestamps over pebble, in turn)")
    ap.add_argument("--zones", default="",
                    help="comma-separated time zones given to the hosts in turn, e.g. 'UTC,Europe/Berlin,America/New_York'")
    ap.add_argument("--skews", default="",
                    help="known clock offsets, e.g. 'ncc-1=95,compute-2=-4,compute-3=600' (hostname or role "
                         "compute-<i> / ncc-<c> / masakari-<c> / cinder-<c> / keystone-<c>, seconds ahead of true time)")
    ap.add_argument("--instances", type=int, default=0,
                    help="instances per failed host (N .. 1.25 N, evacuated by 3 worker threads); default: 1-4")
    ap.add_argument("--overlap", action="store_true",
                    help="every second recovery starts seconds after the previous one, on another host")
    ap.add_argument("--failures", choices=("default", "hard"), default="default",
                    help="hard: only the first calls of a race get HTTP 400, 1-3 pending instances, boot-from-volume "
                         "delays alternate between the two forms (13 min before Nova accepts the evacuate call / "
                         "8-14 min from acceptance to the rebuild) and the compute's `disk on volume` line has no "
                         "[instance: ] tag")
    ap.add_argument("--captures", action="store_true",
                    help="also write `openstack notification show` captures (notification-show-<id>.txt at the top)")
    ap.add_argument("--recoveries", type=int, default=0, help="number of recoveries (default: 12 per GiB, at least 4)")
    ap.add_argument("--force", action="store_true", help="replace --out if it exists")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    size = parse_size(args.size)
    all_svc = args.services == "all"
    if args.controllers <= 0:
        args.controllers = 3 if all_svc else 1
    if args.hosts < 6:
        raise SystemExit("gen_bundle: --hosts must be at least 6 (2 compute hosts + 4 containers)")
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        if args.force or os.path.exists(os.path.join(out, "ground_truth.json")) or not os.listdir(out):
            shutil.rmtree(out)
        else:
            raise SystemExit("gen_bundle: %s exists and is not a generated bundle (use --force)" % out)
    t_start = time.time()
    rng = random.Random(args.seed)
    ids = Ids(random.Random(rng.getrandbits(64)))

    # ---- topology
    tp = Topo()
    tp.n_compute = args.hosts - 4
    tp.n_machines = max(tp.n_compute, 4)
    tp.machine_host = ["node%02dob100" % (m + 1) for m in range(tp.n_machines)]
    tp.machine_ip = ["172.27.100.%d" % (131 + m) for m in range(tp.n_machines)]
    if args.layout in ("juju", "juju-nostatus"):
        tp.short = {i: tp.machine_host[i] for i in range(tp.n_compute)}
        tp.nova_host = {i: tp.machine_host[i] + ".maas" for i in range(tp.n_compute)}
    else:  # sos / kolla / k8s names; "-01" endings on purpose
        tp.short = {i: "cmp-%02d" % (i + 1) for i in range(tp.n_compute)}
        tp.nova_host = dict(tp.short)
    tp.machine_of = {i: "%d/baremetal" % i for i in range(tp.n_compute)}
    tp.containers = [("3/lxd/1", "keystone"), ("3/lxd/2", "cinder"), ("3/lxd/4", "masakari"), ("3/lxd/6", "ncc")]
    tp.cont_host = {k: "juju-4f2a1c-" + c.replace("/", "-") for c, k in tp.containers}
    tp.cont_ip = {"keystone": "172.27.100.120", "cinder": "172.27.100.129", "masakari": "172.27.100.139", "ncc": "172.27.100.141"}
    tp.ncc_ip = tp.cont_ip["ncc"]
    tp.mas_ip = tp.cont_ip["masakari"]
    tp.wait_period = 60
    tp.service_down_time = 60
    tp.report_interval = 10
    # eras: per host, both present (a cloud in the middle of a Yoga -> 2023.1 upgrade)
    keys = [("cmp", i) for i in range(tp.n_compute)] + ["masakari", "ncc", "cinder", "keystone"]
    eras = [PRE, ZED] * (len(keys) // 2 + 1)
    eras = eras[:len(keys)]
    rng.shuffle(eras)
    tp.era = dict(zip(keys, eras))
    tp.nova_version = {i: VERSIONS[tp.era[("cmp", i)]][0] for i in range(tp.n_compute)}
    tp.versions = {"masakari": VERSIONS[tp.era["masakari"]][1], "ncc": VERSIONS[tp.era["ncc"]][0],
                   "cinder": VERSIONS[tp.era["cinder"]][2], "keystone": VERSIONS[tp.era["keystone"]][3]}
    tp.svc_uuid = {i: ids.uuid() for i in range(tp.n_compute)}
    tp.api_pids = mk_pids(rng, 4, 140000, 150000)
    tp.mapi_pids = mk_pids(rng, 2, 50000, 60000)
    tp.capi_pids = mk_pids(rng, 2, 30000, 40000)
    tp.engine_pid = str(rng.randrange(200, 3000))
    tp.cvol_pid = str(rng.randrange(3000, 9000))
    tp.api_pids_c, tp.mapi_pids_c, tp.capi_pids_c = {0: tp.api_pids}, {0: tp.mapi_pids}, {0: tp.capi_pids}
    tp.engine_pid_c, tp.cvol_pid_c = {0: tp.engine_pid}, {0: tp.cvol_pid}
    tp.cmp_pid = {i: str(rng.randrange(2000, 9000)) for i in range(tp.n_compute)}
    bg_inst = [ids.uuid() for _ in range(300)]
    bg_vols = [ids.uuid() for _ in range(80)]
    all_hosts = [tp.nova_host[i] for i in range(tp.n_compute)]

    # ---- hosts (each root of the bundle), outputs
    tp.C = args.controllers
    tp.many = args.instances > 0
    tp.hard = args.failures == "hard"
    tp.captures = args.captures
    # any of the new variations: also the story details real logs carry (instances built on
    # their host before it failed); the default output stays as it was
    tp.rich = tp.many or tp.hard or args.overlap or args.debug == "all" or all_svc or args.layout != "juju"
    tp.dbg_all = args.debug == "all"
    tp.pick_ctl = (lambda: 0) if tp.C == 1 else (lambda: rng.randrange(tp.C))
    tp.hosts = {}  # key -> Host; ("cmp", i) for computes, (service, c) for controller services
    lay = tp.layout = args.layout
    juju = lay in ("juju", "juju-nostatus")
    lrng = random.Random(args.seed * 7919 + 17)  # layout names only: keeps the main stream as it was

    def host_for(key, name, juju_dir, ip):
        h = tp.hosts.get(key)
        if h is None:
            h = tp.hosts[key] = Host(name, juju_dir, ip)
        return h

    for i in range(tp.n_compute):
        host_for(("cmp", i), tp.machine_host[i] if juju else tp.short[i], "%d/baremetal" % i, tp.machine_ip[i])
    cont_keys = ["keystone", "cinder", "masakari", "ncc"] + (["neutron", "rabbitmq"] if all_svc else [])
    cont_idx = {"keystone": 1, "cinder": 2, "masakari": 4, "ncc": 6, "neutron": 7, "rabbitmq": 8}
    tp.cip = {}  # (service, c) -> ip
    for c in range(tp.C):
        m = (3 + c) % tp.n_machines
        for n_k, k in enumerate(cont_keys):
            if not juju:
                ip = tp.cont_ip["ncc"] if c == 0 else "172.27.%d.141" % (100 + c)
                tp.cip[(k, c)] = ip
                name = "ctl-%02d" % (c + 1)
                h = next((x for x in tp.hosts.values() if x.name == name), None) or Host(name, None, ip)
                tp.hosts[(k, c)] = h
                continue
            if c == 0 and k in tp.cont_ip:
                ip = tp.cont_ip[k]
            else:
                ip = "172.27.%d.%d" % (100 + c, 120 + 3 * cont_idx[k] + c)
            # juju-nostatus: containers numbered from 0 on each machine (3/lxd/0, 4/lxd/0 ...)
            jd = "%d/lxd/%d" % (m, n_k if lay == "juju-nostatus" else cont_idx[k])
            tp.cip[(k, c)] = ip
            h = host_for((k, c), "juju-4f2a1c-" + jd.replace("/", "-"), jd, ip)
            if lay == "juju-nostatus":
                h.root = jd + "/"
    tp.uhosts = []  # distinct hosts, in creation order
    for h in tp.hosts.values():
        if h not in tp.uhosts:
            tp.uhosts.append(h)
    for n_h, h in enumerate(tp.uhosts):
        if lay == "juju":
            h.root = h.juju + "/"
        elif lay == "juju-nostatus":
            if "/lxd/" not in h.juju:
                h.root = h.juju.split("/")[0] + "/"
        elif lay == "sosreport":
            # sos names: sosreport-<host>[-<case id>]-<date>-<random>; every other one without a case id
            case = "-%08d" % (3400000 + lrng.randrange(99999)) if n_h % 2 == 0 else ""
            h.root = "sosreport-%s%s-2023-03-15-%s/" % (h.name, case, "".join(lrng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7)))
        else:
            h.root = h.name + "/"
    for i in range(tp.n_compute):
        tp.machine_of[i] = tp.hosts[("cmp", i)].root.rstrip("/")
    # time zones and known clock offsets
    zones = [z.strip() for z in args.zones.split(",") if z.strip()] if args.zones else []
    if lay == "k8s":
        zones = []  # containers log in UTC
    for n_h, h in enumerate(tp.uhosts):
        if zones:
            z = zones[n_h % len(zones)]
            h.zone = None if z in ("UTC", "Etc/UTC") else z
    skews = {}
    for item in (args.skews or "").split(","):
        if item.strip():
            name, _, sec = item.strip().rpartition("=")
            skews[name] = float(sec)
    for n_h, h in enumerate(tp.uhosts):
        # --skews names a host by hostname or by role: compute-<i>, ncc-<c>, masakari-<c> ...
        roles = [("compute-%d" % k[1]) if k[0] == "cmp" else ("%s-%d" % k) for k, v in tp.hosts.items() if v is h]
        sk = skews.get(h.name)
        for role in roles:
            if sk is None:
                sk = skews.get(role)
        if sk:
            h.offset_s = sk
        h.clock = Clock(zoneinfo.ZoneInfo(h.zone) if h.zone else None, int(round(h.offset_s * 1000)))

    O = {}

    def mkout(key, hkey, logical):
        h = tp.hosts[hkey]
        rot, cri = rot_name, False
        if lay == "kolla":
            logical = kolla_path(logical)
        elif lay == "k8s":
            if logical in K8S_MERGE:  # same stream as the API's own log
                app = [o for o in O.values() if o.host is h and o.logical == K8S_MERGE[logical]]
                if app:
                    O[key] = app[0]
                    return app[0]
            if logical in K8S_PODS or logical.startswith("var/log/rabbitmq/"):
                pod, cont = K8S_PODS.get(logical, ("rabbitmq-rabbitmq-", "rabbitmq"))
                suffix = "".join(lrng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
                uid = "%08x-%04x-4%03x-a%03x-%012x" % (lrng.getrandbits(32), lrng.getrandbits(16), lrng.getrandbits(12), lrng.getrandbits(12), lrng.getrandbits(48))
                real = "var/log/pods/openstack_%s%s_%s/%s/0.log" % (pod, suffix, uid, cont)
                rot, cri = k8s_rot, True
                o = O[key] = Out(key, h.root + real, h)
                o.logical, o.rot, o.cri = logical, rot, cri
                if args.wrap == "kubectl":
                    o.kubectl = (KUBECTL_FORMS[len(O) % len(KUBECTL_FORMS)], pod + suffix, cont)
                return o
        o = O[key] = Out(key, h.root + logical, h)
        o.logical, o.rot, o.cri = logical, rot, cri
        return o

    def K(key, c):
        return key if c == 0 else (key, c)

    tp.K = K
    for i in range(tp.n_compute):
        mkout(("cmp", i), ("cmp", i), "var/log/nova/nova-compute.log")
    for c in range(tp.C):
        mkout(K("engine", c), ("masakari", c), "var/log/masakari/masakari-engine.log")
        mkout(K("mapi", c), ("masakari", c), "var/log/masakari/masakari-api.log")
        mkout(K("macc", c), ("masakari", c), "var/log/apache2/masakari_access.log")
        mkout(K("napi", c), ("ncc", c), "var/log/nova/nova-api-wsgi.log")
        mkout(K("nacc", c), ("ncc", c), "var/log/apache2/nova-api-os-compute_access.log")
        mkout(K("cond", c), ("ncc", c), "var/log/nova/nova-conductor.log")
        mkout(K("sched", c), ("ncc", c), "var/log/nova/nova-scheduler.log")
        mkout(K("capi", c), ("cinder", c), "var/log/cinder/cinder-api.log")
        mkout(K("cvol", c), ("cinder", c), "var/log/cinder/cinder-volume.log")
        mkout(K("ks", c), ("keystone", c), "var/log/keystone/keystone.log")
        mkout(K("ksacc", c), ("keystone", c), "var/log/apache2/keystone_access.log")
        if all_svc:
            mkout(("csched", c), ("cinder", c), "var/log/cinder/cinder-scheduler.log")
            mkout(("cacc", c), ("cinder", c), "var/log/apache2/cinder_access.log")
            mkout(("neutron", c), ("neutron", c), "var/log/neutron/neutron-server.log")
            mkout(("rabbit", c), ("rabbitmq", c), "var/log/rabbitmq/rabbit@%s.log" % tp.hosts[("rabbitmq", c)].name)
    if all_svc:
        for i in range(tp.n_compute):
            mkout(("libvirt", i), ("cmp", i), "var/log/libvirt/libvirtd.log")
            mkout(("ovs", i), ("cmp", i), "var/log/neutron/neutron-openvswitch-agent.log")
        tp.hkey = {}
        for hk, h in tp.hosts.items():
            tp.hkey.setdefault(id(h), hk)
        for hk in tp.hkey.values():
            mkout(("syslog", hk), hk, "var/log/syslog")
    tp.outs = O

    # ---- groups and shares
    groups = {}
    dbg_all = args.debug == "all"
    ct, cbad = compute_templates()
    if dbg_all:
        ct = ct + rpc_debug_templates() + ksa_debug_templates("nova-compute") + heartbeat_templates()
    cw = [0.8 + 0.4 * rng.random() for _ in range(tp.n_compute)]
    cws = sum(cw)
    for i in range(tp.n_compute):
        groups[("cmp", i)] = Group("nova-compute@%d" % i, O[("cmp", i)], None, ct, cbad, tp.era[("cmp", i)],
                                   0.42 * cw[i] / cws, tp.cmp_pid[i], None, tp.nova_host[i], always_debug=dbg_all)
    at, abad = api_templates()
    cdt, cdbad = conductor_templates()
    sct, scbad = scheduler_templates()
    cat, cabad = cinder_api_templates()
    cvt, cvbad = cinder_volume_templates()
    kst, ksbad = keystone_templates()
    mat, mabad = masakari_api_templates()
    met, mebad = masakari_engine_templates()
    if dbg_all:
        cdt = cdt + rpc_debug_templates() + ksa_debug_templates("nova-conductor") + heartbeat_templates()
        sct = sct + rpc_debug_templates()
        met = met + rpc_debug_templates()
    C = tp.C
    for c in range(C):
        api_pids = tp.api_pids if c == 0 else mk_pids(rng, 4, 140000, 150000)
        if c:
            tp.api_pids_c[c] = api_pids
            tp.mapi_pids_c[c] = mk_pids(rng, 2, 50000, 60000)
            tp.capi_pids_c[c] = mk_pids(rng, 2, 30000, 40000)
            tp.engine_pid_c[c] = str(rng.randrange(200, 3000))
            tp.cvol_pid_c[c] = str(rng.randrange(3000, 9000))
        groups[K("napi", c)] = Group("nova-api", O[K("napi", c)], O[K("nacc", c)], at, abad, tp.era["ncc"], 0.33 / C, None, api_pids, None, always_debug=dbg_all)
        groups[K("cond", c)] = Group("nova-conductor", O[K("cond", c)], None, cdt, cdbad, tp.era["ncc"], 0.05 / C, None, mk_pids(rng, 4, 140000, 150000), None, always_debug=dbg_all)
        groups[K("sched", c)] = Group("nova-scheduler", O[K("sched", c)], None, sct, scbad, tp.era["ncc"], 0.05 / C, None, mk_pids(rng, 2, 140000, 150000), None, always_debug=dbg_all)
        groups[K("capi", c)] = Group("cinder-api", O[K("capi", c)], None, cat, cabad, tp.era["cinder"], 0.03 / C, None, tp.capi_pids_c[c], None, always_debug=dbg_all)
        groups[K("cvol", c)] = Group("cinder-volume", O[K("cvol", c)], None, cvt, cvbad, tp.era["cinder"], 0.02 / C, tp.cvol_pid_c[c], None, None, always_debug=dbg_all)
        groups[K("ks", c)] = Group("keystone", O[K("ks", c)], O[K("ksacc", c)], kst, ksbad, tp.era["keystone"], 0.06 / C, None, mk_pids(rng, 3, 20000, 30000), None, always_debug=dbg_all)
        groups[K("mapi", c)] = Group("masakari-api", O[K("mapi", c)], O[K("macc", c)], mat, mabad, tp.era["masakari"], 0.01 / C, None, tp.mapi_pids_c[c], None, always_debug=True)
        groups[K("engine", c)] = Group("masakari-engine", O[K("engine", c)], None, met, mebad, tp.era["masakari"], (0.03 if dbg_all else 0.005) / C, tp.engine_pid_c[c], None, None, always_debug=True)
    if all_svc:
        t_, b_ = cinder_scheduler_templates()
        nt, nb = neutron_server_templates()
        rt, rb = rabbitmq_templates()
        xt, xb = cinder_access_templates()
        for c in range(C):
            groups[("csched", c)] = Group("cinder-scheduler", O[("csched", c)], None, t_, b_, tp.era["cinder"], 0.01 / C, str(rng.randrange(3000, 9000)), None, None, always_debug=dbg_all)
            if O[("cacc", c)] is not O[K("capi", c)]:
                groups[("cacc", c)] = Group("cinder-access", O[("cacc", c)], None, xt, xb, tp.era["cinder"], 0.005 / C, None, None, None)
            groups[("neutron", c)] = Group("neutron-server", O[("neutron", c)], None, nt + (rpc_debug_templates() if dbg_all else []), nb, tp.era["ncc"], 0.04 / C, None, mk_pids(rng, 4, 60000, 70000), None, always_debug=dbg_all)
            groups[("rabbit", c)] = Group("rabbitmq", O[("rabbit", c)], None, rt, rb, PRE, 0.01 / C, None, None, None)
        lt, lb = libvirt_templates()
        ot, ob = ovs_agent_templates()
        yt, yb = syslog_templates()
        for i in range(tp.n_compute):
            groups[("libvirt", i)] = Group("libvirtd", O[("libvirt", i)], None, lt, lb, PRE, 0.01 / tp.n_compute, None, None, tp.nova_host[i])
            groups[("ovs", i)] = Group("neutron-openvswitch-agent", O[("ovs", i)], None, ot, ob, tp.era[("cmp", i)], 0.04 / tp.n_compute, str(rng.randrange(3000, 9000)), None, tp.nova_host[i], always_debug=dbg_all)
        for hk in tp.hkey.values():
            groups[("syslog", hk)] = Group("syslog", O[("syslog", hk)], None, yt, yb, PRE, 0.02 / len(tp.hkey), None, None, tp.hosts[hk].name)
    tp.groups = groups
    tot_share = sum(gr.share for gr in groups.values())


    # ---- recoveries
    story = Story(rng, ids, tp)
    n_rec = args.recoveries or max(4, round(12 * size / (1 << 30)))
    kinds_cycle = ["healthy", "evacuate-400-race", "healthy", "pending-after-finished", "healthy", "bfv-evacuation-delay"]
    base = ["evacuate-400-race", "pending-after-finished", "bfv-evacuation-delay"]
    kinds = (base + ["healthy"]) if n_rec == 4 else [kinds_cycle[k % len(kinds_cycle)] for k in range(n_rec)]
    rng.shuffle(kinds)
    if n_rec > 4:  # keep a healthy one first so bench targets an easy case? no: keep shuffle, but stable
        pass
    span_end = COLLECT_MS - 3 * 3600_000
    slot = span_end / n_rec
    prev = None
    n_bfv = 0
    for k in range(n_rec):
        kind = kinds[k]
        T0 = int(slot * k + slot * (0.25 + 0.5 * rng.random()))
        # keep within 01:00 .. 21:00 of a day (no recovery across midnight)
        day, tod = divmod(T0, DAY_MS)
        tod = min(max(tod, 3600_000), 21 * 3600_000)
        T0 = day * DAY_MS + tod
        F = rng.randrange(tp.n_compute)
        if args.overlap and k % 2 == 1 and prev is not None:
            # two notifications processed at once: their lines interleave, each under
            # its own request ids (another failed host, seconds later)
            T0 = prev[0] + rng.randrange(5_000, 40_000)
            F = (prev[1] + 1 + rng.randrange(tp.n_compute - 1)) % tp.n_compute
        prev = (T0, F)
        others = [i for i in range(tp.n_compute) if i != F]
        rng.shuffle(others)
        dests = others[:2]
        n_inst = {"healthy": rng.randrange(1, 5), "evacuate-400-race": rng.randrange(1, 3),
                  "pending-after-finished": rng.randrange(2, 5), "bfv-evacuation-delay": rng.randrange(2, 5)}[kind]
        if tp.many:
            n_inst = args.instances + rng.randrange(args.instances // 4 + 1)
        insts = [ids.uuid() for _ in range(n_inst)]
        bfv = set()
        form = "rebuild"
        if kind == "bfv-evacuation-delay":
            bfv = {insts[0]} if n_inst < 4 else {insts[0], insts[1]}
            if tp.many:
                bfv = set(insts[:: max(1, n_inst // 5)][:5])
            if tp.hard:
                form = ("accept", "rebuild")[n_bfv % 2]
            n_bfv += 1
        story.recovery(k, kind, T0, F, dests, insts, bfv, form)

    # ---- per-group generator state
    def mkg(gr):
        g = G()
        g.ids = ids
        g.rnd = rng.random
        g.host = gr.host
        g.pids = gr.pids
        g.inst = bg_inst
        g.vols = bg_vols
        g.ip = gr.main.host.ip if gr.name in ("masakari-api", "nova-api", "cinder-access", "neutron-server") else tp.ncc_ip
        g.hname = gr.main.host.name
        g.hosts = all_hosts if gr.name != "keystone" else ["10.5.0.%d" % (31 + i) for i in range(8)] + ["10.5.0.39", "10.5.0.41"]
        g.rps = ids.uuid()
        g.bad = 30000 + int(rng.random() * 100000)
        return g

    gstate = {k: mkg(gr) for k, gr in groups.items()}

    # ---- write static files
    n_conf = [0]

    def wtext(rel, text):
        n_conf[0] += 1
        p = os.path.join(out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)

    os.makedirs(out, exist_ok=True)
    if lay == "juju":
        wtext("juju_status.yaml", juju_status(tp))
    if juju:
        for m in range(tp.n_machines):
            if m >= tp.n_compute and lay == "juju-nostatus":
                continue
            root = "%d/baremetal/" % m if lay == "juju" else "%d/" % m
            zone = tp.hosts[("cmp", m)].zone if m < tp.n_compute else None
            wtext(root + "etc/hostname", tp.machine_host[m] + "\n")
            wtext(root + "etc/timezone", (zone or "Etc/UTC") + "\n")
    for h in tp.uhosts:
        if juju and "/lxd/" not in h.juju:
            continue  # machines: above
        if lay == "k8s":
            continue  # a node folder holds only its pod logs and syslog
        wtext(h.root + "etc/hostname", h.name + "\n")
        wtext(h.root + "etc/timezone", (h.zone or "Etc/UTC") + "\n")
        if lay == "sosreport":
            wtext(h.root + "hostname", h.name + "\n")
            wtext(h.root + "sos_commands/host/hostname", h.name + "\n")
            d = _dt.datetime(2023, 3, 15, 21, 20) + _dt.timedelta(seconds=h.offset_s)
            zname = "UTC"
            if h.zone:
                d = d.replace(tzinfo=_dt.timezone.utc).astimezone(zoneinfo.ZoneInfo(h.zone))
                zname = d.strftime("%Z")
            wtext(h.root + "sos_commands/date/date", d.strftime("%a %b %d %H:%M:%S ") + zname + d.strftime(" %Y") + "\n")
    if lay != "k8s":
        cfg = (lambda svc, rel: "etc/kolla/%s/%s" % (svc, rel.split("/")[-1])) if lay == "kolla" else (lambda svc, rel: rel)
        for i in range(tp.n_compute):
            wtext(tp.hosts[("cmp", i)].root + cfg("nova-compute", "etc/nova/nova.conf"), nova_conf_compute(tp, i))
        for c in range(tp.C):
            H = lambda k: tp.hosts[(k, c)].root
            wtext(H("ncc") + cfg("nova-api", "etc/nova/nova.conf"), nova_conf_ncc(tp, c))
            wtext(H("masakari") + cfg("masakari-engine", "etc/masakari/masakari.conf"), masakari_conf(tp))
            wtext(H("cinder") + cfg("cinder-api", "etc/cinder/cinder.conf"), cinder_conf(tp, c))
            wtext(H("keystone") + cfg("keystone", "etc/keystone/keystone.conf"), keystone_conf(tp))
    if lay == "juju":
        links = {}
        for c in range(tp.C):
            for app_name, k in (("masakari", "masakari"), ("nova-cloud-controller", "ncc"), ("cinder", "cinder"), ("keystone", "keystone"),
                                ("neutron-api", "neutron"), ("rabbitmq-server", "rabbitmq")):
                if (k, c) in tp.hosts:
                    links["%s_%d" % (app_name, c)] = tp.hosts[(k, c)].juju
        for i in range(tp.n_compute):
            links["nova-compute_%d" % i] = "%d/baremetal" % i
        for name, target in sorted(links.items()):
            os.symlink(target, os.path.join(out, name))

    # ---- logs: day by day, group by group; writes/gzip in a worker thread (zlib and
    # file writes release the GIL, so this overlaps with generation on a 2-core box)
    weights = day_weights()
    stats = {"bytes": 0, "gz_bytes": 0, "files": 0, "lines": 0}
    pool = ThreadPoolExecutor(max_workers=1)
    pending = []

    def write_file(rel, data):
        p = os.path.join(out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if rel.endswith(".gz"):
            with open(p, "wb") as raw:
                with gzip.GzipFile(filename=os.path.basename(p)[:-3], mode="wb", fileobj=raw, compresslevel=6, mtime=0) as z:
                    z.write(data)
        else:
            with open(p, "wb") as f:
                f.write(data)

    for day in range(DAYS):
        for key in sorted(groups, key=str):
            gr = groups[key]
            budget = int(size * gr.share / tot_share * weights[day])
            res = gen_day(gr, day, budget, gstate[key], rng.random)
            for o, text in res.items():
                if getattr(o, "kubectl", None):
                    text = kubectl_wrap(text, *o.kubectl)
                elif o.cri:
                    text = cri_wrap(text)
                elif lay == "kolla" and o.logical in KOLLA_ACCESS_FILES:
                    text = kolla_access(text)
                if lay == "sosreport" and o.key[0] == "syslog" and day == DAYS - 1:
                    # sos's journal capture holds the same records as the newest syslog
                    pending.append(pool.submit(write_file, o.host.root + "sos_commands/logs/journalctl_--no-pager", text.encode("latin-1")))
                data = text.encode("latin-1")
                rel = o.rot(o.relbase, day)
                stats["bytes"] += len(data)
                stats["lines"] += data.count(b"\n")
                stats["files"] += 1
                if rel.endswith(".gz"):
                    stats["gz_bytes"] += len(data)
                pending.append(pool.submit(write_file, rel, data))
                while len(pending) > 3:
                    pending.pop(0).result()
        if not args.quiet:
            print("gen_bundle: day %d/%d done (%.0f MB, %.1f s)" % (day + 1, DAYS, stats["bytes"] / 1e6, time.time() - t_start), file=sys.stderr)
    for f in pending:
        f.result()
    pool.shutdown()

    truth = story.truth
    for rel, text in story.captures:
        wtext(rel, text)
    hosts = []
    for h in tp.uhosts:
        keys = [k for k, v in tp.hosts.items() if v is h]
        aliases = sorted({h.root.rstrip("/")} | ({h.juju} if h.juju and juju else set())
                         | {tp.nova_host[k[1]] for k in keys if k[0] == "cmp"})
        hosts.append({"name": h.name, "root": h.root.rstrip("/"), "aliases": aliases,
                      "roles": sorted({"compute" if k[0] == "cmp" else k[0] for k in keys}),
                      "zone": h.zone or "Etc/UTC", "clock_offset_s": h.offset_s})
    doc = {
        "format": "evacdoc-bench-truth/2",
        "generator": {"size": args.size, "seed": args.seed, "layout": lay, "debug": args.debug, "services": args.services,
                      "controllers": tp.C, "instances": args.instances, "overlap": args.overlap, "failures": args.failures,
                      "zones": args.zones, "skews": args.skews,
                      **({"wrap": args.wrap} if args.wrap != "cri" else {})},
        "host_count": len(hosts),
        "hosts": hosts,
        "clock_offsets_s": {h["name"]: h["clock_offset_s"] for h in hosts if h["clock_offset_s"]},
        "recoveries": truth,
    }
    with open(os.path.join(out, "ground_truth.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    el = time.time() - t_start
    if not args.quiet:
        print("gen_bundle: %s: %d log files (+%d config), %.1f MiB uncompressed (%.1f%% of the requested %.1f MiB), "
              "%.1f%% in .gz, %d lines, %d recoveries, %.1f s" % (
                  out, stats["files"], n_conf[0],
                  stats["bytes"] / 2**20, 100 * stats["bytes"] / size, size / 2**20,
                  100 * stats["gz_bytes"] / max(stats["bytes"], 1), stats["lines"], len(truth), el), file=sys.stderr)
        eras_s = ", ".join("%s=%s" % (k if isinstance(k, str) else "nova-compute/%d" % k[1], v) for k, v in tp.era.items())
        print("gen_bundle: oslo.log eras: %s" % eras_s, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
