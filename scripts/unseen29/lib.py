"""Shared pieces of the unseen-bundle generator for issue 29 (stdlib only).

Every line is rendered the way the upstream code renders it (oslo.log default formats of
both eras, Pacemaker's log format, Apache/uWSGI/eventlet request lines, pebble and CRI
wrappers, journald/syslog) from events placed on one true UTC time line; each host renders
them in its own zone and with its own clock error. Nothing here is copied from
samples/scenarios or scripts/samples29.
"""

import datetime as _dt
import gzip
import zlib
import json
import os
import random
import uuid
import zoneinfo

UTC = _dt.timezone.utc

# Detector ids of the issue 29 classes (by class number), and the older detectors.
CLASS_IDS = {
    1: ["hostmonitor-join-epoch"],
    2: ["hostmonitor-stood-down"],
    3: ["notification-rejected"],
    4: ["k8s-monitor-no-host-status", "consul-monitor-failing"],
    5: ["notification-stuck-running"],
    6: ["engine-not-consuming"],
    7: ["duplicate-host-flows"],
    8: ["source-restart-mid-evacuation"],
    9: ["compute-refuses-to-start"],
    10: ["rebuild-rpc-mismatch"],
    11: ["cinder-attachment-500"],
    12: ["force-up-refused"],
    13: ["evacuated-unfenced"],
    14: ["pending-after-finished"],
}
ALL_CLASS_IDS = sorted({i for ids in CLASS_IDS.values() for i in ids})


class Rng:
    """Deterministic ids for one bundle."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def uuid(self):
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def hex32(self):
        return "%032x" % self.r.getrandbits(128)

    def req(self):
        return "req-" + self.uuid()

    def pid(self):
        return self.r.randint(900, 48000)

    def ms(self, lo, hi):
        return _dt.timedelta(milliseconds=self.r.randint(lo, hi))

    def choice(self, xs):
        return self.r.choice(xs)

    def randint(self, a, b):
        return self.r.randint(a, b)


def t(s):
    """A UTC instant from 'YYYY-MM-DD HH:MM:SS[.fff]'."""
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in s else "%Y-%m-%d %H:%M:%S"
    return _dt.datetime.strptime(s, fmt).replace(tzinfo=UTC)


def sec(n):
    return _dt.timedelta(seconds=n)


class Host:
    """A host's view of time: its zone and its clock error (seconds, + = ahead)."""

    def __init__(self, name, tz="UTC", skew=0.0):
        self.name = name
        self.short = name.split(".")[0]
        self.tz = zoneinfo.ZoneInfo(tz)
        self.tzname = tz
        self.skew = _dt.timedelta(seconds=skew)

    def local(self, utc):
        return (utc + self.skew).astimezone(self.tz)


def oslo_ts(host, utc):
    d = host.local(utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (d.microsecond // 1000)


# --- oslo.log context brackets -------------------------------------------------------------
def ctx_zed(req, user="-", project="-", udom="default", pdom="default", glob="None"):
    return "[%s %s %s %s - - %s %s]" % (glob, req, user, project, udom, pdom)


def ctx_zed_admin(req):
    return "[None %s - - - - - -]" % req


def ctx_nc(glob, local, user="nova"):
    """masakari's novaclient context: global id of the notification, privileged user name."""
    return "[%s %s %s - - - - -]" % (glob, local, user)


def ctx_pre(req, user="-", project="-", udom="default", pdom="default"):
    if user == "-" and project == "-":
        return "[%s - - - - -]" % req
    return "[%s %s %s - %s %s]" % (req, user, project, udom, pdom)


NOCTX = "[-]"


class Log:
    """One oslo.log file of one process on one host."""

    def __init__(self, host, pid, level_debug=False):
        self.host = host
        self.pid = pid
        self.debug = level_debug
        self.lines = []  # (utc, text)

    def add(self, utc, level, logger, ctx, msg, instance=None, func=None, summary=None):
        if level == "DEBUG" and not self.debug:
            return
        inst = "[instance: %s] " % instance if instance else ""
        body = msg
        if summary:
            body += ": " + summary
        if level == "DEBUG":
            body += " " + (func or "_run_loop /usr/lib/python3/dist-packages/%s.py:%d"
                           % (logger.replace(".", "/"), 100 + len(msg) % 700))
        head = "%s %d %s %s %s %s" % (oslo_ts(self.host, utc), self.pid, level, logger, ctx, inst)
        self.lines.append((utc, head + body))

    def tb(self, utc, logger, frames, exc_line, instance=None):
        """A traceback, each line prefixed with logging_exception_prefix (level ERROR)."""
        inst = "[instance: %s] " % instance if instance else ""
        pre = "%s %d ERROR %s %s" % (oslo_ts(self.host, utc), self.pid, logger, inst)
        out = ["Traceback (most recent call last):"]
        for path, line, fn, code in frames:
            out.append('  File "%s", line %d, in %s' % (path, line, fn))
            out.append("    " + code)
        out.append(exc_line)
        out.append("")
        for o in out:
            self.lines.append((utc, pre + o))

    def raw(self, utc, text):
        self.lines.append((utc, text))

    def text(self):
        return "".join(l + "\n" for _, l in sorted(self.lines, key=lambda x: x[0]))


def nc_frames(site="/usr/lib/python3/dist-packages"):
    return [
        (site + "/oslo_messaging/rpc/server.py", 165, "_process_incoming",
         "res = self.dispatcher.dispatch(message)"),
        (site + "/oslo_messaging/rpc/dispatcher.py", 309, "dispatch",
         "return self._do_dispatch(endpoint, method, ctxt, args)"),
        (site + "/oslo_messaging/rpc/dispatcher.py", 229, "_do_dispatch",
         "result = func(ctxt, **new_args)"),
    ]


# --- wrappers ------------------------------------------------------------------------------
def journal_prefix(host, utc, ident, pid):
    d = host.local(utc)
    return "%s %s %s[%d]: " % (d.strftime("%b %d %H:%M:%S"), host.short, ident, pid)


def syslog_prefix(host, utc, ident, pid):
    d = host.local(utc)
    return "%s %2d %s %s %s[%d]: " % (d.strftime("%b"), d.day, d.strftime("%H:%M:%S"),
                                      host.short, ident, pid)


def pebble(utc, svc, line, host):
    d = (utc + host.skew).astimezone(UTC)
    return "%s.%03dZ [%s] %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond // 1000, svc, line)


def cri(utc, line, host, stream="stdout"):
    d = (utc + host.skew).astimezone(UTC)
    return "%s.%06d000Z %s F %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, stream, line)


def apache_combined(host, utc, ip, method, path, status, size, ua):
    d = host.local(utc)
    return '%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "%s"' % (
        ip, d.strftime("%d/%b/%Y:%H:%M:%S %z"), method, path, status, size, ua)


def apache_kolla(host, utc, ip, method, path, status, size, usec, ua):
    d = host.local(utc)
    return '%s - - [%s] "%s %s HTTP/1.1" %d %s %d "-" "%s"' % (
        ip, d.strftime("%d/%b/%Y:%H:%M:%S %z"), method, path, status,
        str(size) if size else "-", usec, ua)


def wsgi_server(log, utc, ctx, ip, method, path, status, length, secs, name="masakari.masakari_api"):
    log.add(utc, "INFO", name + ".wsgi.server", ctx,
            '%s "%s %s HTTP/1.1" status: %d len: %d time: %.7f' % (ip, method, path, status, length, secs))


def requestlog(log, utc, ctx, ip, method, path, status, length, mv, secs):
    log.add(utc, "INFO", "nova.api.openstack.requestlog", ctx,
            '%s "%s %s" status: %d len: %d microversion: %s time: %.6f' % (ip, method, path, status, length, mv, secs))


# --- bundle writing ------------------------------------------------------------------------
class Bundle:
    def __init__(self, root, name):
        self.root = os.path.join(root, name)
        self.name = name

    def write(self, rel, text, gz=False, mode=None):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = text.encode("utf-8")
        if gz:
            with open(p, "wb") as f:
                # mtime fixed so the bundle is byte-identical run to run
                with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
                    g.write(data)
        else:
            with open(p, "wb") as f:
                f.write(data)

    def log(self, rel, log, rotate_at=None, gz_older=False):
        """Write a Log; with rotate_at (UTC) the lines before it go to rel.1 (and, with
        gz_older, the lines before the first third to rel.2.gz)."""
        lines = sorted(log.lines, key=lambda x: x[0])
        if rotate_at is None:
            self.write(rel, "".join(l + "\n" for _, l in lines))
            return
        old = [l for u, l in lines if u < rotate_at]
        new = [l for u, l in lines if u >= rotate_at]
        if gz_older and len(old) > 6:
            cut = len(old) // 3
            self.write(rel + ".2.gz", "".join(l + "\n" for l in old[:cut]), gz=True)
            old = old[cut:]
        self.write(rel + ".1", "".join(l + "\n" for l in old))
        self.write(rel, "".join(l + "\n" for l in new))

    def lines(self, rel, pairs):
        self.write(rel, "".join(l + "\n" for _, l in sorted(pairs, key=lambda x: x[0])))


def sos_root(host, when):
    return "sosreport-%s-2024%s-%s" % (host.short, when, "%06x" % (zlib.crc32(host.name.encode()) % 0xffffff))


def sos_base(b, root, host, pkgs=None, rpm=None, date_utc=None):
    """The small files a sosreport carries: hostname, zone, packages, capture date."""
    b.write(root + "/hostname", host.name + "\n")
    b.write(root + "/sos_commands/host/hostname", host.name + "\n")
    b.write(root + "/etc/hostname", host.short + "\n")
    b.write(root + "/etc/timezone", host.tzname + "\n")
    if pkgs:
        head = ("Desired=Unknown/Install/Remove/Purge/Hold\n"
                "| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n"
                "|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)\n"
                "||/ Name                              Version                        Architecture Description\n"
                "+++-=================================-==============================-============-==========\n")
        rows = "".join("ii  %-33s %-30s all          OpenStack %s\n" % (n, v, n) for n, v in pkgs)
        b.write(root + "/sos_commands/dpkg/dpkg_-l", head + rows)
    if rpm:
        b.write(root + "/installed-rpms",
                "".join("%-60s Mon May  6 10:00:00 2024\n" % ("%s-%s.noarch" % (n, v)) for n, v in rpm))
    if date_utc is not None:
        d = host.local(date_utc)
        b.write(root + "/sos_commands/date/date", d.strftime("%a %b %d %H:%M:%S %Z %Y") + "\n")


def truth(bundle, cls, kind, expect, must_not=None, allow=(), note=""):
    """expect: list of {detector, host?, instances?, notification?}. must_not: ids that must
    not fire ('*' = any finding not expected or allowed)."""
    if must_not is None:
        exp = {e["detector"] for e in expect}
        must_not = "*" if kind == "healthy" else [i for i in ALL_CLASS_IDS if i not in exp and i not in allow]
    return {"class": cls, "bundle": bundle, "kind": kind, "expect": expect,
            "must_not": must_not, "allow": list(allow), "note": note}


def dump_truth(root, items):
    with open(os.path.join(root, "truth.json"), "w") as f:
        json.dump(items, f, indent=1, sort_keys=True)
        f.write("\n")
