import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

N = "c4e81f2a-7b3d-4a95-8e6c-1d2f3a4b5c6d"
VM = "5b9e2d71-3c8a-4f06-b1d4-9e7a2c6f8d30"
HOSTUUID = "8f1a2b3c-4d5e-4f60-a7b8-c9d0e1f2a3b4"
PROJ = "a3b9384a3a6df7918493caa7b9f59dda"
USER = "d428e72381f51bfefe91e9c237d6036a"
DOM = "5ab753a7a0aee0b9382b278d134e11a1"
ADMIN = "17987db4b4a00d6c20a12eb562040c14"
ADMINP = "109e66ca17d039ed406a3413ad739017"
NOVA_REQ = ["req-2b7d0c4e-91a3-4f58-8e6d-3c1b5a9f7e20", "req-6e3a9d1f-0c58-4b27-a4e9-7d2c8b1f5a63",
            "req-9c1f4b8e-2d7a-4e36-b5c0-8a3f6d2e1b94", "req-3f8a2c6d-5b1e-4d97-a0c3-9e6b4f2d8a15",
            "req-7d4e1a9c-6f2b-4c83-9b5e-0a1d3c7f6e28", "req-1a6c3e8f-4d9b-4a72-8c5f-2e7b9d0a3c46"]
ENG_REQ = ["req-4e7b2d9a-1c6f-4b38-9a5e-6d3c0f8b2a71", "req-8b2f6c1d-9e4a-4d57-b3c8-5f0a7e2d9c64",
           "req-0d5a8e3c-7b1f-4c96-a2d4-3e9f6b1c8a57", "req-6c9e1b4f-3a7d-4e25-8f0b-1d6a9c3e7b82",
           "req-2a8d5f0c-6e3b-4a19-b7c2-9f4e1d8a6c35", "req-9f3c7a2e-5d8b-4f64-a1e7-0c2b6d9f4e13"]
API_REQ = "req-b1d3f5a7-9c2e-4b68-8d0f-a2c4e6b8d0f1"
CTL_IP, CMP_IP = "10.60.0.10", "10.60.0.22"

def eng(t, lvl, logger, ctx, msg):
    return f"2022-11-02 {t} 30412 {lvl} {logger} [{ctx}] {msg}\n"

def nctx(i):
    return f"{ENG_REQ[i]} masakari - - - -"

def build(name, broken):
    d = fresh(name)
    ctl = sos_host(d, "sosreport-ctl-1-2022-11-03-hq4wtz", "ctl-1",
                   "Thu Nov  3 10:12:31 UTC 2022",
                   [("masakari-api", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - API server"),
                    ("masakari-common", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - common files"),
                    ("masakari-engine", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - engine"),
                    ("python3-masakari", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - Python 3 libraries"),
                    ("nova-api-os-compute", "3:25.0.1-0ubuntu1~cloud0", "all", "OpenStack Compute - OpenStack Compute API frontend"),
                    ("nova-common", "3:25.0.1-0ubuntu1~cloud0", "all", "OpenStack Compute - common files"),
                    ("python3-nova", "3:25.0.1-0ubuntu1~cloud0", "all", "OpenStack Compute Python 3 libraries"),
                    ("python3-novaclient", "2:17.6.0-0ubuntu1~cloud0", "all", "client library for OpenStack Compute API - 3.x")])
    cmp = sos_host(d, "sosreport-compute-2-2022-11-03-m8rkaq", "compute-2",
                   "Thu Nov  3 10:14:02 UTC 2022",
                   [("masakari-instance-monitor", "13.0.0-0ubuntu1~cloud0", "all", "OpenStack Masakari Monitors - instance monitor"),
                    ("masakari-monitors-common", "13.0.0-0ubuntu1~cloud0", "all", "OpenStack Masakari Monitors - common files"),
                    ("nova-compute", "3:25.0.1-0ubuntu1~cloud0", "all", "OpenStack Compute - compute node base"),
                    ("python3-nova", "3:25.0.1-0ubuntu1~cloud0", "all", "OpenStack Compute Python 3 libraries")])
    write(ctl, "etc/masakari/masakari.conf", f"""[DEFAULT]
enabled_apis = masakari_api
debug = False
auth_strategy = keystone
notification_driver = taskflow_driver
os_privileged_user_name = masakari
os_privileged_user_tenant = services
os_privileged_user_auth_url = http://10.60.0.5:5000/v3
wait_period_after_service_update = 180

[instance_failure]
process_all_instances = True

[taskflow]
connection = *********
""")
    write(ctl, "etc/nova/nova.conf", """[DEFAULT]
debug = False
host = ctl-1
report_interval = 10
service_down_time = 60
""")
    # instance monitor on compute-2
    gen = "datetime.datetime(2022, 11, 2, 9, 41, 7, 508112)"
    payload = f"{{'event': 'LIFECYCLE', 'instance_uuid': '{VM}', 'vir_domain_event': 'STOPPED_FAILED'}}"
    write(cmp, "var/log/masakarimonitors/masakari-instancemonitor.log",
          "2022-11-01 06:02:11.402 2207 INFO masakarimonitors.service [-] Starting masakarimonitors-instancemonitor\n"
          f"2022-11-02 09:41:07.509 2207 INFO masakarimonitors.instancemonitor.libvirt_handler.callback [-] Libvirt Event: type=VM, hostname=compute-2, uuid={VM}, time=2022-11-02 09:41:07.508112, event_id=LIFECYCLE, detail=STOPPED_FAILED)\n"
          f"2022-11-02 09:41:07.511 2207 INFO masakarimonitors.ha.masakari [-] Send a notification. {{'notification': {{'type': 'VM', 'hostname': 'compute-2', 'generated_time': {gen}, 'payload': {payload}}}}}\n"
          f"2022-11-02 09:41:08.071 2207 INFO masakarimonitors.ha.masakari [-] Response: openstack.instance_ha.v1.notification.Notification(type=VM, hostname=compute-2, generated_time=2022-11-02T09:41:07.508112, payload={payload}, id=212, notification_uuid={N}, source_host_uuid={HOSTUUID}, status=new, created_at=2022-11-02T09:41:08.000000, updated_at=None, location=Munch({{'cloud': 'defaults', 'region_name': 'RegionOne', 'zone': None, 'project': Munch({{'id': '{PROJ}', 'name': 'services', 'domain_id': None, 'domain_name': None}})}}))\n")
    comp = ("2022-11-02 09:40:44.118 3311 INFO nova.compute.resource_tracker [req-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d - - - - -] Final resource view: name=compute-2 phys_ram=515645MB used_ram=40960MB phys_disk=2793GB used_disk=80GB total_vcpus=64 used_vcpus=12 pci_stats=[]\n"
            f"2022-11-02 09:41:07.602 3311 WARNING nova.compute.manager [-] [instance: {VM}] Instance shutdown by itself. Calling the stop API. Current vm_state: active, current task_state: None, original DB power_state: 1, current VM power_state: 4\n"
            f"2022-11-02 09:41:07.781 3311 INFO nova.compute.manager [req-5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f - - - - -] [instance: {VM}] Instance is already powered off in the hypervisor when stop is called.\n")
    if not broken:
        comp += (f"2022-11-02 09:41:09.912 3311 INFO nova.compute.manager [req-{NOVA_REQ[4][4:]} {USER} {PROJ} - {DOM} {DOM}] [instance: {VM}] Powering on instance\n"
                 f"2022-11-02 09:41:12.405 3311 INFO nova.virt.libvirt.driver [-] [instance: {VM}] Instance rebooted successfully.\n")
    comp += "2022-11-02 09:41:45.201 3311 INFO nova.compute.resource_tracker [req-0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e - - - - -] Final resource view: name=compute-2 phys_ram=515645MB used_ram=40960MB phys_disk=2793GB used_disk=80GB total_vcpus=64 used_vcpus=12 pci_stats=[]\n"
    write(cmp, "var/log/nova/nova-compute.log", comp)

    e = eng("06:01:58.114", "INFO", "masakari.engine.driver", "-", "Loading masakari notification driver 'taskflow_driver'")
    e += eng("06:01:59.002", "INFO", "masakari.service", "-", "Starting engine (version 13.0.0)")
    e += eng("09:41:08.215", "INFO", "masakari.engine.manager", f"{API_REQ} {USER} {PROJ} - {DOM} {DOM}", f"Processing notification {N} of type: VM")
    e += eng("09:41:08.390", "INFO", "masakari.compute.nova", nctx(0), f"Call get server command for instance {VM}")
    e += eng("09:41:08.702", "INFO", "masakari.compute.nova", nctx(1), f"Call stop server command for instance {VM}")
    api = (f"2022-11-02 09:41:08.512 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[0]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"GET /v2.1/servers/{VM}\" status: 200 len: 1871 microversion: 2.53 time: 0.109811\n")
    acc = (f"{CTL_IP} - - [02/Nov/2022:09:41:08 +0000] \"GET /v2.1/servers/{VM} HTTP/1.1\" 200 1871 \"-\" \"python-novaclient\"\n")
    if broken:
        exc = "novaclient.exceptions.ClientException: Unexpected API Error. Please report this at http://bugs.launchpad.net/nova/ and attach the Nova API log if possible."
        exc2 = f"<class 'oslo_db.exception.DBConnectionError'> (HTTP 500) (Request-ID: {NOVA_REQ[1]})"
        api += (f"2022-11-02 09:41:09.006 41873 ERROR nova.api.openstack.wsgi [{NOVA_REQ[1]} {USER} {PROJ} - {DOM} {DOM}] Unexpected exception in API method: oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2013, 'Lost connection to MySQL server during query')\n"
                f"2022-11-02 09:41:09.009 41873 INFO nova.api.openstack.wsgi [{NOVA_REQ[1]} {USER} {PROJ} - {DOM} {DOM}] HTTP exception thrown: Unexpected API Error. Please report this at http://bugs.launchpad.net/nova/ and attach the Nova API log if possible.\n"
                f"<class 'oslo_db.exception.DBConnectionError'>\n"
                f"2022-11-02 09:41:09.011 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[1]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"POST /v2.1/servers/{VM}/action\" status: 500 len: 216 microversion: 2.53 time: 0.291077\n")
        acc += f"{CTL_IP} - - [02/Nov/2022:09:41:08 +0000] \"POST /v2.1/servers/{VM}/action HTTP/1.1\" 500 216 \"-\" \"python-novaclient\"\n"
        tb_task = ["Traceback (most recent call last):",
                   '  File "/usr/lib/python3/dist-packages/taskflow/engines/action_engine/executor.py", line 53, in _execute_task',
                   "    result = task.execute(**arguments)",
                   '  File "/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/instance_failure.py", line 104, in execute',
                   "    self.novaclient.stop_server(self.context, instance.id)",
                   '  File "/usr/lib/python3/dist-packages/masakari/compute/nova.py", line 62, in wrapper',
                   "    res = method(self, ctx, *args, **kwargs)",
                   '  File "/usr/lib/python3/dist-packages/novaclient/v2/servers.py", line 1106, in stop',
                   "    resp, body = self._action('os-stop', server, None)",
                   '  File "/usr/lib/python3/dist-packages/novaclient/client.py", line 77, in request',
                   "    raise exceptions.from_response(resp, body, url, method)",
                   exc, exc2]
        e += eng("09:41:09.024", "WARNING", "masakari.engine.drivers.taskflow.driver", nctx(1),
                 "Task 'StopInstanceTask' (9d2e4f6a-8b0c-4d1e-a3f5-b7c9d1e3f5a7) transitioned into state 'FAILURE' from state 'RUNNING'\n"
                 "1 predecessors (most recent first):\n  Flow 'instance_recovery_engine'\n" + "\n".join(tb_task)).rstrip("\n") + "\n"
        e += eng("09:41:09.031", "WARNING", "masakari.engine.drivers.taskflow.driver", nctx(1),
                 "Flow 'instance_recovery_engine' (2f4a6c8e-0b2d-4f6a-8c0e-2a4c6e8f0b2d) transitioned into state 'REVERTED' from state 'RUNNING'")
        e += eng("09:41:09.040", "ERROR", "oslo_messaging.rpc.server", nctx(1), "Exception during message handling")
        tb = ["Traceback (most recent call last):",
              '  File "/usr/lib/python3/dist-packages/oslo_messaging/rpc/server.py", line 165, in _process_incoming',
              "    res = self.dispatcher.dispatch(message)",
              '  File "/usr/lib/python3/dist-packages/masakari/engine/manager.py", line 328, in process_notification',
              "    self._process_notification(context, notification)",
              '  File "/usr/lib/python3/dist-packages/masakari/engine/manager.py", line 276, in _process_notification',
              "    notification_status = self._handle_notification_type_instance(",
              '  File "/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/driver.py", line 187, in execute_instance_failure',
              "    flow_engine.run()",
              '  File "/usr/lib/python3/dist-packages/taskflow/engines/action_engine/engine.py", line 247, in run',
              "    for _state in self.run_iter(timeout=timeout):",
              exc, exc2]
        for l in tb:
            e += f"2022-11-02 09:41:09.040 30412 ERROR oslo_messaging.rpc.server {l}\n"
        e += eng("12:14:22.640", "ERROR", "oslo.messaging._drivers.impl_rabbit", "-", "[6f2a1c9e-3b7d-4e58-a0c4-9d1e5b8f2a63] AMQP server on 10.60.0.12:5672 is unreachable: Too many heartbeats missed. Trying again in 1 seconds.: amqp.exceptions.ConnectionForced: Too many heartbeats missed")
        e += eng("12:14:23.702", "INFO", "oslo.messaging._drivers.impl_rabbit", "-", "[6f2a1c9e-3b7d-4e58-a0c4-9d1e5b8f2a63] Reconnected to AMQP server on 10.60.0.12:5672 via [amqp] client with port 49872.")
        e += f"2022-11-03 09:48:10.377 30412 ERROR masakari.engine.manager [req-8e0a2c4e-6b8d-4f0a-9c2e-4a6c8e0a2c4e - - - - -] Periodic task 'check_expired_notifications': Notification {N} is expired.\n"
    else:
        api += f"2022-11-02 09:41:08.931 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[1]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"POST /v2.1/servers/{VM}/action\" status: 202 len: 0 microversion: 2.53 time: 0.211402\n"
        acc += f"{CTL_IP} - - [02/Nov/2022:09:41:08 +0000] \"POST /v2.1/servers/{VM}/action HTTP/1.1\" 202 - \"-\" \"python-novaclient\"\n"
        e += eng("09:41:09.011", "INFO", "masakari.compute.nova", nctx(2), f"Call get server command for instance {VM}")
        e += eng("09:41:09.698", "INFO", "masakari.compute.nova", nctx(3), f"Call start server command for instance {VM}")
        e += eng("09:41:10.014", "INFO", "masakari.compute.nova", nctx(4), f"Call get server command for instance {VM}")
        e += eng("09:41:13.021", "INFO", "masakari.compute.nova", nctx(5), f"Call get server command for instance {VM}")
        e += eng("09:41:13.288", "INFO", "masakari.engine.manager", nctx(5), f"Notification {N} exits with status: finished.")
        api += (f"2022-11-02 09:41:09.102 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[2]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"GET /v2.1/servers/{VM}\" status: 200 len: 1868 microversion: 2.53 time: 0.087120\n"
                f"2022-11-02 09:41:09.880 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[3]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"POST /v2.1/servers/{VM}/action\" status: 202 len: 0 microversion: 2.53 time: 0.178812\n"
                f"2022-11-02 09:41:13.119 41873 INFO nova.api.openstack.requestlog [{NOVA_REQ[5]} {USER} {PROJ} - {DOM} {DOM}] {CTL_IP} \"GET /v2.1/servers/{VM}\" status: 200 len: 1874 microversion: 2.53 time: 0.091532\n")
        acc += (f"{CTL_IP} - - [02/Nov/2022:09:41:09 +0000] \"GET /v2.1/servers/{VM} HTTP/1.1\" 200 1868 \"-\" \"python-novaclient\"\n"
                f"{CTL_IP} - - [02/Nov/2022:09:41:09 +0000] \"POST /v2.1/servers/{VM}/action HTTP/1.1\" 202 - \"-\" \"python-novaclient\"\n"
                f"{CTL_IP} - - [02/Nov/2022:09:41:13 +0000] \"GET /v2.1/servers/{VM} HTTP/1.1\" 200 1874 \"-\" \"python-novaclient\"\n")
        e += eng("12:14:22.640", "ERROR", "oslo.messaging._drivers.impl_rabbit", "-", "[6f2a1c9e-3b7d-4e58-a0c4-9d1e5b8f2a63] AMQP server on 10.60.0.12:5672 is unreachable: Too many heartbeats missed. Trying again in 1 seconds.: amqp.exceptions.ConnectionForced: Too many heartbeats missed")
        e += eng("12:14:23.702", "INFO", "oslo.messaging._drivers.impl_rabbit", "-", "[6f2a1c9e-3b7d-4e58-a0c4-9d1e5b8f2a63] Reconnected to AMQP server on 10.60.0.12:5672 via [amqp] client with port 49872.")
    write(ctl, "var/log/masakari/masakari-engine.log", e)
    write(ctl, "var/log/nova/nova-api-wsgi.log", api)
    write(ctl, "var/log/apache2/nova-api-os-compute_access.log", acc)
    macc = (f"{CMP_IP} - - [02/Nov/2022:09:41:08 +0000] \"POST /v1/notifications HTTP/1.1\" 202 812 \"-\" \"openstacksdk/0.61.0 keystoneauth1/4.5.0 python-requests/2.22.0 CPython/3.8.10\"\n"
            f"10.60.0.31 - - [03/Nov/2022:10:02:55 +0000] \"GET /v1/notifications/{N} HTTP/1.1\" 200 1544 \"-\" \"osc-lib/2.5.0 keystoneauth1/4.5.0 python-requests/2.22.0 CPython/3.8.10\"\n")
    write(ctl, "var/log/apache2/masakari_access.log", macc)
    return d

if __name__ == "__main__":
    build("2022-sosreport-notification-stuck-running", True)
    build("2022-sosreport-instance-recovery-healthy", False)
