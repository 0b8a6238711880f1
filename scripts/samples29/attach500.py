import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

# cinder-attachment-500 (class 11) and its look-alike: Ubuntu Jammy 2023.1 (no retry) and
# Noble 2024.1 (retry) sosreports, a boot-from-volume instance evacuated by hand.
X, V = "2f7c9a1e-4b6d-4e83-9a5c-7d1f3b8e6a04", "8b3e5d7f-1a9c-4f62-b0d4-6e2a8c4f0b19"
AID_OLD, AID = "61c3e8a5-2d7f-4b94-a1e6-3f5c7b9d1e28", "4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36"
SVC = "3d6f8a0c-2e4b-4d7a-9c1e-5f7b9d1a3c68"
U, P = "7e6d5c4b3a2f41e0d9c8b7a6f5e4d3c2", "1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6"
NU = "4c5d6e7f8a9b40c1d2e3f4a5b6c7d8e9"  # nova service user
SP = "9f8e7d6c5b4a43f2e1d0c9b8a7f6e5d4"  # service project
RE = "req-6d4b2f0e-8c6a-4e24-b2f0-c8a6e4d2b0f8"  # the evacuate request (nova-api, then compute)
ADMIN = "None req-2b0f8d6c-4a2e-4c0a-9e8c-6a4e2c0a8e6c - - - - - -"


def line(day, t, pid, lvl, logger, ctx, msg, inst=None):
    tag = f"[instance: {inst}] " if inst else ""
    return f"{day} {t} {pid} {lvl} {logger} [{ctx}] {tag}{msg}\n"


def build(name, retried):
    d = fresh(name)
    day = "2024-05-14" if retried else "2023-10-03"
    if retried:
        v, cv, dist, date = "3:29.0.1-0ubuntu1.3", "2:24.0.0-0ubuntu1.1", "noble", "Tue May 14 09:40:11 UTC 2024"
    else:
        v, cv, dist, date = "3:27.1.0-0ubuntu1.1", "2:22.1.0-0ubuntu1.1", "jammy", "Tue Oct  3 09:40:11 UTC 2023"
    nova = [("nova-common", v, "all", "OpenStack Compute - common files"), ("python3-nova", v, "all", "OpenStack Compute Python 3 libraries")]
    ctl = sos_host(d, f"sosreport-ctl-1-{day}-dn7kqe", "ctl-1", date,
                   nova + [("nova-api-os-compute", v, "all", "OpenStack Compute - OpenStack Compute API frontend"),
                           ("cinder-api", cv, "all", "Cinder storage service - API server"),
                           ("python3-cinder", cv, "all", "Cinder Python 3 libraries")])
    c2 = sos_host(d, f"sosreport-compute-2-{day}-ws3jfa", "compute-2", date,
                  nova + [("nova-compute", v, "all", "OpenStack Compute - compute node base")])
    G = RE  # Nova's request id is the global id of its calls to Cinder.

    api = line(day, "09:11:02.114", 40188, "INFO", "nova.api.openstack.requestlog", f"None req-0e8c6a4e-2c0a-4e8c-a6e4-2c0a8e6c4a2e {U} {P} - - default default",
               f'10.90.0.21 "PUT /v2.1/os-services/{SVC}" status: 200 len: 411 microversion: 2.53 time: 0.070215')
    api += line(day, "09:11:30.402", 40188, "INFO", "nova.api.openstack.requestlog", f"None {RE} {U} {P} - - default default",
                f'10.90.0.21 "POST /v2.1/servers/{X}/action" status: 200 len: 34 microversion: 2.53 time: 0.355190')
    write(ctl, "var/log/nova/nova-api-wsgi.log", api)

    url = "http://10.90.0.10:8776/v3/" + P

    def cin(t, r, pid, lvl, logger, msg):
        return line(day, t, pid, lvl, logger, f"{G} {r} {NU} {SP} - - default default", msg)
    rc, ru1, ru2 = "req-a1c3e5f7-0b2d-4f46-8a0c-2e4f6a8c0e24", "req-c3e5a7c9-2d4f-4a68-ac2e-4a6c8e0a2c46", "req-e5a7c9eb-4f6a-4c8a-8e4a-6c8e0a2c4e68"
    c = cin("09:11:31.710", rc, 8811, "INFO", "cinder.api.openstack.wsgi", f"POST {url}/attachments")
    c += cin("09:11:31.902", rc, 8811, "INFO", "cinder.api.openstack.wsgi", f"{url}/attachments returned with HTTP 200")
    c += cin("09:11:32.214", ru1, 8812, "INFO", "cinder.api.openstack.wsgi", f"PUT {url}/attachments/{AID}")
    exc = "oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 8d2f4b6a0c8e4a2c9e0b2d4f6a8c0e2a"
    c += cin("09:12:32.301", ru1, 8812, "ERROR", "cinder.api.v3.attachments", f"Unable to update the attachment.: {exc}")
    frames = ["Traceback (most recent call last):",
              '  File "/usr/lib/python3/dist-packages/cinder/api/v3/attachments.py", line 251, in update',
              "    self.volume_api.attachment_update(context,",
              '  File "/usr/lib/python3/dist-packages/cinder/volume/rpcapi.py", line 437, in attachment_update',
              "    return cctxt.call(ctxt,",
              '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/client.py", line 190, in call',
              "    result = self.transport._send(",
              exc, ""]
    c += "".join(f"{day} 09:12:32.301 8812 ERROR cinder.api.v3.attachments {f}\n" for f in frames)
    c += cin("09:12:32.309", ru1, 8812, "INFO", "cinder.api.openstack.wsgi", f"{url}/attachments/{AID} returned with HTTP 500")
    if retried:
        c += cin("09:12:33.420", ru2, 8811, "INFO", "cinder.api.openstack.wsgi", f"PUT {url}/attachments/{AID}")
        c += cin("09:12:34.118", ru2, 8811, "INFO", "cinder.api.openstack.wsgi", f"{url}/attachments/{AID} returned with HTTP 200")
    write(ctl, "var/log/cinder/cinder-api.log", c)

    ctx = f"None {RE} {U} {P} - - default default"
    n = line(day, "09:05:41.226", 3120, "INFO", "nova.compute.resource_tracker", ADMIN,
             "Final resource view: name=compute-2 phys_ram=385439MB used_ram=16384MB phys_disk=1861GB used_disk=0GB total_vcpus=48 used_vcpus=6 pci_stats=[]")
    n += line(day, "09:11:31.188", 3120, "INFO", "nova.compute.manager", ctx, "Evacuating instance", X)
    n += line(day, "09:11:31.504", 3120, "INFO", "nova.compute.claims", ctx, "Claim successful on node compute-2", X)
    err = f"Update attachment failed for attachment {AID}. Error: Unable to update the attachment. (HTTP 500) (Request-ID: {ru1}) Code: 500"
    n += line(day, "09:12:32.322", 3120, "ERROR", "nova.volume.cinder", ctx, err)
    if retried:
        n += line(day, "09:12:37.941", 3120, "INFO", "nova.virt.libvirt.driver", ctx, "Instance spawned successfully.", X)
    else:
        summary = f"cinderclient.exceptions.ClientException: Unable to update the attachment. (HTTP 500) (Request-ID: {ru1})"
        n += line(day, "09:12:32.390", 3120, "ERROR", "nova.compute.manager", ctx, f"Setting instance vm_state to ERROR: {summary}", X)
        frames = ["Traceback (most recent call last):",
                  '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 10849, in _error_out_instance_on_exception',
                  "    yield",
                  '  File "/usr/lib/python3/dist-packages/nova/compute/manager.py", line 3843, in rebuild_instance',
                  "    self._do_rebuild_instance_with_claim(",
                  '  File "/usr/lib/python3/dist-packages/nova/volume/cinder.py", line 838, in attachment_update',
                  "    attachment_ref = cinderclient(",
                  '  File "/usr/lib/python3/dist-packages/cinderclient/client.py", line 222, in _cs_request',
                  "    raise exceptions.from_response(resp, body)",
                  summary, ""]
        n += "".join(f"{day} 09:12:32.390 3120 ERROR nova.compute.manager [instance: {X}] {f}\n" for f in frames)
    write(c2, "var/log/nova/nova-compute.log", n)


build("2023-sosreport-cinder-attachment-500", False)
build("2024-sosreport-cinder-attachment-500-retried", True)
