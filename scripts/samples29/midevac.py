import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

# source-restart-mid-evacuation (class 8) and its look-alike: Ubuntu Noble 2024.1 sosreports.
A, B = "5d2c8e1a-7f3b-4a96-b0e4-9c1d3f5a7b28", "c8a1f3e5-2b4d-4c6e-9f0a-1b3d5e7f9a2c"
SVC = "7b3e1d9c-5a2f-4e68-b1c4-0d9e8f7a6b53"
U, P = "3f9e1c7a5b2d4e8f9a0b1c2d3e4f5a6b", "6a5b4c3d2e1f40a9b8c7d6e5f4a3b2c1"
RA, RB, RL = ("req-2a9c4e6f-1b3d-4f58-8a7c-9e0d1f2a3b4c", "req-8e6d4c2b-0a9f-4e71-b5c3-d1e2f3a4b5c6",
              "req-4f1e3d5c-7b9a-4c2e-8d6f-0a1b2c3d4e5f")
NOVA = [("nova-common", "3:29.0.1-0ubuntu1.3", "all", "OpenStack Compute - common files"),
        ("python3-nova", "3:29.0.1-0ubuntu1.3", "all", "OpenStack Compute Python 3 libraries")]
COMPUTE = NOVA + [("nova-compute", "3:29.0.1-0ubuntu1.3", "all", "OpenStack Compute - compute node base")]
API = NOVA + [("nova-api-os-compute", "3:29.0.1-0ubuntu1.3", "all", "OpenStack Compute - OpenStack Compute API frontend")]


def line(t, pid, lvl, logger, ctx, msg, inst=None):
    tag = f"[instance: {inst}] " if inst else ""
    return f"2024-09-17 {t} {pid} {lvl} {logger} [{ctx}] {tag}{msg}\n"


def tb(t, pid, logger, inst, frames):
    tag = f"[instance: {inst}] " if inst else ""
    return "".join(f"2024-09-17 {t} {pid} ERROR {logger} {tag}{f}\n" for f in frames + [""])


def user(r):
    return f"None {r} {U} {P} - - default default"


ADMIN = "None req-6c0b2a4e-8d1f-4a3c-9e5b-7f2d4c6a8e01 - - - - - -"


def build(name, mid):
    d = fresh(name)
    ctl = sos_host(d, "sosreport-ctl-1-2024-09-17-hq3vzt", "ctl-1", "Tue Sep 17 15:02:11 UTC 2024", API)
    c1 = sos_host(d, "sosreport-compute-1-2024-09-17-wx8kpd", "compute-1", "Tue Sep 17 15:03:40 UTC 2024", COMPUTE)
    c2 = sos_host(d, "sosreport-compute-2-2024-09-17-mb5rnc", "compute-2", "Tue Sep 17 15:04:05 UTC 2024", COMPUTE)

    def req(t, r, path, status, length, ms):
        return line(t, 51234, "INFO", "nova.api.openstack.requestlog", user(r),
                    f'10.70.0.21 "{path}" status: {status} len: {length} microversion: 2.95 time: 0.{ms}')
    api = req("10:04:02.331", "req-0d8f6b4a-2c1e-4f39-a7d5-3b9c1e8f6a24", f"PUT /v2.1/os-services/{SVC}", 200, 417, "074215")
    api += req("10:04:30.118", RA, f"POST /v2.1/servers/{A}/action", 200, 34, "402118")
    api += req("10:04:31.004", RB, f"POST /v2.1/servers/{B}/action", 200, 34, "377201")
    api += req("14:20:07.552", RL, f"POST /v2.1/servers/{A}/action", 202, 0, "211390")
    write(ctl, "var/log/nova/nova-api-wsgi.log", api)
    acc = "".join(f'10.70.0.21 - - [17/Sep/2024:{t} +0000] "{m} HTTP/1.1" {s} {n} "-" "python-novaclient"\n' for t, m, s, n in [
        ("10:04:02", f"PUT /v2.1/os-services/{SVC}", 200, 417), ("10:04:29", f"POST /v2.1/servers/{A}/action", 200, 34),
        ("10:04:30", f"POST /v2.1/servers/{B}/action", 200, 34), ("14:20:07", f"POST /v2.1/servers/{A}/action", 202, "-")])
    write(ctl, "var/log/apache2/nova-api-os-compute_access.log", acc)

    # Destination: B rebuilt at once, A waits on its volume connections.
    a_done = "10:07:55.614" if mid else "10:05:12.884"
    dst = line("09:58:12.402", 2954, "INFO", "nova.compute.resource_tracker", ADMIN,
               "Final resource view: name=compute-2 phys_ram=515645MB used_ram=16896MB phys_disk=2793GB used_disk=40GB total_vcpus=64 used_vcpus=6 pci_stats=[]")
    dst += line("10:04:31.207", 2954, "INFO", "nova.compute.manager", user(RA), "Evacuating instance", A)
    dst += line("10:04:31.633", 2954, "INFO", "nova.compute.claims", user(RA), "Claim successful on node compute-2", A)
    dst += line("10:04:32.019", 2954, "INFO", "nova.compute.manager", user(RB), "Evacuating instance", B)
    dst += line("10:04:32.410", 2954, "INFO", "nova.compute.claims", user(RB), "Claim successful on node compute-2", B)
    dst += line("10:04:40.872", 2954, "INFO", "nova.virt.libvirt.driver", user(RB), "Instance spawned successfully.", B)
    dst += line(a_done, 2954, "INFO", "nova.virt.libvirt.driver", user(RA), "Instance spawned successfully.", A)
    if mid:
        dst += line("14:20:09.118", 2954, "ERROR", "nova.compute.manager", user(RL),
                    f"Pre live migration failed at compute-1: oslo_messaging.rpc.client.RemoteError: Remote error: DestinationDiskExists The supplied disk path (/var/lib/nova/instances/{A}) already exists, it is expected not to exist.", A)
        dst += tb("14:20:09.118", 2954, "nova.compute.manager", A, [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 9019, in _do_pre_live_migration_from_source',
            "    migrate_data = self.compute_rpcapi.pre_live_migration(",
            '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/client.py", line 190, in call',
            "    result = self.transport._send(",
            "oslo_messaging.rpc.client.RemoteError: Remote error: DestinationDiskExists The supplied disk path (/var/lib/nova/instances/"
            + A + ") already exists, it is expected not to exist."])
    else:
        dst += line("14:20:31.940", 2954, "INFO", "nova.compute.manager", ADMIN, "Migrating instance to compute-1 finished successfully.", A)
    write(c2, "var/log/nova/nova-compute.log", dst)

    # Source: the host comes back while A is still being rebuilt (or after both finished).
    up = ["10:05:46", "10:05:48.220", "10:05:50.112", "10:06:50.174", "10:06:50.961", "10:06:51.020", "10:06:51.388", "10:06:51.704", "10:06:51.811", "10:07:52.305"] if mid else \
         ["10:12:46", "10:12:48.220", "10:12:50.112", None, "10:12:50.702", "10:12:50.760", "10:12:51.138", "10:12:51.504", "10:12:51.611", "10:13:52.305"]
    src = line("10:00:41.551", 3318, "INFO", "nova.compute.resource_tracker", ADMIN,
               "Final resource view: name=compute-1 phys_ram=515645MB used_ram=12800MB phys_disk=2793GB used_disk=40GB total_vcpus=64 used_vcpus=4 pci_stats=[]")
    src += f"2024-09-17 {up[0]}.030 2211 INFO os_vif [-] Loaded VIF plugins: linux_bridge, noop, ovs\n"
    src += line(up[1], 2211, "INFO", "nova.service", "-", "Starting compute node (version 29.0.1)").replace("[-] ", "[-] ")
    boot = "None req-9a7c5e3b-1d2f-4b68-8e0a-c4d6f8a0b2e4 - - - - - -"
    src += line(up[2], 2211, "INFO", "nova.compute.manager", boot, "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", A)
    if mid:
        mid_id = "0c5e8f3a1d2b4e6f9a7c8d0e1f2a3b4c"
        src += line(up[3], 2211, "ERROR", "nova.compute.manager", boot,
                    f"Failed to check if instance shared: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID {mid_id}", A)
        src += tb(up[3], 2211, "nova.compute.manager", A, [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/dist-packages/oslo_messaging/_drivers/amqpdriver.py", line 441, in get',
            "    return self._queues[msg_id].get(block=True, timeout=timeout)",
            '  File "/usr/lib/python3/dist-packages/eventlet/queue.py", line 322, in get',
            "    return waiter.wait()",
            "_queue.Empty",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 881, in _is_instance_storage_shared',
            "    shared_storage = (self.compute_rpcapi.",
            '  File "/usr/lib/python3/dist-packages/nova/compute/rpcapi.py", line 596, in check_instance_shared_storage',
            "    return cctxt.call(ctxt, 'check_instance_shared_storage',",
            '  File "/usr/lib/python3/dist-packages/oslo_messaging/_drivers/amqpdriver.py", line 445, in get',
            "    raise oslo_messaging.MessagingTimeout(",
            f"oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID {mid_id}"])
    src += line(up[4], 2211, "INFO", "nova.virt.libvirt.driver", boot, "Instance destroyed successfully.", A)
    src += line(up[5], 2211, "INFO", "nova.compute.manager", boot, "Destroying instance as it has been evacuated from this host but still exists in the hypervisor", B)
    src += line(up[6], 2211, "INFO", "nova.virt.libvirt.driver", boot, "Instance destroyed successfully.", B)
    src += line(up[7], 2211, "INFO", "nova.compute.manager", boot, "Cleaning up allocations of the instance as it has been evacuated from this host", A)
    src += line(up[8], 2211, "INFO", "nova.compute.manager", boot, "Cleaning up allocations of the instance as it has been evacuated from this host", B)
    src += line(up[9], 2211, "INFO", "nova.compute.resource_tracker", ADMIN,
                "Final resource view: name=compute-1 phys_ram=515645MB used_ram=4096MB phys_disk=2793GB used_disk=0GB total_vcpus=64 used_vcpus=0 pci_stats=[]")
    if mid:
        lm = f"None {RL} {U} {P} - - default default"
        src += line("14:20:09.101", 2211, "ERROR", "oslo_messaging.rpc.server", lm,
                    f"Exception during message handling: nova.exception.DestinationDiskExists: The supplied disk path (/var/lib/nova/instances/{A}) already exists, it is expected not to exist.")
        src += tb("14:20:09.101", 2211, "oslo_messaging.rpc.server", None, [
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/server.py", line 174, in _process_incoming',
            "    res = self.dispatcher.dispatch(message)",
            '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 8856, in pre_live_migration',
            "    return self._do_pre_live_migration(",
            '  File "/usr/lib/python3/dist-packages/nova/virt/libvirt/driver.py", line 11235, in pre_live_migration',
            "    raise exception.DestinationDiskExists(path=instance_dir)",
            f"nova.exception.DestinationDiskExists: The supplied disk path (/var/lib/nova/instances/{A}) already exists, it is expected not to exist."])
    write(c1, "var/log/nova/nova-compute.log", src)


build("2024-sosreport-source-restart-mid-evacuation", True)
build("2024-sosreport-source-restart-after-evacuation", False)
