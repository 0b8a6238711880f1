"""A Swift all-in-one on loopback signing its users in through Keystone, and a PostgreSQL
cluster, for the `blobs` scenario. Debian's Swift 2.30 (/usr/bin/swift-*, run by the
system Python, which has Debian's keystonemiddleware): the rings and storage servers as
src/blobs/throwaway_swift.rs makes them, the proxy's pipeline with `authtoken
keystoneauth` instead of tempauth. The proxy's access log goes to a UDP listener here
(Swift logs to syslog), so the scenario sees every request's status and token.

Every process is started through Stack.spawn (stopped by Stack.stop); PostgreSQL is
stopped by stop_postgres.
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from stack import PASSWORD, write_ini

SERVERS = ("account", "container", "object")
RING = "/usr/bin/swift-ring-builder"


def wait_port(port, what, timeout=60, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("%s exited with %s while starting" % (what, proc.returncode))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("%s did not listen on %d within %d s" % (what, port, timeout))


class AccessLog:
    """Swift's syslog lines, received on a UDP port (`log_udp_host`/`log_udp_port`)."""

    def __init__(self, port, path):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.sock.settimeout(0.5)
        self.lines = []
        self.path = path
        self.done = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        with open(self.path, "a") as f:
            while not self.done:
                try:
                    data = self.sock.recv(65536)
                except socket.timeout:
                    continue
                line = data.decode("utf-8", "replace").rstrip("\x00\n")
                self.lines.append((time.time(), line))
                f.write(line + "\n")
                f.flush()

    def stop(self):
        self.done = True
        self.thread.join(2)
        self.sock.close()

    def requests(self, since=0.0):
        """(time, method, path, status, token, user agent) of the proxy's access lines
        since `since`."""
        out = []
        for t, line in list(self.lines):
            if t < since or "proxy-server:" not in line:
                continue
            fields = line.split("proxy-server:", 1)[1].split()
            # client remote datetime method path protocol status referer agent token ...
            if len(fields) < 10 or not fields[6].isdigit():
                continue
            out.append((t, fields[3], fields[4], int(fields[6]), fields[9], fields[8]))
        return out


class SwiftAIO:
    """port: {"proxy", "account", "container", "object", "memcached", "syslog"}."""

    def __init__(self, stack, ports):
        self.stack = stack
        self.port = ports
        self.dir = os.path.join(stack.work, "swift")
        self.url = "http://127.0.0.1:%d" % ports["proxy"]

    def start(self, user="swift", operator_roles="admin, member"):
        if not os.path.exists("/usr/bin/swift-proxy-server") or not os.path.exists("/etc/swift/swift.conf"):
            raise RuntimeError("Swift is not installed (apt-get install swift-proxy swift-object "
                               "swift-container swift-account memcached python3-keystonemiddleware)")
        shutil.rmtree(self.dir, ignore_errors=True)
        etc = os.path.join(self.dir, "etc")
        devices = os.path.join(self.dir, "node")
        os.makedirs(os.path.join(devices, "d1"))
        os.makedirs(etc)
        me = pwd.getpwuid(os.getuid()).pw_name
        self.access = AccessLog(self.port["syslog"], os.path.join(self.stack.work, "swift-proxy.log"))
        common = {"bind_ip": "127.0.0.1", "workers": "0", "user": me, "swift_dir": etc,
                  "log_udp_host": "127.0.0.1", "log_udp_port": str(self.port["syslog"])}
        for server in SERVERS:
            builder = os.path.join(etc, server + ".builder")
            for step in (["create", "6", "1", "0"],
                         ["add", "r1z1-127.0.0.1:%d/d1" % self.port[server], "100"],
                         ["rebalance"]):
                r = subprocess.run([RING, builder] + step, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
                # 1 is a warning (one device is not balanced across zones).
                if r.returncode not in (0, 1):
                    raise RuntimeError("swift-ring-builder %s %s: %s" % (server, step, r.stdout))
            write_ini(os.path.join(etc, server + "-server.conf"), {
                "DEFAULT": dict(common, bind_port=str(self.port[server]), devices=devices,
                                mount_check="false", log_level="WARNING"),
                "pipeline:main": {"pipeline": server + "-server"},
                "app:%s-server" % server: {"use": "egg:swift#" + server},
                "%s-replicator" % server: {}, "%s-updater" % server: {},
                "%s-auditor" % server: {},
            })
        auth_url = self.stack.auth_url
        write_ini(os.path.join(etc, "proxy-server.conf"), {
            "DEFAULT": dict(common, bind_port=str(self.port["proxy"]), log_level="INFO"),
            "pipeline:main": {"pipeline": "catch_errors gatekeeper healthcheck proxy-logging "
                              "cache listing_formats bulk authtoken keystoneauth copy slo dlo "
                              "proxy-logging proxy-server"},
            "app:proxy-server": {"use": "egg:swift#proxy", "account_autocreate": "true"},
            "filter:catch_errors": {"use": "egg:swift#catch_errors"},
            "filter:gatekeeper": {"use": "egg:swift#gatekeeper"},
            "filter:healthcheck": {"use": "egg:swift#healthcheck"},
            # The whole token in the access log: the scenario tells evacdoc's tokens apart.
            "filter:proxy-logging": {"use": "egg:swift#proxy_logging",
                                     "reveal_sensitive_prefix": "4096"},
            "filter:cache": {"use": "egg:swift#memcache",
                             "memcache_servers": "127.0.0.1:%d" % self.port["memcached"]},
            "filter:listing_formats": {"use": "egg:swift#listing_formats"},
            "filter:bulk": {"use": "egg:swift#bulk"},
            "filter:authtoken": {
                "paste.filter_factory": "keystonemiddleware.auth_token:filter_factory",
                "www_authenticate_uri": auth_url,
                "auth_url": auth_url,
                "auth_type": "password",
                "username": user,
                "password": PASSWORD,
                "project_name": "service",
                "user_domain_name": "Default",
                "project_domain_name": "Default",
                "delay_auth_decision": "True",
                # Every token checked with Keystone (a revoked one is refused at once).
                "token_cache_time": "-1",
            },
            "filter:keystoneauth": {"use": "egg:swift#keystoneauth",
                                    "operator_roles": operator_roles},
            "filter:copy": {"use": "egg:swift#copy"},
            "filter:slo": {"use": "egg:swift#slo"},
            "filter:dlo": {"use": "egg:swift#dlo"},
        })
        self.stack.spawn("memcached", ["/usr/bin/memcached", "-l", "127.0.0.1", "-p",
                                       str(self.port["memcached"]), "-U", "0", "-u", me, "-m", "16"])
        procs = []
        for server in SERVERS:
            procs.append(self.stack.spawn("swift-" + server, [
                "/usr/bin/swift-%s-server" % server, os.path.join(etc, server + "-server.conf")]))
        # Debian's Python (keystonemiddleware 10.1.0), not the scenario's venv.
        env = {"PATH": "/usr/bin:/bin", "VIRTUAL_ENV": "", "PYTHONPATH": ""}
        proxy = self.stack.spawn("swift-proxy", ["/usr/bin/swift-proxy-server",
                                                 os.path.join(etc, "proxy-server.conf")], env=env)
        for name, p in zip(SERVERS, procs):
            wait_port(self.port[name], "swift-" + name, proc=p)
        wait_port(self.port["memcached"], "memcached")
        wait_port(self.port["proxy"], "swift-proxy", proc=proxy)

    def stop(self):
        if getattr(self, "access", None):
            self.access.stop()


class Postgres:
    """A throwaway cluster (Debian's initdb/pg_ctl, as the postgres user when root)."""

    def __init__(self, port):
        self.port = port
        self.dir = None

    def run(self, prog, *args):
        argv = [self.bin + "/" + prog] + list(args)
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        subprocess.run(argv, check=True, cwd=self.dir, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)

    def start(self):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = os.path.dirname(found[-1])
        self.dir = tempfile.mkdtemp(prefix="realstack-pg-")
        pw = os.path.join(self.dir, "pwfile")
        with open(pw, "w") as f:
            f.write(PASSWORD)
        os.makedirs(os.path.join(self.dir, "run"))
        if os.getuid() == 0:
            subprocess.run(["chown", "-R", "postgres", self.dir], check=True)
        self.run("initdb", "-D", self.dir + "/data", "-U", "evacdoc", "--pwfile", pw,
                 "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync")
        self.run("pg_ctl", "-D", self.dir + "/data", "-l", self.dir + "/server.log", "-w",
                 "-t", "60", "-o", "-p %d -h 127.0.0.1 -k %s/run -c fsync=off" % (self.port, self.dir),
                 "start")
        self.started = True
        return "postgres://evacdoc:%s@127.0.0.1:%d/postgres" % (PASSWORD, self.port)

    def stop(self):
        if getattr(self, "started", False):
            try:
                self.run("pg_ctl", "-D", self.dir + "/data", "-m", "immediate", "-w", "stop")
            except subprocess.CalledProcessError:
                pass
            self.started = False
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
