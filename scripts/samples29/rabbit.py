"""Class 6: masakari-api accepts notifications no engine consumes (and the look-alike that does).

Formats: Apache combined access lines of masakari-api (as stuck.py); Masakari 13.0.0 engine
lines; `rabbitmqctl report` of RabbitMQ 3.9 (sos rabbitmq plugin: sos_commands/rabbitmq/
rabbitmqctl_report): the banners and tab-separated tables of report_command.ex and
list_queues_command.ex (info keys in their order).
"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

HOSTMON_IP = "10.60.0.23"
N = "9e4b1c7a-2d5f-4a83-b6e0-3f8c1d9a5b27"
PKGS = [("masakari-api", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - API server"),
        ("masakari-common", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - common files"),
        ("masakari-engine", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - engine"),
        ("python3-masakari", "13.0.0-0ubuntu1~cloud0", "all", "Virtual Machine High Availability (VMHA) service - Python 3 libraries"),
        ("rabbitmq-server", "3.8.2-0ubuntu1.4", "all", "AMQP server written in Erlang")]
KEYS = ("name durable auto_delete arguments policy pid owner_pid exclusive exclusive_consumer_pid "
        "exclusive_consumer_tag messages_ready messages_unacknowledged messages messages_ready_ram "
        "messages_unacknowledged_ram messages_ram messages_persistent message_bytes message_bytes_ready "
        "message_bytes_unacknowledged message_bytes_ram message_bytes_persistent head_message_timestamp "
        "disk_reads disk_writes consumers consumer_utilisation memory slave_pids synchronised_slave_pids state").split()


def queue(name, messages, consumers, pid):
    row = {k: "" for k in KEYS}
    row.update(name=name, durable="false", auto_delete="false", arguments="[]", pid=pid, exclusive="false",
               messages_ready=str(messages), messages_unacknowledged="0", messages=str(messages),
               messages_ready_ram=str(messages), messages_unacknowledged_ram="0", messages_ram=str(messages),
               messages_persistent="0", message_bytes=str(1843 * messages), message_bytes_ready=str(1843 * messages),
               message_bytes_unacknowledged="0", message_bytes_ram=str(1843 * messages), message_bytes_persistent="0",
               disk_reads="0", disk_writes="0", consumers=str(consumers),
               consumer_utilisation="1.0" if consumers else "", memory="34632", slave_pids="[]",
               synchronised_slave_pids="[]", state="running")
    return "\t".join(row[k] for k in KEYS)


def report(consumers, waiting):
    q = [queue("conductor", 0, 4, "<rabbit@juju-5e2a1c-0-lxd-3.1.2117.0>"),
         queue("ha_engine", waiting, consumers, "<rabbit@juju-5e2a1c-0-lxd-3.1.2241.0>"),
         queue("scheduler", 0, 4, "<rabbit@juju-5e2a1c-0-lxd-3.1.2120.0>")]
    return "\n".join([
        "Reporting server status of node rabbit@juju-5e2a1c-0-lxd-3 ...",
        "",
        "Status of node rabbit@juju-5e2a1c-0-lxd-3 ...",
        "Runtime",
        "",
        "OS PID: 1544",
        "OS: Linux",
        "Uptime (seconds): 1205512",
        "RabbitMQ version: 3.8.2",
        "",
        "Timeout: 60.0 seconds ...",
        "Listing queues for vhost openstack ...",
        "\t".join(KEYS),
    ] + q + [
        "",
        "Listing exchanges for vhost openstack ...",
        "name\ttype\tdurable\tauto_delete\tinternal\targuments\tpolicy",
        "masakari\ttopic\tfalse\tfalse\tfalse\t[]\t",
        "nova\ttopic\tfalse\tfalse\tfalse\t[]\t",
    ])


def build(name, consuming):
    d = fresh(name)
    ctl = sos_host(d, "sosreport-juju-5e2a1c-0-lxd-3-2023-02-14-pz7kfd", "juju-5e2a1c-0-lxd-3",
                   "Tue Feb 14 09:58:40 UTC 2023", PKGS)
    write(ctl, "etc/masakari/masakari.conf", "[DEFAULT]\nnotification_driver = taskflow_driver\nwait_period_after_service_update = 180\n")
    acc = [f'{HOSTMON_IP} - - [14/Feb/2023:09:21:{s:02d} +0000] "POST /v1/notifications HTTP/1.1" 202 806 "-" '
           '"openstacksdk/0.61.0 keystoneauth1/4.5.0 python-requests/2.22.0 CPython/3.8.10"' for s in (7,)]
    acc.insert(0, '10.60.0.5 - - [14/Feb/2023:09:20:31 +0000] "GET /v1/segments HTTP/1.1" 200 1133 "-" "python-masakariclient"')
    write(ctl, "var/log/apache2/masakari_access.log", "\n".join(acc))
    eng = ["2023-02-14 06:02:11.481 1932 INFO masakari.service [-] Starting engine (version 13.0.0)"]
    if consuming:
        c = "req-5a2e8d1c-7b4f-4c69-9e03-2d6a1f8c4b75 c3a1e9d27f5b48e6a0d4b2f8c6e1a937 6b2e9d4f1a7c4358b0e2d6f9a3c1e847 - - -"
        eng += [f"2023-02-14 09:21:07.522 1932 INFO masakari.engine.manager [{c}] Processing notification {N} of type: COMPUTE_HOST",
                f"2023-02-14 09:21:07.540 1932 INFO masakari.engine.manager [{c}] Notification type 'COMPUTE_HOST' received for host '4c1d8e2a-9b3f-4a67-8e05-1f2c7d9b3a64' has been STARTED.",
                f"2023-02-14 09:21:07.561 1932 INFO masakari.engine.manager [{c}] Notification {N} exits with status: finished."]
    write(ctl, "var/log/masakari/masakari-engine.log", "\n".join(eng))
    write(ctl, "sos_commands/rabbitmq/rabbitmqctl_report", report(1 if consuming else 0, 0 if consuming else 1))


build("2023-sosreport-engine-not-consuming", False)
build("2023-sosreport-engine-consuming", True)
