"""Start and stop the real services of one scenario: Keystone, RabbitMQ, Nova (one
process, nova_cloud.py), masakari-api and masakari-engine. Everything on 127.0.0.1.

Every process started here is recorded in Stack.procs and ended by Stack.stop() (its
whole process group), whatever happened.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CONTROLLER = "ctl1"
PASSWORD = "realstack-secret"


def wait_http(url, what, timeout=120, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("%s exited with %s while starting" % (what, proc.returncode))
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status < 500:
                    return
        except urllib.error.HTTPError as e:
            if e.code < 500:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError("%s did not answer %s within %d s" % (what, url, timeout))


def write_ini(path, sections):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for name, opts in sections.items():
            f.write("[%s]\n" % name)
            for k, v in opts.items():
                f.write("%s = %s\n" % (k, v))
            f.write("\n")


class Stack:
    def __init__(self, work, bundle, venv, base_port, masakari_venv=None):
        self.work = work
        self.bundle = bundle
        self.venv = venv
        self.masakari_venv = masakari_venv or venv
        self.procs = []
        self.port = {
            "keystone": base_port,
            "nova": base_port + 1,
            "masakari": base_port + 2,
            "rabbit": base_port + 3,
            "control": base_port + 4,
            "epmd": base_port + 5,
            "dist": base_port + 6,
            "masakari2": base_port + 7,  # a second controller's masakari-api
        }
        self.auth_url = "http://127.0.0.1:%d/v3" % self.port["keystone"]
        os.makedirs(work, exist_ok=True)

    # -- processes -------------------------------------------------------------------
    def spawn(self, name, argv, env=None, log=None):
        out = open(os.path.join(self.work, name + ".out"), "w") if log is None else log
        e = dict(os.environ)
        e["TZ"] = "UTC"
        e.update(env or {})
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=e,
                             start_new_session=True, cwd=self.work)
        self.procs.append((name, p))
        return p

    def py(self, venv):
        return os.path.join(venv, "bin", "python")

    def stop(self, only=None):
        """Ends the processes started here (all, or those named in only), newest first."""
        # "masakari-api@ctl2" is one of the "masakari-api"s.
        chosen = [(n, p) for n, p in self.procs
                  if only is None or n in only or n.split("@")[0] in only]
        for name, p in reversed(chosen):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 15
        for name, p in reversed(chosen):
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        self.procs = [(n, p) for n, p in self.procs if (n, p) not in chosen]

    # -- Keystone --------------------------------------------------------------------
    def start_keystone(self, token_expiration=None):
        """token_expiration: Keystone's [token] expiration in seconds (its default: 3600)."""
        d = os.path.join(self.work, "keystone")
        os.makedirs(d, exist_ok=True)
        conf = os.path.join(d, "keystone.conf")
        log = os.path.join(self.bundle, CONTROLLER, "var/log/keystone/keystone.log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        write_ini(conf, {
            "DEFAULT": {"log_file": log, "use_stderr": "false"},
            "database": {"connection": "sqlite:///%s/keystone.sqlite" % d},
            "token": dict({"provider": "fernet"},
                          **({"expiration": str(token_expiration)} if token_expiration else {})),
            "fernet_tokens": {"key_repository": os.path.join(d, "fernet")},
            "credential": {"key_repository": os.path.join(d, "credential")},
        })
        env = {"OS_KEYSTONE_CONFIG_FILES": conf}
        km = os.path.join(self.venv, "bin", "keystone-manage")
        for args in (["db_sync"],
                     ["fernet_setup", "--keystone-user", "root", "--keystone-group", "root"],
                     ["credential_setup", "--keystone-user", "root", "--keystone-group", "root"],
                     ["bootstrap", "--bootstrap-password", PASSWORD,
                      "--bootstrap-admin-url", self.auth_url,
                      "--bootstrap-public-url", self.auth_url,
                      "--bootstrap-internal-url", self.auth_url,
                      "--bootstrap-region-id", "RegionOne"]):
            subprocess.run([km, "--config-file", conf] + args, check=True, cwd=d,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, TZ="UTC", **env))
        p = self.spawn("keystone", [self.py(self.venv), os.path.join(HERE, "keystone_serve.py"),
                                    str(self.port["keystone"])], env=env)
        wait_http(self.auth_url, "keystone", timeout=300, proc=p)
        self.keystone_setup()

    def keystone_setup(self):
        """Users for nova and masakari (admin in project service), a demo project, and the
        catalog entries Masakari looks up (compute:nova:publicURL)."""
        import openstack

        c = openstack.connect(auth_url=self.auth_url, username="admin", password=PASSWORD,
                              project_name="admin", user_domain_id="default",
                              project_domain_id="default", region_name="RegionOne")
        admin_role = c.identity.find_role("admin")
        service = c.identity.create_project(name="service", domain_id="default")
        for user in ("nova", "masakari", "placement", "neutron", "glance", "cinder"):
            u = c.identity.create_user(name=user, password=PASSWORD, domain_id="default")
            c.identity.assign_project_role_to_user(service, u, admin_role)
        for name, typ, port, path in (("nova", "compute", self.port["nova"], "/v2.1"),
                                      ("masakari", "instance-ha", self.port["masakari"], "/v1/%(tenant_id)s")):
            s = c.identity.create_service(name=name, type=typ)
            for iface in ("public", "internal", "admin"):
                c.identity.create_endpoint(service_id=s.id, interface=iface,
                                           url="http://127.0.0.1:%d%s" % (port, path),
                                           region_id="RegionOne")
        c.close()

    def authtoken(self, user):
        return {
            "www_authenticate_uri": self.auth_url,
            "auth_url": self.auth_url,
            "auth_type": "password",
            "username": user,
            "password": PASSWORD,
            "project_name": "service",
            "user_domain_name": "Default",
            "project_domain_name": "Default",
            "service_token_roles_required": "true",
        }

    # -- RabbitMQ --------------------------------------------------------------------
    def start_rabbit(self):
        d = os.path.join(self.work, "rabbit")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        with open(os.path.join(d, "enabled_plugins"), "w") as f:
            f.write("[].\n")
        with open(os.path.join(d, "rabbitmq.conf"), "w") as f:
            f.write("loopback_users = none\n")
        self.rabbit_env = {
            "HOME": d,
            "RABBITMQ_NODENAME": "realstack%d@localhost" % self.port["rabbit"],
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port["rabbit"]),
            "ERL_EPMD_PORT": str(self.port["epmd"]),
            "RABBITMQ_DIST_PORT": str(self.port["dist"]),
            "RABBITMQ_MNESIA_BASE": os.path.join(d, "mnesia"),
            "RABBITMQ_LOG_BASE": os.path.join(d, "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": os.path.join(d, "enabled_plugins"),
            "RABBITMQ_CONFIG_FILE": os.path.join(d, "rabbitmq"),
            "RABBITMQ_PID_FILE": os.path.join(d, "pid"),
        }
        for sub in ("mnesia", "log"):
            os.makedirs(os.path.join(d, sub))
        # /usr/sbin/rabbitmq-server switches to the rabbitmq user, who cannot write here.
        server = "/usr/lib/rabbitmq/bin/rabbitmq-server"
        if not os.path.exists(server):
            raise RuntimeError("rabbitmq-server is not installed (apt-get install rabbitmq-server)")
        self.spawn("rabbitmq", [server], env=self.rabbit_env)
        ctl = os.path.join(os.path.dirname(server), "rabbitmqctl")
        if not os.path.exists(ctl):
            ctl = shutil.which("rabbitmqctl")
        e = dict(os.environ, **self.rabbit_env)
        # await_startup fails at once while the node is not reachable yet: ask again.
        deadline = time.time() + 120
        while True:
            r = subprocess.run([ctl, "-n", self.rabbit_env["RABBITMQ_NODENAME"], "await_startup",
                                "--timeout", "30"], env=e, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                break
            if time.time() > deadline:
                raise RuntimeError("rabbitmq did not start (see %s/rabbitmq.out)" % self.work)
            time.sleep(2)
        self.rabbit_ctl = ctl
        self.transport_url = "rabbit://guest:guest@127.0.0.1:%d/" % self.port["rabbit"]

    def stop_rabbit(self):
        """rabbitmqctl stop ends the node; epmd was started by it on our own port."""
        if getattr(self, "rabbit_ctl", None):
            e = dict(os.environ, **self.rabbit_env)
            try:
                subprocess.run([self.rabbit_ctl, "-n", self.rabbit_env["RABBITMQ_NODENAME"], "stop"],
                               env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=60)
            except subprocess.TimeoutExpired:
                # A loaded machine: stop() ends the node's process group instead.
                log("rabbitmqctl stop took more than 60 s; the node is killed")
            subprocess.run(["epmd", "-port", self.port["epmd"].__str__(), "-kill"], env=e,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # -- Nova --------------------------------------------------------------------------
    def nova_conf(self, default):
        path = os.path.join(self.bundle, CONTROLLER, "etc/nova/nova.conf")
        write_ini(path, {
            "DEFAULT": dict({
                "host": CONTROLLER,
                "osapi_compute_listen": "127.0.0.1",
                "osapi_compute_listen_port": str(self.port["nova"]),
                "report_interval": "10",
                "long_rpc_timeout": "60",
                "rpc_response_timeout": "60",
                "compute_driver": "fake.MediumFakeDriver",
            }, **default),
            "keystone_authtoken": self.authtoken("nova"),
        })
        return path

    def start_nova(self, default, computes):
        conf = self.nova_conf(default)
        paste = os.path.join(self.work, "nova-api-paste.ini")
        src = os.path.join(self.venv, "etc/nova/api-paste.ini")
        with open(src) as f:
            text = f.read()
        text = text.replace(
            "paste.filter_factory = keystonemiddleware.auth_token:filter_factory",
            "paste.filter_factory = keystonemiddleware.auth_token:filter_factory\n"
            "oslo_config_project = nova\noslo_config_file = %s" % conf)
        with open(paste, "w") as f:
            f.write(text)
        self.nova = self.spawn("nova", [self.py(self.venv), os.path.join(HERE, "nova_cloud.py"),
                                        conf, paste, self.bundle, str(self.port["control"])]
                               + list(computes), env={"PYTHONPATH": HERE})
        ctl = "http://127.0.0.1:%d/ready" % self.port["control"]
        wait_http(ctl, "nova", timeout=300, proc=self.nova)
        wait_http("http://127.0.0.1:%d/" % self.port["nova"], "nova-api", timeout=300, proc=self.nova)

    def crash(self, host):
        req = urllib.request.Request("http://127.0.0.1:%d/crash/%s" % (self.port["control"], host),
                                     method="POST", data=b"")
        with urllib.request.urlopen(req, timeout=30) as r:
            return float(r.read().decode())

    def fault_get503(self, server, n=1):
        req = urllib.request.Request("http://127.0.0.1:%d/fault/get503/%s/%d"
                                     % (self.port["control"], server, n), method="POST", data=b"")
        urllib.request.urlopen(req, timeout=30).read()

    def slow_spawn(self, seconds):
        req = urllib.request.Request("http://127.0.0.1:%d/fault/slowspawn/%s"
                                     % (self.port["control"], seconds), method="POST", data=b"")
        urllib.request.urlopen(req, timeout=30).read()

    def stop_nova(self):
        req = urllib.request.Request("http://127.0.0.1:%d/stop" % self.port["control"],
                                     method="POST", data=b"")
        try:
            urllib.request.urlopen(req, timeout=10).read()
            self.nova.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            pass

    # -- Masakari ----------------------------------------------------------------------
    def start_masakari(self, default, engine=True, controller=CONTROLLER, hold_dir=None,
                       shared=False):
        """masakari-api and (with engine) masakari-engine of one controller, logging under
        the bundle's <controller>/var/log/masakari/. The first controller's call creates the
        database; a second controller (another api_port) shares it, as controllers behind
        one VIP share their database. hold_dir: masakari-api runs through
        masakari_api_hold.py (the duplicate scenario's timing, see there). shared: the
        databases will serve several controllers' processes: sqlite in WAL mode, so that
        one engine's write does not fail another's with `database is locked` (a shared
        MySQL serves them all; sqlite's default journal does not)."""
        d = os.path.join(self.work, "masakari")
        os.makedirs(d, exist_ok=True)
        first = controller == CONTROLLER
        api_port = self.port["masakari"] if first else self.port["masakari2"]
        path = os.path.join(self.bundle, controller, "etc/masakari/masakari.conf")
        logdir = os.path.join(self.bundle, controller, "var/log/masakari")
        os.makedirs(logdir, exist_ok=True)
        write_ini(path, {
            "DEFAULT": dict({
                "host": controller,
                "transport_url": self.transport_url,
                "masakari_api_listen": "127.0.0.1",
                "masakari_api_listen_port": str(api_port),
                "masakari_api_workers": "1",
                "auth_strategy": "keystone",
                "os_privileged_user_name": "nova",
                "os_privileged_user_password": PASSWORD,
                "os_privileged_user_tenant": "service",
                "os_privileged_user_auth_url": self.auth_url,
                "os_user_domain_name": "Default",
                "os_project_domain_name": "Default",
                "os_region_name": "RegionOne",
                "nova_catalog_admin_info": "compute:nova:publicURL",
                "use_stderr": "false",
            }, **default),
            "wsgi": {"api_paste_config": os.path.join(self.masakari_venv, "etc/masakari/api-paste.ini")},
            "database": {"connection": "sqlite:///%s/masakari.sqlite" % d},
            "taskflow": {"connection": "sqlite:///%s/taskflow.sqlite" % d},
            "keystone_authtoken": self.authtoken("masakari"),
            "oslo_messaging_notifications": {"driver": "noop"},
        })
        bin_ = os.path.join(self.masakari_venv, "bin")
        if first:
            subprocess.run([os.path.join(bin_, "masakari-manage"), "--config-file", path,
                            "db", "sync"], check=True, cwd=d, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=dict(os.environ, TZ="UTC"))
            if shared:
                import sqlite3

                for db in ("masakari.sqlite", "taskflow.sqlite"):
                    c = sqlite3.connect(os.path.join(d, db))
                    c.execute("PRAGMA journal_mode=WAL")
                    c.close()
        suffix = "" if first else "@" + controller
        for svc in ("masakari-engine", "masakari-api"):
            if svc == "masakari-engine" and not engine:
                continue
            argv = [os.path.join(bin_, svc)]
            if svc == "masakari-api" and hold_dir:
                argv = [self.py(self.masakari_venv), os.path.join(HERE, "masakari_api_hold.py"),
                        hold_dir]
            self.spawn(svc + suffix, argv + ["--config-file", path,
                                             "--log-file", os.path.join(logdir, svc + ".log")])
        wait_http("http://127.0.0.1:%d/" % api_port, "masakari-api", timeout=180)
        return "http://127.0.0.1:%d" % api_port

    def list_queues(self, path):
        """`rabbitmqctl list_queues name messages consumers` saved at path, as sos's
        rabbitmq plugin saves its commands; returns {queue: (messages, consumers)}."""
        e = dict(os.environ, **self.rabbit_env)
        r = subprocess.run([self.rabbit_ctl, "-n", self.rabbit_env["RABBITMQ_NODENAME"],
                            "list_queues", "name", "messages", "consumers"], env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=60, check=True)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(r.stdout)
        out = {}
        for line in r.stdout.splitlines():
            cells = line.split("\t")
            if len(cells) == 3 and cells[1].isdigit() and cells[2].isdigit():
                out[cells[0]] = (int(cells[1]), int(cells[2]))
        return out

    def ground_truth(self, truth):
        with open(os.path.join(os.path.dirname(self.bundle.rstrip("/")), "ground_truth.json"), "w") as f:
            json.dump(truth, f, indent=2, sort_keys=True)
            f.write("\n")


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)
