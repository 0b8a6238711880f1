"""The whole of Nova in one process, the way Nova's functional tests run it.

    python nova_cloud.py NOVA_CONF PASTE_INI BUNDLE_DIR CONTROL_PORT COMPUTE_HOST...

Real nova-api WSGI pipeline (keystonemiddleware against a real Keystone, requestlog) on a
loopback port; conductor, scheduler and one nova-compute per COMPUTE_HOST with the fake
virt driver; Placement and Nova's Glance/Neutron/Cinder stand-ins; sqlite; the
in-process message bus. Each service's oslo.log output goes to its own file under
BUNDLE_DIR/<host>/var/log/nova/. A small control server on CONTROL_PORT (loopback):

    GET /ready          200 once every service runs
    POST /crash/<host>  stops that compute's timers (heartbeat) and RPC servers
    POST /fault/slowspawn/<seconds>
                        the fake hypervisor takes that long to spawn from now on
    POST /stop          ends the process
    POST /fault/get503/<server>/<n>
                        the next n GET /v2.1/servers/<server> answer 503 from a WSGI
                        middleware in front of nova-api (a proxy failing: Nova never sees them)
"""

import os
import sys

# Threading mode: one thread per service task, so each thread can carry its service's tag.
os.environ.setdefault("OS_NOVA_DISABLE_EVENTLET_PATCHING", "1")
# First of all, as Nova's own commands do: in threading mode this forbids eventlet, which
# futurist (imported by nova.test) would otherwise import.
from nova import monkey_patch  # noqa: E402

monkey_patch.patch()

import warnings  # noqa: E402

# Nova's test base turns deprecation warnings into errors (WarningsFixture); a real
# service runs with Python's defaults. Keep those to restore after setUp.
DEFAULT_WARNING_FILTERS = list(warnings.filters)

import configparser  # noqa: E402
import http.server  # noqa: E402
import logging  # noqa: E402
import socketserver  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402
from wsgiref import simple_server  # noqa: E402

from nova import test  # noqa: E402
from nova.tests import fixtures as nova_fixtures  # noqa: E402
from nova.tests.functional import fixtures as func_fixtures  # noqa: E402

import svclog  # noqa: E402

ARGS = sys.argv[1:]
NOVA_CONF, PASTE_INI, BUNDLE, CONTROL_PORT = ARGS[0], ARGS[1], ARGS[2], int(ARGS[3])
COMPUTES = ARGS[4:]
CONTROLLER = "ctl1"


def conf_values(path):
    """nova.conf's options as (group, name, value): the file the bundle carries is the
    file the services run with."""
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read(path)
    out = [(None, k, v) for k, v in cp.defaults().items()]
    for section in cp.sections():
        if section == "keystone_authtoken":
            continue  # read by keystonemiddleware itself (oslo_config_file in paste)
        for k, v in cp.items(section, raw=True):
            if k in cp.defaults() and cp.defaults()[k] == v:
                continue
            out.append((section, k, v))
    return out


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *a):
        pass


class ThreadingWSGIServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


FAULTS = {}  # path -> how many more GETs of it answer 503
FAULTS_LOCK = threading.Lock()


def front(app):
    """The middleware in front of nova-api: answers 503 where a fault is armed."""

    def wrapped(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "GET":
            with FAULTS_LOCK:
                left = FAULTS.get(path, 0)
                if left > 0:
                    FAULTS[path] = left - 1
            if left > 0:
                body = b"<html><body><h1>503 Service Unavailable</h1></body></html>"
                start_response("503 Service Unavailable",
                               [("Content-Type", "text/html"), ("Content-Length", str(len(body)))])
                return [body]
        return app(environ, start_response)

    return wrapped


class Cloud(test.TestCase):
    """A TestCase only to reuse Nova's fixtures; its one 'test' serves until told to stop."""

    REQUIRES_LOCKING = True
    STUB_COMPUTE_ID = True

    def test_serve(self):
        warnings.filters[:] = DEFAULT_WARNING_FILTERS
        from oslo_config import cfg

        conf = cfg.CONF
        for group, name, value in conf_values(NOVA_CONF):
            try:
                conf.set_override(name, value, group)
            except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
                pass
        conf.set_override("api_paste_config", PASTE_INI, "wsgi")
        conf.set_override("debug", False)
        svclog.install(BUNDLE, conf)

        svclog.tag(CONTROLLER, "nova-conductor")
        self.useFixture(func_fixtures.PlacementFixture())
        self.useFixture(nova_fixtures.NeutronFixture(self))
        self.useFixture(nova_fixtures.CinderFixture(self))
        self.useFixture(nova_fixtures.GlanceFixture(self))
        if "cell1" in self.cell_mappings:
            self.flags(transport_url=self.cell_mappings["cell1"].transport_url)
        conductor = self.start_service("conductor", host=CONTROLLER)
        svclog.tag(CONTROLLER, "nova-scheduler")
        scheduler = self.start_service("scheduler", host=CONTROLLER)
        services = {}
        for host in COMPUTES:
            svclog.tag(host, "nova-compute")
            services[host] = self._start_compute(host)
        svclog.tag(CONTROLLER, "nova-api")
        from nova.api.openstack import wsgi_app
        from nova.api import wsgi

        self.useFixture(nova_fixtures.ConfPatcher(host=CONTROLLER))
        app = wsgi.Loader().load_app("osapi_compute")
        wsgi_app._setup_service(CONTROLLER, "osapi_compute")
        api_port = int(conf_port(NOVA_CONF))
        server = simple_server.make_server(
            "127.0.0.1", api_port, front(app), ThreadingWSGIServer, QuietHandler
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        svclog.tag(None, None)
        # The test base set its own filters again during setUp's fixtures.
        warnings.filters[:] = DEFAULT_WARNING_FILTERS
        done = threading.Event()
        serve_control(services, done)
        done.wait()
        server.shutdown()
        for svc in list(services.values()) + [scheduler, conductor]:
            try:
                svc.stop()
            except Exception:
                pass


def conf_port(path):
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.read(path)
    return cp.get("DEFAULT", "osapi_compute_listen_port")


def crash(svc):
    """A crashed compute: no more heartbeats, nobody consuming its RPC topics. Nova's
    database still says it is up until service_down_time has passed."""
    for rpc in (svc.rpcserver, getattr(svc, "rpcserver_alt", None)):
        if rpc is not None:
            rpc.stop()
    svc.tg.stop(graceful=False)


def slow_spawn(seconds):
    """From now on the fake hypervisor takes `seconds` to spawn (a real one takes some):
    an evacuation stays in task_state rebuilding that long."""
    from nova.virt import fake

    original = fake.FakeDriver.spawn

    def spawn(self, *a, **kw):
        time.sleep(seconds)
        return original(self, *a, **kw)

    fake.FakeDriver.spawn = spawn


def serve_control(services, done):
    crashed = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def answer(self, code, text):
            body = text.encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/ready":
                return self.answer(200, "ready")
            self.answer(404, "no such path")

        def do_POST(self):
            if self.path.startswith("/crash/"):
                host = self.path[len("/crash/"):]
                svc = services.get(host)
                if svc is None:
                    return self.answer(404, "no compute %s" % host)
                if host not in crashed:
                    crashed[host] = time.time()
                    crash(svc)
                return self.answer(200, "%.6f" % crashed[host])
            if self.path.startswith("/fault/get503/"):
                server, n = self.path[len("/fault/get503/"):].split("/")
                with FAULTS_LOCK:
                    FAULTS["/v2.1/servers/" + server] = int(n)
                return self.answer(200, "armed")
            if self.path.startswith("/fault/slowspawn/"):
                slow_spawn(float(self.path[len("/fault/slowspawn/"):]))
                return self.answer(200, "armed")
            if self.path == "/stop":
                self.answer(200, "stopping")
                done.set()
                return
            self.answer(404, "no such path")

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", CONTROL_PORT), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()


if __name__ == "__main__":
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(Cloud("test_serve"))
    sys.exit(0 if result.wasSuccessful() else 1)
