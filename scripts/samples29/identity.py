import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import os, shutil
SRC = SCENARIOS + "/2025-kolla-healthy-recovery"
DST = SCENARIOS + "/2025-kolla-compute-refuses-to-start"
if os.path.exists(DST): shutil.rmtree(DST)
shutil.copytree(SRC, DST)
os.remove(os.path.join(DST, "README.md"))
p = os.path.join(DST, "cmp02/var/log/kolla/nova/nova-compute.log")
lines = [l for l in open(p).read().splitlines() if l < "2025-06-17 14:02"]
MSG = "No local node identity found, but this is not our first startup on this host. Refusing to start after potentially having lost that state!"
SP = "/var/lib/kolla/venv/lib/python3.10/site-packages"
reqs = ["req-6b1f3e8a-2c4d-4e9f-a7b0-5d8c1e3f6a92", "req-0e7d2a9c-5f3b-4186-9c4e-8a1b6d2f0c37", "req-c3a8f1d6-7e2b-4d59-b0c6-1f4e9a7d3b85"]
for k, (m, s) in enumerate([("20", 38), ("21", 41), ("22", 44)]):
    t = lambda ms, sec=s: f"2025-06-17 14:{m}:{sec:02d}.{ms}"
    pid = 7 + k
    lines += [f"{t('207')} {pid} INFO os_vif [-] Loaded VIF plugins: linux_bridge, noop, ovs",
              f"{t('507', s+1)} {pid} INFO nova.virt.driver [None {reqs[k]} - - - - - -] Loading compute driver 'libvirt.LibvirtDriver'",
              f"{t('907', s+2)} {pid} INFO nova.service [-] Starting compute node (version 29.2.1)",
              f"{t('107', s+3)} {pid} INFO nova.virt.libvirt.driver [-] Connection event '1' reason 'None'"]
    h = f"{t('412', s+3)} {pid} ERROR oslo_service.service"
    lines.append(f"{h} [None {reqs[k]} - - - - - -] Error starting thread.: nova.exception.InvalidConfiguration: {MSG}")
    for tb in ["Traceback (most recent call last):",
               f'  File "{SP}/oslo_service/service.py", line 806, in run_service',
               "    service.start()",
               f'  File "{SP}/nova/service.py", line 162, in start',
               "    self.manager.init_host(self.service_ref)",
               f'  File "{SP}/nova/compute/manager.py", line 1671, in init_host',
               "    self._ensure_existing_node_identity(service_ref)",
               f'  File "{SP}/nova/compute/manager.py", line 1622, in _ensure_existing_node_identity',
               "    raise exception.InvalidConfiguration(msg)",
               f"nova.exception.InvalidConfiguration: {MSG}",
               ""]:
        lines.append(f"{h} {tb}".rstrip())
open(p, "w").write("\n".join(lines) + "\n")
p = os.path.join(DST, "ctl01/var/log/kolla/nova/nova-scheduler.log")
keep = [l for l in open(p).read().splitlines() if "14:20:46" not in l]
open(p, "w").write("\n".join(keep) + "\n")
