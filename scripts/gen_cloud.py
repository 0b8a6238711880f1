#!/usr/bin/env python3
"""A second bundle generator, written apart from gen_bundle.py: another view of a cloud.

    python3 scripts/gen_cloud.py OUT [--size 100M] [--seed N] [--layout plain|sos|kolla|tripleo|devstack]
        [--era pre-zed|zed] [--ignored N] [--races N] [--pending N] [--bfv N] [--healthy N]
        [--offsets] [--zones] [--rotate] [--debug] [--oslo-time FORM] [--journal] [--force]

It writes one folder per host (a sosreport per host with --layout sos) and
OUT/ground_truth.json in the format scripts/check_truth.py reads. Its view of a cloud:

- three controllers (masakari-api, masakari-engine, nova-api behind Apache or eventlet,
  conductor, scheduler, cinder-api) and a dozen computes (nova-compute, masakari
  hostmonitor); host names of the form `<site>-<role><nn>`;
- monitors that report a flood of notifications Masakari ignores (`host_status
  'UNKNOWN'`), interleaved with the real recoveries;
- real recoveries of four kinds: healthy; the evacuate-400 race (Masakari's wait shorter
  than Nova's service_down_time; the retry by the periodic task); the pending vmove after
  `finished` (Keystone refuses the get-server call, the greenthread dies silently); the
  boot-from-volume instance whose rebuild waits for its volume many minutes;
- every other service at DEBUG when asked, logs rotated into `.1` and `.2.gz`, per-host
  clock offsets and time zones (each host logs its local time, /etc/timezone says which);
- oslo.log's time field as each deployment sets it (--oslo-time): the default
  `%(asctime)s`, a `log_date_format` with a `T`, or `%(isotime)s` (local time and its
  offset); `mixed` gives each host one of them;
- hosts whose services log only to the journal (--journal, sos layout): their lines are
  in sos's whole-journal capture, every service's interleaved;
- DevStack as an upstream CI job keeps it (--layout devstack): `<host>/logs/screen-<unit>.txt`,
  each unit's journal in `short-precise` (no year: the files' modification time, the end
  of the logs, gives it) over oslo.log lines without their own time and pid, and the
  configs under `logs/etc` (the compute's is `nova-cpu.conf`).

Only the Python standard library. The log texts are those of
../shared/reference/masakari-nova-logs.md (oslo.log, Masakari, Nova, Cinder, Apache).
"""

import argparse
import datetime as dt
import gzip
import json
import os
import random
import shutil
import sys
import uuid
from zoneinfo import ZoneInfo

EPOCH = dt.datetime(2025, 3, 11, 6, 0, 0, tzinfo=dt.timezone.utc)
SITES = ["fra", "ams", "lon", "par", "waw", "sto"]
ZONES = ["UTC", "Europe/Warsaw", "America/Chicago", "Asia/Tokyo"]


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


class Rng:
    """Ids and choices from one seed, so a bundle is the same for the same arguments."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def uuid(self):
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def hex32(self):
        return "%032x" % self.r.getrandbits(128)

    def req(self):
        return "req-" + self.uuid()


class Host:
    def __init__(self, name, role, offset_s, zone):
        self.name = name
        self.role = role
        self.offset_s = offset_s
        self.zone = zone
        self.files = {}  # relative path -> list of (utc seconds, line or callable)
        self.pid = {}

    def emit(self, path, t, line):
        self.files.setdefault(path, []).append((t, line))


class Paths:
    """Where a deployment keeps each log and config, per layout."""

    def __init__(self, layout):
        self.layout = layout

    def log(self, service):
        if self.layout == "kolla":
            return {
                "masakari-engine": "var/log/kolla/masakari/masakari-engine.log",
                "masakari-api": "var/log/kolla/masakari/masakari-api.log",
                "hostmonitor": "var/log/kolla/masakari/masakari-hostmonitor.log",
                "nova-api": "var/log/kolla/nova/nova-api.log",
                "nova-access": "var/log/kolla/nova/nova-api-access.log",
                "nova-conductor": "var/log/kolla/nova/nova-conductor.log",
                "nova-scheduler": "var/log/kolla/nova/nova-scheduler.log",
                "nova-compute": "var/log/kolla/nova/nova-compute.log",
                "cinder-api": "var/log/kolla/cinder/cinder-api.log",
                "keystone": "var/log/kolla/keystone/keystone.log",
            }[service]
        if self.layout == "devstack":
            return {
                "masakari-engine": "logs/screen-masakari-engine.txt",
                "masakari-api": "logs/screen-masakari-api.txt",
                "hostmonitor": "logs/screen-masakari-hostmonitor.txt",
                "nova-api": "logs/screen-n-api.txt",
                "nova-access": "logs/apache/nova-api-access.log",
                "nova-conductor": "logs/screen-n-cond-cell1.txt",
                "nova-scheduler": "logs/screen-n-sch.txt",
                "nova-compute": "logs/screen-n-cpu.txt",
                "cinder-api": "logs/screen-c-api.txt",
                "keystone": "logs/screen-keystone.txt",
            }[service]
        if self.layout == "tripleo":
            return {
                "masakari-engine": "var/log/containers/masakari/masakari-engine.log",
                "masakari-api": "var/log/containers/masakari/masakari-api.log",
                "hostmonitor": "var/log/containers/masakari-monitors/masakari-hostmonitor.log",
                "nova-api": "var/log/containers/nova/nova-api.log",
                "nova-access": "var/log/containers/httpd/nova-api/nova_api_wsgi_access.log",
                "nova-conductor": "var/log/containers/nova/nova-conductor.log",
                "nova-scheduler": "var/log/containers/nova/nova-scheduler.log",
                "nova-compute": "var/log/containers/nova/nova-compute.log",
                "cinder-api": "var/log/containers/cinder/cinder-api.log",
                "keystone": "var/log/containers/keystone/keystone.log",
            }[service]
        return {
            "masakari-engine": "var/log/masakari/masakari-engine.log",
            "masakari-api": "var/log/masakari/masakari-api.log",
            "hostmonitor": "var/log/masakarimonitors/masakari-hostmonitor.log",
            "nova-api": "var/log/nova/nova-api-wsgi.log",
            "nova-access": "var/log/apache2/nova-api-os-compute_access.log",
            "nova-conductor": "var/log/nova/nova-conductor.log",
            "nova-scheduler": "var/log/nova/nova-scheduler.log",
            "nova-compute": "var/log/nova/nova-compute.log",
            "cinder-api": "var/log/cinder/cinder-api.log",
            "keystone": "var/log/keystone/keystone.log",
        }[service]

    def config(self, service):
        if self.layout == "kolla":
            return {"nova": "etc/kolla/nova-api/nova.conf",
                    "nova-compute": "etc/kolla/nova-compute/nova.conf",
                    "masakari": "etc/kolla/masakari-engine/masakari.conf"}[service]
        if self.layout == "devstack":
            return {"nova": "logs/etc/nova/nova.conf", "nova-compute": "logs/etc/nova/nova-cpu.conf",
                    "masakari": "logs/etc/masakari/masakari.conf"}[service]
        if self.layout == "tripleo":
            base = "var/lib/config-data/puppet-generated"
            return {"nova": base + "/nova/etc/nova/nova.conf",
                    "nova-compute": base + "/nova_libvirt/etc/nova/nova.conf",
                    "masakari": base + "/masakari/etc/masakari/masakari.conf"}[service]
        return {"nova": "etc/nova/nova.conf", "nova-compute": "etc/nova/nova.conf",
                "masakari": "etc/masakari/masakari.conf"}[service]


class Cloud:
    def __init__(self, a):
        self.a = a
        self.rng = Rng(a.seed)
        r = self.rng.r
        self.paths = Paths(a.layout)
        site = r.choice(SITES)
        self.hosts = []
        for i in range(3):
            self.hosts.append(Host("%s-ctrl%02d" % (site, i + 1), "control", 0.0, "UTC"))
        for i in range(a.computes):
            self.hosts.append(Host("%s-comp%02d" % (site, i + 1), "compute", 0.0, "UTC"))
        if a.offsets:
            # Known offsets: a controller a minute and a half ahead, computes a few s off.
            self.hosts[1].offset_s = 95.0
            for h in self.hosts[3:]:
                h.offset_s = r.choice([0.0, 0.0, -3.0, 2.5, 7.0])
        if a.zones:
            for h in self.hosts:
                h.zone = r.choice(ZONES)
        self.controllers = self.hosts[:3]
        self.computes = self.hosts[3:]
        # masakari runs on ctrl01 (engine) and ctrl02 (api); nova-api on all three.
        self.engine = self.controllers[0]
        self.masakari_api = self.controllers[1]
        self.admin_user, self.admin_project = self.rng.hex32(), self.rng.hex32()
        self.nova_user, self.service_project = self.rng.hex32(), self.rng.hex32()
        self.truth = []
        self.instances = {h.name: [] for h in self.computes}
        self.service_ids = {h.name: self.rng.uuid() for h in self.computes}
        for h in self.computes:
            for _ in range(r.randint(a.instances // 2, a.instances)):
                self.instances[h.name].append(self.rng.uuid())
        self.down_time = 60
        self.wait = 10 if a.races else 180
        self.flavor_pid = {}

    # ---- formatting -----------------------------------------------------------------

    def ctx(self, g, local, user="nova", project="-"):
        """An oslo.log context bracket in this cloud's era."""
        if self.a.era == "zed":
            if user == "nova":
                return "[%s %s nova - - - - -]" % (g or "None", local)
            return "[%s %s %s %s - - default default]" % (g or "None", local, user, project)
        if user == "nova":
            return "[%s nova - - - -]" % local
        return "[%s %s %s - default default]" % (local, user, project)

    def pid_of(self, host, service):
        key = (host.name, service)
        if key not in self.flavor_pid:
            self.flavor_pid[key] = self.rng.r.randint(900, 48000)
        return self.flavor_pid[key]

    def oslo(self, host, service, t, level, logger, ctx, message, instance=None):
        inst = "[instance: %s] " % instance if instance else ""
        body = "%s %s %s %s %s%s" % (self.pid_of(host, service), level, logger, ctx, inst, message)
        host.emit(self.paths.log(service), t, ("oslo", body))

    def access(self, host, t, method, uri, status, size, micros):
        host.emit(self.paths.log("nova-access"), t, ("apache", (method, uri, status, size, micros)))

    # ---- the cloud's story ----------------------------------------------------------

    def build(self):
        a, r = self.a, self.rng.r
        kinds = (["race"] * a.races + ["pending"] * a.pending + ["bfv"] * a.bfv
                 + ["healthy"] * a.healthy)
        r.shuffle(kinds)
        failed = r.sample(self.computes, min(len(kinds), len(self.computes) - 2))
        t = 3600.0
        span_end = t
        for kind, host in zip(kinds, failed):
            end = self.recovery(kind, host, t)
            span_end = max(span_end, end)
            # Recoveries overlap: the next host fails before this one is done.
            t += r.uniform(40, 900)
        self.span = max(span_end + 600, t + 600)
        self.ignored(a.ignored)
        self.heartbeats(failed)

    def recovery(self, kind, host, t0):
        """One compute host failure and Masakari's recovery of it; returns its end time."""
        a, r, rng = self.a, self.rng.r, self.rng
        eng = self.engine
        notif = rng.uuid()
        g = rng.req()
        instances = list(self.instances[host.name])
        others = [c for c in self.computes if c is not host]
        # One masakari.conf for the cloud: a short wait races a host that died just
        # before its notification, never one the monitor reported a minute late.
        wait = self.wait
        died = 9.0 if kind == "race" else r.uniform(self.down_time - wait + 5, 150)
        host.died = t0 - died
        t = t0
        # masakari-api takes the monitor's notification.
        api_req = rng.req()
        self.api_line(t - 0.05, api_req)
        eng_g = api_req if a.era == "zed" else None
        first_ctx = self.ctx(None, api_req, self.admin_user, self.admin_project)
        self.oslo(eng, "masakari-engine", t, "INFO", "masakari.engine.manager", first_ctx,
                  "Processing notification %s of type: COMPUTE_HOST" % notif)
        self.oslo(eng, "masakari-engine", t + 0.01, "INFO", "masakari.engine.manager", first_ctx,
                  "Notification type 'COMPUTE_HOST' received for host '%s' has been STOPPED." % rng.uuid())
        truth = {"notification_id": notif, "failed_host": host.name, "instances": instances,
                 "expected": "healthy", "instances_concerned": [],
                 "masakari_api_request_id": api_req, "evacuate_request_ids": {}}
        self.evacuate_ids = truth["evacuate_request_ids"]
        attempt_end, outcome = self.attempt(kind, host, instances, notif, eng_g, t + 0.05, wait, others, first=True)
        if kind == "race":
            truth["expected"] = "evacuate-400-race"
            truth["instances_concerned"] = list(instances)
            # The periodic task runs the flow again after process_unfinished_notifications_interval.
            t2 = attempt_end + r.uniform(120, 240)
            p = rng.req()
            pctx = self.ctx(None, p, "-", "-") if a.era != "zed" else "[None %s - - - - - -]" % p
            self.oslo(eng, "masakari-engine", t2, "INFO", "masakari.engine.manager", pctx,
                      "Processing notification %s of type: COMPUTE_HOST" % notif)
            attempt_end, outcome = self.attempt("healthy", host, instances, notif, p if a.era == "zed" else None,
                                                t2 + 0.05, wait, others, first=False)
        elif kind == "pending":
            truth["expected"] = "pending-after-finished"
            truth["instances_concerned"] = outcome
        elif kind == "bfv":
            truth["expected"] = "bfv-evacuation-delay"
            truth["instances_concerned"] = outcome
        self.truth.append(truth)
        return attempt_end

    def api_line(self, t, req):
        """masakari-api's eventlet access line for a monitor's notification."""
        r = self.rng.r
        self.oslo(self.masakari_api, "masakari-api", t, "INFO", "masakari.wsgi",
                  self.ctx(None, req, self.admin_user, self.admin_project),
                  '10.20.0.%d "POST /v1/notifications HTTP/1.1" status: 202 len: %d time: %.7f'
                  % (r.randint(2, 250), r.randint(600, 700), r.uniform(0.05, 0.3)))

    def nova_call(self, t, g, method, uri, status, user=None):
        """Masakari's call as nova-api logs it on one of the controllers; its request id."""
        r, rng = self.rng.r, self.rng
        api = r.choice(self.controllers)
        n = rng.req()
        user = user or self.nova_user
        took = r.uniform(0.03, 0.2)  # answered before Masakari logs what came back
        if self.a.era == "zed":
            ctx = "[%s %s %s %s - default default]" % (g or "None", n, user, self.service_project)
        else:
            ctx = "[%s %s %s - default default]" % (n, user, self.service_project)
        self.oslo(api, "nova-api", t + took, "INFO", "nova.api.openstack.requestlog", ctx,
                  '127.0.0.1 "%s %s" status: %d len: %d microversion: 2.53 time: %.6f'
                  % (method, uri, status, r.randint(200, 4000), took))
        self.access(api, t, method, uri, status, r.randint(200, 4000), int(took * 1e6))
        return api, n, ctx

    def attempt(self, kind, host, instances, notif, g, t, wait, others, first):
        """One run of the host-failure flow. Returns (end time, instances concerned)."""
        r, rng, eng = self.rng.r, self.rng, self.engine
        concerned = []

        def mctx():
            return self.ctx(g, rng.req())

        c = mctx()
        self.oslo(eng, "masakari-engine", t, "INFO", "masakari.compute.nova", c, "Disable nova-compute on %s" % host.name)
        self.nova_call(t + 0.1, g, "GET", "/v2.1/os-services?binary=nova-compute&host=%s" % host.name, 200)
        self.nova_call(t + 0.3, g, "PUT", "/v2.1/os-services/%s" % self.service_ids[host.name], 200)
        self.oslo(eng, "masakari-engine", t + 0.6, "INFO", "masakari.engine.drivers.taskflow.host_failure", c,
                  "Sleeping %d sec before starting recovery thread until nova recognizes the node down." % wait)
        t += 0.6 + wait
        c = mctx()
        self.oslo(eng, "masakari-engine", t, "INFO", "masakari.compute.nova", c, "Fetch Server list on %s" % host.name)
        self.nova_call(t + 0.05, g, "GET", "/v2.1/servers/detail?all_tenants=True&host=%s" % host.name, 200)
        t += 0.5
        race = kind == "race" and first
        pending = set(r.sample(instances, max(1, len(instances) // 3))) if kind == "pending" else set()
        bfv = set(r.sample(instances, 1)) if kind == "bfv" else set()
        end = t
        failed = []
        # host_failure_recovery_threads = 3: instances go three at a time.
        for i, inst in enumerate(instances):
            start = t + (i // 3) * r.uniform(4, 9) + r.uniform(0, 0.3)
            c = mctx()
            self.oslo(eng, "masakari-engine", start, "INFO", "masakari.compute.nova", c,
                      "Call get server command for instance %s" % inst)
            if inst in pending:
                # Keystone refuses the token: the greenthread dies on stderr, nothing else.
                kr = rng.req()
                ks = self.controllers[2]
                self.oslo(ks, "keystone", start + 0.01, "WARNING", "keystone.server.flask.application",
                          "[%s %s - - - - -]" % ("None", kr) if self.a.era == "zed" else "[%s - - - - -]" % kr,
                          "Authorization failed. The request you have made requires authentication. from 10.20.0.11")
                concerned.append(inst)
                end = max(end, start + 1)
                continue
            self.nova_call(start + 0.02, g, "GET", "/v2.1/servers/%s" % inst, 200)
            self.oslo(eng, "masakari-engine", start + 0.3, "INFO", "masakari.compute.nova", mctx(),
                      "Call get server command for instance %s" % inst)
            self.oslo(eng, "masakari-engine", start + 0.5, "INFO", "masakari.compute.nova", mctx(),
                      "Call lock server command for instance %s" % inst)
            self.nova_call(start + 0.52, g, "POST", "/v2.1/servers/%s/action" % inst, 202)
            ev = start + 0.8
            c = mctx()
            self.oslo(eng, "masakari-engine", ev, "INFO", "masakari.compute.nova", c,
                      "Call evacuate command for instance %s on host None" % inst)
            if race:
                api, n, nctx = self.nova_call(ev + 0.05, g, "POST", "/v2.1/servers/%s/action" % inst, 400)
                self.evacuate_ids.setdefault(inst, []).append(n)
                self.oslo(api, "nova-api", ev + 0.06, "ERROR", "nova.compute.api", nctx,
                          "Instance compute service state on %s expected to be down, but it was up." % host.name)
                self.oslo(api, "nova-api", ev + 0.07, "INFO", "nova.api.openstack.wsgi", nctx,
                          "HTTP exception thrown: Compute service of %s is still in use." % host.name)
                text = ("Invalid input received: Compute service of %s is still in use. (HTTP 400) (Request-ID: %s)"
                        % (host.name, n))
                self.oslo(eng, "masakari-engine", ev + 0.3, "WARNING", "masakari.engine.drivers.taskflow.host_failure",
                          mctx(), "%s: masakari.exception.InvalidInput: %s" % (text, text))
                self.oslo(eng, "masakari-engine", ev + 0.5, "INFO", "masakari.compute.nova", mctx(),
                          "Call unlock server command for instance %s" % inst)
                failed.append(inst)
                end = max(end, ev + 0.6)
                continue
            api, n, nctx = self.nova_call(ev + 0.05, g, "POST", "/v2.1/servers/%s/action" % inst, 200)
            self.evacuate_ids.setdefault(inst, []).append(n)
            dest = r.choice([o for o in others if not hasattr(o, "died")] or others)
            slow = inst in bfv
            rebuilt = ev + (r.uniform(600, 1100) if slow else r.uniform(3, 12))
            dctx = nctx
            self.oslo(dest, "nova-compute", ev + 0.6, "INFO", "nova.compute.manager", dctx, "Evacuating instance", inst)
            disk = "disk on volume, evacuating using existing volume" if slow or r.random() < 0.3 else \
                "disk on shared storage, evacuating using existing disk"
            self.oslo(dest, "nova-compute", ev + 0.8, "INFO", "nova.compute.manager", dctx, disk, inst)
            if slow:
                concerned.append(inst)
                vol = rng.uuid()
                cin = self.controllers[2]
                for k in range(int((rebuilt - ev) // 120)):
                    self.oslo(cin, "cinder-api", ev + 60 + k * 120, "ERROR", "cinder.api.v3.attachments",
                              self.ctx(None, rng.req(), self.nova_user, self.service_project),
                              "Unable to update attachment (Invalid volume: Volume %s status must be available or "
                              "downloading to reserve, but the current status is in-use.)." % vol)
            self.oslo(dest, "nova-compute", rebuilt, "INFO", "nova.virt.libvirt.driver", "[-]",
                      "Instance spawned successfully.", inst)
            # Masakari polls the server every second until it is ACTIVE again.
            tp = ev + 1.0
            while tp < rebuilt + 1.0:
                self.oslo(eng, "masakari-engine", tp, "INFO", "masakari.compute.nova", mctx(),
                          "Call get server command for instance %s" % inst)
                tp += 1.0 if not slow else 5.0
            self.oslo(eng, "masakari-engine", tp + 0.2, "INFO", "masakari.compute.nova", mctx(),
                      "Call unlock server command for instance %s" % inst)
            end = max(end, tp + 0.3)
        t = end + 0.2
        c = mctx()
        if failed:
            fl = ",".join(failed)
            msg = "Failed to evacuate instances '%s' from host '%s'" % (fl, host.name)
            self.oslo(eng, "masakari-engine", t, "WARNING", "masakari.engine.drivers.taskflow.driver", c,
                      "Task 'EvacuateInstancesTask' (%s) transitioned into state 'FAILURE' from state 'RUNNING'\n"
                      "2 predecessors (most recent first):\n"
                      "  Atom 'PrepareHAEnabledInstancesTask' {'intention': 'EXECUTE', 'state': 'SUCCESS'}\n"
                      "  |__Atom 'DisableComputeServiceTask' {'intention': 'EXECUTE', 'state': 'SUCCESS'}"
                      ": masakari.exception.HostRecoveryFailureException: %s" % (rng.uuid(), msg))
            self.oslo(eng, "masakari-engine", t + 0.1, "ERROR", "masakari.engine.manager", c,
                      "Failed to process notification '%s'. Reason: %s: "
                      "masakari.exception.HostRecoveryFailureException: %s" % (notif, msg, msg))
            self.oslo(eng, "masakari-engine", t + 0.2, "INFO", "masakari.engine.manager", c,
                      "Notification %s exits with status: error." % notif)
        else:
            self.oslo(eng, "masakari-engine", t + 0.2, "INFO", "masakari.engine.manager", c,
                      "Notification %s exits with status: finished." % notif)
        return t + 0.3, concerned

    def ignored(self, count):
        """Monitors that send notifications Masakari ignores, all through the day."""
        r, rng = self.rng.r, self.rng
        # The pre-Zed era here is Ussuri/Victoria, whose engine wrote it without the space.
        ignored_as = "ignored as host_status is" if self.a.era == "zed" else "ignored as host_statusis"
        for _ in range(count):
            t = r.uniform(60, self.span - 60)
            n, req = rng.uuid(), rng.req()
            ctx = self.ctx(None, req, self.admin_user, self.admin_project)
            self.api_line(t - 0.05, req)
            self.oslo(self.engine, "masakari-engine", t, "WARNING", "masakari.engine.manager", ctx,
                      "Notification '%s' %s '%s'" % (n, ignored_as, "UNKNOWN"))
            self.oslo(self.engine, "masakari-engine", t + 0.01, "INFO", "masakari.engine.manager", ctx,
                      "Notification %s exits with status: ignored." % n)

    def heartbeats(self, failed):
        """Computes' periodic lines until they die (which is where their logs stop)."""
        for h in self.computes:
            end = getattr(h, "died", self.span)
            t = 5.0
            while t < end:
                self.oslo(h, "nova-compute", t, "DEBUG" if self.a.debug else "INFO",
                          "nova.compute.resource_tracker", "[None %s - - - - - -]" % self.rng.req(),
                          "Final resource view: name=%s phys_ram=386048MB used_ram=%dMB phys_disk=1787GB "
                          "used_disk=%dGB total_vcpus=64 used_vcpus=%d pci_stats=[]"
                          % (h.name, self.rng.r.randint(2048, 300000), self.rng.r.randint(20, 900),
                             self.rng.r.randint(1, 60)))
                t += 60.0

    # ---- noise --------------------------------------------------------------------

    def noise_lines(self, host, path, budget):
        """DEBUG chatter of the services, as many as `budget` bytes, spread over the day."""
        r, rng = self.rng.r, self.rng
        service = [s for s in ("nova-api", "nova-compute", "nova-conductor", "nova-scheduler", "cinder-api",
                               "masakari-engine", "keystone") if self.paths.log(s) == path]
        if not service:
            return []
        service = service[0]
        level = "DEBUG" if self.a.debug else "INFO"
        out, size = [], 0
        templates = {
            "nova-api": ("nova.api.openstack.requestlog",
                         '10.20.%d.%d "GET /v2.1/servers/%s" status: 200 len: %d microversion: 2.79 time: 0.%06d'),
            "nova-compute": ("oslo_service.periodic_task",
                             "Running periodic task ComputeManager._poll_%s run_periodic_tasks "
                             "/usr/lib/python3/dist-packages/oslo_service/periodic_task.py:210"),
            "nova-conductor": ("oslo_concurrency.lockutils",
                               'Lock "%s" acquired by "nova.context.set_target_cell.<locals>.get_or_set_cached_'
                               'cell_and_set_connections" :: waited 0.000s inner '
                               "/usr/lib/python3/dist-packages/oslo_concurrency/lockutils.py:407"),
            "nova-scheduler": ("nova.scheduler.host_manager",
                               "Received an update from an unknown host '%s'. Re-created its InstanceList."),
            "cinder-api": ("cinder.api.openstack.wsgi", "GET http://10.20.0.10:8776/v3/%s/volumes/detail"),
            "masakari-engine": ("masakari.utils", "Acquiring lock: masakari-%s on resource: %s"),
            "keystone": ("keystone.server.flask.request_processing.req_logging",
                         "REQUEST_METHOD: `GET` PATH_INFO: `/v3/auth/tokens` %s"),
        }
        logger, fmt = templates[service]
        n = 0
        while size < budget:
            t = r.uniform(1, self.span)
            if service == "nova-api":
                msg = fmt % (r.randint(0, 9), r.randint(2, 250), rng.uuid(), r.randint(300, 9000), r.randint(0, 999999))
                lvl = "INFO"
            elif service == "nova-compute":
                if t > getattr(host, "died", self.span):
                    n += 1
                    if n > 100000:
                        break
                    continue
                msg = fmt % r.choice(["rebooting_instances", "rescued_instances", "unconfirmed_resizes",
                                      "volume_usage", "shelved_instances"])
                lvl = level
            elif service == "nova-conductor":
                msg = fmt % rng.uuid()
                lvl = level
            elif service == "nova-scheduler":
                msg = fmt % r.choice(self.computes).name
                lvl = "INFO"
            elif service == "cinder-api":
                msg = fmt % self.service_project
                lvl = "INFO"
            elif service == "masakari-engine":
                u = rng.uuid()
                msg = fmt % (u, u)
                lvl = "DEBUG"
            else:
                msg = fmt % "HTTP_X_AUTH_TOKEN: ***"
                lvl = "DEBUG"
            ctx = "[None %s - - - - - -]" % rng.req() if self.a.era == "zed" else "[%s - - - - -]" % rng.req()
            body = "%d %s %s %s %s" % (self.pid_of(host, service), lvl, logger, ctx, msg)
            out.append((t, ("oslo", body)))
            size += len(body) + 24
        return out

    # ---- writing --------------------------------------------------------------------

    def stamp(self, host, t, kind):
        when = EPOCH + dt.timedelta(seconds=t + host.offset_s)
        local = when.astimezone(ZoneInfo(host.zone))
        if kind == "apache":
            return local.strftime("%d/%b/%Y:%H:%M:%S %z")
        form = self.oslo_time_of(host)
        if form == "isotime":
            # oslo.log's %(isotime)s: local time, microseconds and the offset.
            return local.isoformat(timespec="microseconds")
        sep = "T" if form == "asctime-t" else " "
        return local.strftime("%Y-%m-%d" + sep + "%H:%M:%S.") + "%03d" % (local.microsecond // 1000)

    def oslo_time_of(self, host):
        """The time field a host's oslo.log format uses: --oslo-time, or with `mixed`
        each host its own (the default asctime, a `T` log_date_format, or isotime)."""
        if self.a.oslo_time != "mixed":
            return self.a.oslo_time
        forms = ["asctime", "asctime-t", "isotime"]
        return forms[sum(host.name.encode()) % len(forms)]

    def render(self, host, t, item, path=""):
        kind, body = item
        if kind == "oslo" and self.paths.layout == "devstack":
            # DevStack's format leaves the time and the pid to the journal, whose
            # `short-precise` time has microseconds and no year.
            local = (EPOCH + dt.timedelta(seconds=t + host.offset_s)).astimezone(ZoneInfo(host.zone))
            unit = os.path.basename(path)[len("screen-"):-len(".txt")]
            pid, rest = body.split(" ", 1)
            prefix = "%s %s devstack@%s.service[%s]: " % (local.strftime("%b %d %H:%M:%S.%f"), host.name, unit, pid)
            return "\n".join(prefix + x for x in rest.split("\n"))
        if kind == "oslo":
            lines = body.split("\n")
            return self.stamp(host, t, "oslo") + " " + lines[0] + "".join("\n" + x for x in lines[1:])
        method, uri, status, size, micros = body
        if self.paths.layout == "kolla":
            return '10.20.0.%d - - [%s] "%s %s HTTP/1.1" %d %d %d "-" "python-novaclient"' % (
                2 + micros % 200, self.stamp(host, t, "apache"), method, uri, status, size, micros)
        return '127.0.0.1 - - [%s] "%s %s HTTP/1.1" %d %d "-" "python-novaclient"' % (
            self.stamp(host, t, "apache"), method, uri, status, size)

    def root_of(self, host):
        if self.paths.layout == "sos":
            return "sosreport-%s-%s-2025-03-11-%s" % (host.name, self.a.case, "%06x" % self.rng.r.getrandbits(24))
        return host.name

    def write(self, out):
        a = self.a
        total = parse_size(a.size)
        event_bytes = sum(len(item[1]) + 24 if isinstance(item[1], str) else 120
                          for h in self.hosts for f in h.files.values() for _, item in f)
        noise_total = max(0, total - event_bytes)
        targets = []
        for h in self.hosts:
            for svc in (["nova-api", "nova-conductor", "nova-scheduler", "cinder-api", "keystone"]
                        if h.role == "control" else ["nova-compute"]):
                targets.append((h, self.paths.log(svc)))
        targets.append((self.engine, self.paths.log("masakari-engine")))
        share = noise_total // max(1, len(targets))
        for h, path in targets:
            h.files.setdefault(path, []).extend(self.noise_lines(h, path, share))
        hosts_truth = []
        for h in self.hosts:
            root = os.path.join(out, self.root_of(h))
            hosts_truth.append({"name": h.name, "aliases": [], "clock_offset_s": h.offset_s})
            self.write_host_files(h, root)
            journal = []
            for path, items in h.files.items():
                items.sort(key=lambda x: x[0])
                # Apache writes its access log itself, journal or not.
                if self.journal_only(h) and "apache2" not in path:
                    journal.append((path, items))
                    continue
                lines = [self.render(h, t, item, path) for t, item in items]
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                if a.rotate and len(lines) > 30 and "masakari-engine" not in path:
                    self.rotated(full, lines)
                else:
                    with open(full, "w") as f:
                        f.write("\n".join(lines) + "\n")
                if self.paths.layout == "devstack":
                    # Saved when the job ended: the year of its journal lines.
                    end = (EPOCH + dt.timedelta(seconds=items[-1][0] + 60)).timestamp()
                    os.utime(full, (end, end))
            if journal:
                self.write_journal(h, root, journal)
        with open(os.path.join(out, "ground_truth.json"), "w") as f:
            json.dump({"generator": "gen_cloud.py", "seed": a.seed, "recoveries": self.truth, "hosts": hosts_truth},
                      f, indent=1)

    def journal_only(self, host):
        """--journal: every third host (by name) runs its services under systemd without a
        log file, so sos has their lines only in the whole journal."""
        return self.a.journal and self.paths.layout == "sos" and sum(host.name.encode()) % 3 == 1

    def write_journal(self, h, root, files):
        """The host's service logs as sos's `journalctl --no-pager` shows them: every line
        a journal entry (systemd splits a service's output at newlines) prefixed with the
        host's local time, its name and the service's identifier and pid, in time order."""
        entries = []
        for path, items in files:
            service = os.path.basename(path).split(".log")[0]
            if service == "nova-api-wsgi":
                service = "nova-api"
            for n, (t, item) in enumerate(items):
                local = (EPOCH + dt.timedelta(seconds=t + h.offset_s)).astimezone(ZoneInfo(h.zone))
                prefix = "%s %s %s[%d]: " % (local.strftime("%b %d %H:%M:%S"), h.name, service,
                                            self.pid_of(h, service))
                for line in self.render(h, t, item).split("\n"):
                    entries.append((t, path, n, prefix + line))
        entries.sort(key=lambda e: e[:3])
        full = os.path.join(root, "sos_commands", "logs", "journalctl_--no-pager")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("".join(e[3] + "\n" for e in entries))

    def rotated(self, full, lines):
        """logrotate's view: the oldest third gzipped as .2.gz, the next as .1, the rest live."""
        a, b = len(lines) // 3, 2 * len(lines) // 3
        with gzip.open(full + ".2.gz", "wt", compresslevel=1) as f:
            f.write("\n".join(lines[:a]) + "\n")
        with open(full + ".1", "w") as f:
            f.write("\n".join(lines[a:b]) + "\n")
        with open(full, "w") as f:
            f.write("\n".join(lines[b:]) + "\n")

    def write_host_files(self, h, root):
        os.makedirs(os.path.join(root, "etc"), exist_ok=True)
        with open(os.path.join(root, "etc", "hostname"), "w") as f:
            f.write(h.name + "\n")
        with open(os.path.join(root, "etc", "timezone"), "w") as f:
            f.write(h.zone + "\n")
        if self.paths.layout == "sos":
            with open(os.path.join(root, "hostname"), "w") as f:
                f.write(h.name + "\n")
        if h.role == "control":
            self.conf(root, self.paths.config("nova"),
                      "[DEFAULT]\nservice_down_time = %d\nreport_interval = 10\n" % self.down_time)
        else:
            self.conf(root, self.paths.config("nova-compute"),
                      "[DEFAULT]\nhost = %s\nreport_interval = 10\n" % h.name)
        if h is self.engine:
            wait = self.wait
            self.conf(root, self.paths.config("masakari"),
                      "[DEFAULT]\nwait_period_after_service_update = %d\nwait_period_after_evacuation = %d\n"
                      "[host_failure]\nevacuate_all_instances = True\n" % (wait, 1200 if self.a.bfv else 90))

    @staticmethod
    def conf(root, path, text):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--size", default="20M")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--layout", choices=["plain", "sos", "kolla", "tripleo", "devstack"], default="sos")
    ap.add_argument("--era", choices=["pre-zed", "zed"], default="zed")
    ap.add_argument("--computes", type=int, default=12)
    ap.add_argument("--instances", type=int, default=8, help="most instances per compute")
    ap.add_argument("--ignored", type=int, default=2000)
    ap.add_argument("--races", type=int, default=2)
    ap.add_argument("--pending", type=int, default=1)
    ap.add_argument("--bfv", type=int, default=1)
    ap.add_argument("--healthy", type=int, default=3)
    ap.add_argument("--offsets", action="store_true")
    ap.add_argument("--zones", action="store_true")
    ap.add_argument("--rotate", action="store_true")
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--journal", action="store_true",
                    help="sos layout: every third host keeps its services' lines only in the whole journal")
    ap.add_argument("--oslo-time", choices=["asctime", "asctime-t", "isotime", "mixed"], default="asctime",
                    help="oslo.log's time field: %%(asctime)s (default), with a T log_date_format, "
                         "%%(isotime)s (local time and offset), or mixed: each host one of these")
    ap.add_argument("--case", default="acme-case-00412345")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.out):
        if not a.force:
            sys.exit("gen_cloud: %s exists (--force to replace it)" % a.out)
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    cloud = Cloud(a)
    cloud.build()
    cloud.write(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
