import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

# rebuild-rpc-mismatch (class 10) and its look-alike: Ubuntu Jammy sosreports mid-upgrade Zed -> 2023.1.
A = "9e4b2d7f-3c1a-4f85-a6e0-2d8c4b1f7a93"
SVC = "1c9d7e5f-3a2b-4c68-9e0f-7a6b5c4d3e21"
U, P = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", "5d4c3b2a1f0e49d8c7b6a5f4e3d2c1b0"
RE = "req-7c5a3e1f-9d2b-4b86-a4f0-e2c6a8d0b4f2"
ADMIN = "None req-3e1c5a7f-9b2d-4f60-8a4c-6e8a0c2e4a6c - - - - - -"


def pkgs(v, compute):
    out = [("nova-common", v, "all", "OpenStack Compute - common files"),
           ("python3-nova", v, "all", "OpenStack Compute Python 3 libraries")]
    if compute:
        out.append(("nova-compute", v, "all", "OpenStack Compute - compute node base"))
    else:
        out += [("nova-api-os-compute", v, "all", "OpenStack Compute - OpenStack Compute API frontend"),
                ("nova-conductor", v, "all", "OpenStack Compute - conductor service")]
    return out


def line(t, pid, lvl, logger, ctx, msg, inst=None):
    tag = f"[instance: {inst}] " if inst else ""
    return f"2023-11-08 {t} {pid} {lvl} {logger} [{ctx}] {tag}{msg}\n"


def user(r):
    return f"None {r} {U} {P} - - default default"


def build(name, fixed):
    d = fresh(name)
    new = "3:27.2.0-0ubuntu1~cloud0" if fixed else "3:27.1.0-0ubuntu1.1~cloud0"
    old = "3:26.2.0-0ubuntu1~cloud0"
    ctl = sos_host(d, "sosreport-ctl-1-2023-11-08-fk2qwn", "ctl-1", "Wed Nov  8 12:40:02 UTC 2023", pkgs(new, False))
    sos_host(d, "sosreport-compute-1-2023-11-08-tz6hbe", "compute-1", "Wed Nov  8 12:41:30 UTC 2023", pkgs(old, True))
    c2 = sos_host(d, "sosreport-compute-2-2023-11-08-rj4xlm", "compute-2", "Wed Nov  8 12:42:12 UTC 2023", pkgs(new, True))
    sos_host(d, "sosreport-compute-3-2023-11-08-pa9cvs", "compute-3", "Wed Nov  8 12:42:47 UTC 2023", pkgs(old, True))

    def req(t, r, path, status, length, ms):
        return line(t, 61872, "INFO", "nova.api.openstack.requestlog", user(r),
                    f'10.80.0.11 "{path}" status: {status} len: {length} microversion: 2.93 time: 0.{ms}')
    api = req("11:52:14.208", "req-5b3d1f9e-7c2a-4e84-b6d0-8f2a4c6e8b10", f"PUT /v2.1/os-services/{SVC}", 200, 409, "068117")
    api += req("11:52:40.611", RE, f"POST /v2.1/servers/{A}/action", 200, 34, "366204")
    write(ctl, "var/log/nova/nova-api-wsgi.log", api)
    acc = (f'10.80.0.11 - - [08/Nov/2023:11:52:14 +0000] "PUT /v2.1/os-services/{SVC} HTTP/1.1" 200 409 "-" "python-novaclient"\n'
           f'10.80.0.11 - - [08/Nov/2023:11:52:40 +0000] "POST /v2.1/servers/{A}/action HTTP/1.1" 200 34 "-" "python-novaclient"\n')
    write(ctl, "var/log/apache2/nova-api-os-compute_access.log", acc)
    cond = line("11:52:41.020", 7721, "INFO", "nova.compute.rpcapi", "-",
                "Automatically selected compute RPC version 6.1 from minimum service version 64")
    write(ctl, "var/log/nova/nova-conductor.log", cond)

    c = line("11:48:02.337", 4410, "INFO", "nova.compute.resource_tracker", ADMIN,
             "Final resource view: name=compute-2 phys_ram=385439MB used_ram=24576MB phys_disk=1861GB used_disk=60GB total_vcpus=48 used_vcpus=8 pci_stats=[]")
    if fixed:
        c += line("11:52:41.388", 4410, "INFO", "nova.compute.manager", user(RE), "Evacuating instance", A)
        c += line("11:52:41.702", 4410, "INFO", "nova.compute.claims", user(RE), "Claim successful on node compute-2", A)
        c += line("11:52:52.915", 4410, "INFO", "nova.virt.libvirt.driver", user(RE), "Instance spawned successfully.", A)
    else:
        msg = "rebuild_instance() missing 1 required positional argument: 'target_state'"
        c += line("11:52:41.402", 4410, "ERROR", "oslo_messaging.rpc.server", user(RE), f"Exception during message handling: TypeError: {msg}")
        frames = ["Traceback (most recent call last):",
                  '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/server.py", line 165, in _process_incoming',
                  "    res = self.dispatcher.dispatch(message)",
                  '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/dispatcher.py", line 309, in dispatch',
                  "    return self._do_dispatch(endpoint, method, ctxt, args)",
                  '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/dispatcher.py", line 229, in _do_dispatch',
                  "    result = func(ctxt, **new_args)",
                  '  File "/usr/lib/python3/dist-packages/nova/exception_wrapper.py", line 65, in wrapped',
                  "    with excutils.save_and_reraise_exception():",
                  '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 184, in decorated_function',
                  "    keyed_args = inspect.getcallargs(wrapped_func, self, context,",
                  '  File "/usr/lib/python3.10/inspect.py", line 1562, in getcallargs',
                  "    _missing_arguments(f_name, req, True, arg2value)",
                  '  File "/usr/lib/python3.10/inspect.py", line 1485, in _missing_arguments',
                  "    raise TypeError(\"%s() missing %i required %s argument%s: %s\" %",
                  f"TypeError: {msg}", ""]
        c += "".join(f"2023-11-08 11:52:41.402 4410 ERROR oslo_messaging.rpc.server {f}\n" for f in frames)
    write(c2, "var/log/nova/nova-compute.log", c)


build("2023-sosreport-rebuild-rpc-mismatch", False)
build("2023-sosreport-rebuild-rpc-pinned-fixed", True)
