import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
SVC = "2c7e9a41-5b3d-4f86-a0e2-9d1c4b7f3e58"
VMS = ["d1e4a7c2-9b5f-4e38-8a61-3c0f2b9d7e45", "6f3b8d20-1a7c-4e95-b4d2-8e5a0c3f9b17"]
U, P, D = "8c7b6a5f4e3d4c2b1a0f9e8d7c6b5a49", "2b3c4d5e6f7a48b9c0d1e2f3a4b5c6d7", "default"
def api(t, r, text, lvl="INFO", logger="nova.api.openstack.requestlog"):
    return f"2024-03-12 {t} 40213 {lvl} {logger} [None {r} {U} {P} - default default] {text}\n"
def build(name, restarted):
    d = fresh(name)
    pk = [("nova-api-os-compute", "3:27.1.0-0ubuntu1.1", "all", "OpenStack Compute - OpenStack Compute API frontend"),
          ("nova-common", "3:27.1.0-0ubuntu1.1", "all", "OpenStack Compute - common files"),
          ("python3-nova", "3:27.1.0-0ubuntu1.1", "all", "OpenStack Compute Python 3 libraries")]
    ctl = sos_host(d, "sosreport-ctl-1-2024-03-12-vb2kxe", "ctl-1", "Tue Mar 12 09:40:02 UTC 2024", pk)
    cmp = sos_host(d, "sosreport-compute-3-2024-03-12-pq7dnz", "compute-3", "Tue Mar 12 09:41:30 UTC 2024",
                   [("nova-compute", "3:27.1.0-0ubuntu1.1", "all", "OpenStack Compute - compute node base"),
                    ("python3-nova", "3:27.1.0-0ubuntu1.1", "all", "OpenStack Compute Python 3 libraries")])
    a = api("09:02:11.482", "req-5e1a9c3d-7b2f-4a86-9d04-1c8e6f3a2b97", f'10.60.0.31 "PUT /v2.1/os-services/{SVC}" status: 200 len: 412 microversion: 2.53 time: 0.081204')
    a += api("09:02:40.115", "req-0b8d3f6a-2c9e-4d71-a5b3-7e1f9c4d2a68", f'10.60.0.31 "POST /v2.1/servers/{VMS[0]}/action" status: 200 len: 34 microversion: 2.53 time: 0.312877')
    a += api("09:02:41.902", "req-9c2f7e1b-4d6a-4b38-8e05-2a9d1f6c3b74", f'10.60.0.31 "POST /v2.1/servers/{VMS[1]}/action" status: 200 len: 34 microversion: 2.53 time: 0.298114')
    r = "req-3a7d1e9f-6b4c-4f28-9a53-0e2c8b6d1f49"
    if restarted:
        a += api("09:31:05.622", r, f'10.60.0.31 "PUT /v2.1/os-services/{SVC}" status: 200 len: 411 microversion: 2.53 time: 0.069931')
    else:
        a += api("09:31:05.601", r, "HTTP exception thrown: Unable to force up host compute-3 as `done` evacuation migration records remain associated with the host. Ensure the compute service has been restarted, allowing these records to move to `completed` before retrying this request.", logger="nova.api.openstack.wsgi")
        a += api("09:31:05.604", r, f'10.60.0.31 "PUT /v2.1/os-services/{SVC}" status: 400 len: 287 microversion: 2.53 time: 0.051772')
    write(ctl, "var/log/nova/nova-api-wsgi.log", a)
    acc = f'10.60.0.31 - - [12/Mar/2024:09:02:11 +0000] "PUT /v2.1/os-services/{SVC} HTTP/1.1" 200 412 "-" "python-novaclient"\n'
    acc += f'10.60.0.31 - - [12/Mar/2024:09:31:05 +0000] "PUT /v2.1/os-services/{SVC} HTTP/1.1" {200 if restarted else 400} {411 if restarted else 287} "-" "python-novaclient"\n'
    write(ctl, "var/log/apache2/nova-api-os-compute_access.log", acc)
    c = "2024-03-12 08:59:44.207 2881 INFO nova.compute.resource_tracker [None req-7f2a1c9e-3b8d-4e65-a0f4-9c2d6e1b8a37 - - - - - -] Final resource view: name=compute-3 phys_ram=515645MB used_ram=33280MB phys_disk=2793GB used_disk=80GB total_vcpus=64 used_vcpus=10 pci_stats=[]\n"
    if restarted:
        c += ("2024-03-12 09:28:12.540 3112 INFO os_vif [-] Loaded VIF plugins: linux_bridge, noop, ovs\n"
              "2024-03-12 09:28:14.020 3112 INFO nova.service [-] Starting compute node (version 27.1.0)\n"
              f"2024-03-12 09:28:16.331 3112 INFO nova.compute.manager [None req-1d9e4b7a-2f6c-4a83-9e10-5b3c8d7f2a64 - - - - - -] [instance: {VMS[0]}] Destroying instance as it has been evacuated from this host but still exists in the hypervisor\n"
              f"2024-03-12 09:28:17.105 3112 INFO nova.compute.manager [None req-1d9e4b7a-2f6c-4a83-9e10-5b3c8d7f2a64 - - - - - -] [instance: {VMS[1]}] Destroying instance as it has been evacuated from this host but still exists in the hypervisor\n"
              "2024-03-12 09:29:18.662 3112 INFO nova.compute.resource_tracker [None req-4b8e2d6f-9a1c-4e73-b5d0-2f7a9c3e1d86 - - - - - -] Final resource view: name=compute-3 phys_ram=515645MB used_ram=4096MB phys_disk=2793GB used_disk=0GB total_vcpus=64 used_vcpus=0 pci_stats=[]\n")
    write(cmp, "var/log/nova/nova-compute.log", c)
build("2024-sosreport-force-up-refused", False)
build("2024-sosreport-force-up-after-restart", True)
