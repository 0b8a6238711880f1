"""Recovery flows rendered as Masakari, Nova and the monitors log them (upstream wording)."""

import datetime as _dt

from lib import (NOCTX, ctx_nc, ctx_pre, ctx_zed, ctx_zed_admin, requestlog, sec, wsgi_server)

SITE = "/usr/lib/python3/dist-packages"


class Era:
    """Bracket style and wording of a release.

    zed: oslo.log >= 4.8.0 brackets; maint_line: masakari >= 16.0.0 logs 'Set host %s on
    maintenance.'; ms: masakari major version."""

    def __init__(self, ms, zed=True):
        self.ms = ms
        self.zed = zed
        self.maint_line = ms >= 16

    def api_ctx(self, req, user, proj):
        return ctx_zed(req, user, proj) if self.zed else ctx_pre(req, user, proj)

    def nc_ctx(self, glob, local, user="nova"):
        if self.zed:
            return ctx_nc(glob, local, user)
        # pre-Zed: no global id; the novaclient context's local id and user name
        return "[%s %s - - - -]" % (local, user)

    def admin_ctx(self, req):
        return ctx_zed_admin(req) if self.zed else ctx_pre(req)


def send_notification_lines(mon, utc, hostname, payload, gen_time, logger="masakarimonitors.ha.masakari",
                            ctx=NOCTX):
    ev = ("{'notification': {'type': 'COMPUTE_HOST', 'hostname': '%s', 'generated_time': "
          "datetime.datetime(%d, %d, %d, %d, %d, %d, %d), 'payload': %s}}"
          % (hostname, gen_time.year, gen_time.month, gen_time.day, gen_time.hour,
             gen_time.minute, gen_time.second, gen_time.microsecond, payload))
    mon.add(utc, "INFO", logger, ctx, "Send a notification. %s" % ev)


def notification_response(mon, utc, rng, nid, hostname, payload, gen_time, logger="masakarimonitors.ha.masakari"):
    mon.add(utc, "INFO", logger, NOCTX,
            "Response: openstack.instance_ha.v1.notification.Notification(type=COMPUTE_HOST, "
            "hostname=%s, generated_time=%s, payload=%s, id=%d, notification_uuid=%s, "
            "source_host_uuid=%s, status=new, location=Munch({'cloud': 'envvars', "
            "'region_name': 'RegionOne', 'zone': None, 'project': Munch({'id': '%s', "
            "'name': None, 'domain_id': None, 'domain_name': None})}))"
            % (hostname, gen_time.strftime("%Y-%m-%dT%H:%M:%S.%f"), payload, rng.randint(10, 900), nid,
               rng.uuid(), rng.hex32()))


def api_accept(api, utc, era, req, user, proj, ip, status=202, explanation=None, length=None):
    """masakari-api's lines for POST /v1/notifications (eventlet server logger)."""
    ctx = era.api_ctx(req, user, proj)
    if explanation:
        api.add(utc, "INFO", "masakari.api.openstack.wsgi", ctx, "HTTP exception thrown: %s" % explanation)
    wsgi_server(api, utc + sec(0.05), ctx, ip, "POST", "/v1/notifications", status,
                length or (597 if status == 202 else 231 + len(explanation or "")), 0.0713 + (status % 7) / 100)


def nova_call(napi, utc, era, glob, rng, method, path, status, mv="2.53", user=None, proj=None, secs=0.12,
              explanation=None):
    """One request of masakari's novaclient as nova-api (uWSGI/mod_wsgi requestlog) logs it."""
    local = rng.req()
    u = user or "9c1f0e7d3b2a4c5d8e6f7a8b9c0d1e2f"
    p = proj or "4a5b6c7d8e9f40112233445566778899"
    if era.zed:
        ctx = "[%s %s %s %s - default default]" % (glob, local, u, p)
    else:
        ctx = "[%s %s %s - default default]" % (local, u, p)
    if explanation:
        napi.add(utc, "INFO", "nova.api.openstack.wsgi", ctx, "HTTP exception thrown: %s" % explanation)
    requestlog(napi, utc + sec(0.01), ctx, "10.20.0.15", method, path, status,
               len(explanation or "") + (120 if status < 300 else 180), mv, secs)
    return local


def host_recovery(engine, napi, dest_logs, rng, era, start, nid, req, failed, instances, user, proj,
                  wait=180, evac_secs=25, fail_instance=None, fail_text=None, stuck_instance=None,
                  finish=True, dest_pick=None, conflict=None):
    """A COMPUTE_HOST notification processed by the engine: disable, sleep, list, evacuate
    each instance, poll, unlock. Returns the UTC of the last line.

    fail_instance: that instance's evacuation fails with fail_text (WARNING str(e)); then the
    flow ends with 'Failed to process notification' and status error.
    stuck_instance: that instance gets its first get_server and nothing more (the vmove left
    pending), the notification still 'finished' (pending-after-finished).
    conflict: {instance: explanation} nova answers 409 to that evacuate."""
    G = req
    ctx0 = era.api_ctx(req, user, proj)
    tt = start
    engine.add(tt, "INFO", "masakari.engine.manager", ctx0,
               "Processing notification %s of type: COMPUTE_HOST" % nid)
    if era.maint_line:
        engine.add(tt + sec(0.03), "INFO", "masakari.engine.manager", ctx0, "Set host %s on maintenance." % failed)
    engine.add(tt + sec(0.09), "DEBUG", "masakari.compute.nova", ctx0,
               'Creating a Nova client using "nova" user', func="novaclient %s/masakari/compute/nova.py:96" % SITE)
    loc = rng.req()
    engine.add(tt + sec(0.1), "INFO", "masakari.compute.nova", era.nc_ctx(G, loc), "Disable nova-compute on %s" % failed)
    nova_call(napi, tt + sec(0.3), era, G, rng, "GET", "/v2.1/os-services?binary=nova-compute&host=%s" % failed, 200)
    nova_call(napi, tt + sec(0.5), era, G, rng, "PUT", "/v2.1/os-services/%s" % rng.uuid(), 200)
    engine.add(tt + sec(0.6), "INFO", "masakari.engine.drivers.taskflow.host_failure", era.nc_ctx(G, loc),
               "Sleeping %d sec before starting recovery thread until nova recognizes the node down." % wait)
    tt = tt + sec(wait + 0.7)
    loc = rng.req()
    engine.add(tt, "INFO", "masakari.compute.nova", era.nc_ctx(G, loc), "Fetch Server list on %s" % failed)
    nova_call(napi, tt + sec(0.2), era, G, rng, "GET", "/v2.1/servers/detail?all_tenants=True&host=%s" % failed, 200,
              secs=0.41)
    tt += sec(1.0)
    failed_any = False
    for i, inst in enumerate(instances):
        ti = tt + sec(0.2 * i)
        loc = rng.req()
        engine.add(ti, "INFO", "masakari.compute.nova", era.nc_ctx(G, loc), "Call get server command for instance %s" % inst)
        if inst == stuck_instance:
            continue
        nova_call(napi, ti + sec(0.1), era, G, rng, "GET", "/v2.1/servers/%s" % inst, 200)
        engine.add(ti + sec(0.3), "INFO", "masakari.compute.nova", era.nc_ctx(G, rng.req()),
                   "Call get server command for instance %s" % inst)
        engine.add(ti + sec(0.5), "INFO", "masakari.compute.nova", era.nc_ctx(G, rng.req()),
                   "Call lock server command for instance %s" % inst)
        nova_call(napi, ti + sec(0.6), era, G, rng, "POST", "/v2.1/servers/%s/action" % inst, 202)
        engine.add(ti + sec(0.8), "INFO", "masakari.compute.nova", era.nc_ctx(G, rng.req()),
                   "Call evacuate command for instance %s on host None" % inst)
        if conflict and inst in conflict:
            l = nova_call(napi, ti + sec(1.0), era, G, rng, "POST", "/v2.1/servers/%s/action" % inst, 409,
                          explanation=conflict[inst])
            engine.add(ti + sec(1.2), "WARNING", "masakari.engine.drivers.taskflow.host_failure",
                       era.nc_ctx(G, rng.req()), "%s (HTTP 409) (Request-ID: %s)" % (conflict[inst], l),
                       summary="novaclient.exceptions.Conflict: %s (HTTP 409) (Request-ID: %s)" % (conflict[inst], l))
            failed_any = True
            continue
        nova_call(napi, ti + sec(1.0), era, G, rng, "POST", "/v2.1/servers/%s/action" % inst, 200, secs=0.83)
        if dest_logs is not None:
            dl, dpre = dest_logs[i % len(dest_logs)]
            dctx = "[%s %s 9c1f0e7d3b2a4c5d8e6f7a8b9c0d1e2f 4a5b6c7d8e9f40112233445566778899 - default default]" % (
                G, rng.req()) if era.zed else "[%s 9c1f0e7d3b2a4c5d8e6f7a8b9c0d1e2f 4a5b6c7d8e9f40112233445566778899 - default default]" % rng.req()
            dl.add(ti + sec(3), "INFO", "nova.compute.manager", dctx, "Evacuating instance", instance=inst)
            if inst == fail_instance and dpre:
                dpre(dl, ti + sec(6), dctx, inst)
            elif inst != fail_instance:
                dl.add(ti + sec(4), "INFO", "nova.compute.manager", dctx,
                       "disk on shared storage, evacuating using existing disk", instance=inst)
                spawned(dl, ti + sec(evac_secs - 3), dctx, inst)
                dl.add(ti + sec(evac_secs - 2), "INFO", "nova.compute.manager", dctx,
                       "bringing vm to original state: 'active'", instance=inst)
        for k in range(3):
            engine.add(ti + sec(2 + 5 * k), "INFO", "masakari.compute.nova", era.nc_ctx(G, rng.req()),
                       "Call get server command for instance %s" % inst)
        if inst == fail_instance and fail_text:
            engine.add(ti + sec(evac_secs), "WARNING", "masakari.engine.drivers.taskflow.host_failure",
                       era.nc_ctx(G, rng.req()), fail_text,
                       summary=("masakari.exception.InstanceEvacuateFailed: " + fail_text)
                       if fail_text.startswith("Failed to evacuate") else None)
            failed_any = True
        engine.add(ti + sec(evac_secs + 0.5), "INFO", "masakari.compute.nova", era.nc_ctx(G, rng.req()),
                   "Call unlock server command for instance %s" % inst)
        nova_call(napi, ti + sec(evac_secs + 0.6), era, G, rng, "POST", "/v2.1/servers/%s/action" % inst, 202)
    end = tt + sec(0.2 * len(instances) + evac_secs + 1.5)
    last = era.nc_ctx(G, rng.req())
    if failed_any:
        bad = [i for i in instances if (i == fail_instance and fail_text) or (conflict and i in conflict)]
        msg = "Failed to evacuate instances '%s' from host '%s'" % (",".join(sorted(bad)), failed)
        engine.add(end, "WARNING", "masakari.engine.drivers.taskflow.driver", last,
                   "Task 'masakari.engine.drivers.taskflow.host_failure.EvacuateInstancesTask' (%s) transitioned "
                   "into state 'FAILURE' from state 'RUNNING'" % rng.uuid())
        engine.add(end + sec(0.4), "ERROR", "masakari.engine.manager", last,
                   "Failed to process notification '%s'. Reason: %s" % (nid, msg),
                   summary="masakari.exception.HostRecoveryFailureException: " + msg)
        engine.add(end + sec(0.5), "INFO", "masakari.engine.manager", last,
                   "Notification %s exits with status: error." % nid)
        return end + sec(0.5)
    if finish:
        engine.add(end, "INFO", "masakari.engine.manager", last, "Notification %s exits with status: finished." % nid)
    return end


def spawned(dl, when, dctx, inst):
    """The libvirt driver's end of a successful spawn (build, rebuild, evacuation)."""
    dl.add(when, "INFO", "nova.virt.libvirt.driver", dctx, "Instance spawned successfully.", instance=inst)


def noise_debug(log, start, n, rng, logger, msgs, step=7.0):
    """DEBUG chatter of a service (periodic tasks, lock lines)."""
    tt = start
    for k in range(n):
        m = msgs[k % len(msgs)]
        log.add(tt, "DEBUG", logger, NOCTX if k % 3 else ctx_zed_admin(rng.req()), m)
        tt += sec(step + (k % 5))


NOVA_COMPUTE_DEBUG = [
    "Running periodic task ComputeManager._poll_rebooting_instances",
    "Acquiring lock \"compute_resources\" by \"nova.compute.resource_tracker.ResourceTracker._update_available_resource\"",
    "Lock \"compute_resources\" acquired by \"nova.compute.resource_tracker.ResourceTracker._update_available_resource\" :: waited 0.000s",
    "Auditing locally available compute resources for %s (node: %s)",
    "Running periodic task ComputeManager._heal_instance_info_cache",
]


def compute_noise(log, start, n, rng, host):
    msgs = [m % (host, host) if "%s" in m else m for m in NOVA_COMPUTE_DEBUG]
    noise_debug(log, start, n, rng, "oslo_service.periodic_task", msgs[:1] + msgs[4:])
    noise_debug(log, start + sec(3), n, rng, "oslo_concurrency.lockutils", msgs[1:3])
    noise_debug(log, start + sec(5), n // 2, rng, "nova.compute.resource_tracker", msgs[3:4], step=60)


def scheduler_down_lines(log, start, n, rng, binary, host, last_hb):
    """nova's servicegroup DEBUG 'Seems service … is down' while a compute is dead."""
    for k in range(n):
        tt = start + sec(60 * k)
        el = (tt - last_hb).total_seconds()
        log.add(tt, "DEBUG", "nova.servicegroup.drivers.db", ctx_zed_admin(rng.req()),
                "Seems service %s on host %s is down. Last heartbeat was %s. Elapsed time is %.6f"
                % (binary, host, last_hb.strftime("%Y-%m-%d %H:%M:%S"), el),
                func="is_up %s/nova/servicegroup/drivers/db.py:80" % SITE)


def timedelta(s):
    return _dt.timedelta(seconds=s)
