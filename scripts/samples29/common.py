import os
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "scenarios")
import os, shutil
ROOT = SCENARIOS + ""

def fresh(name):
    d = os.path.join(ROOT, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    return d

def write(base, rel, text):
    p = os.path.join(base, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")

HEAD = """Desired=Unknown/Install/Remove/Purge/Hold
| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend
|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)
||/ Name                                 Version                                 Architecture Description
+++-====================================-=======================================-============-================================================================================
"""
BASE_PKGS = [("adduser", "3.118ubuntu2", "all", "add and remove users and groups"),
             ("apt", "2.0.9", "amd64", "commandline package manager"),
             ("openssh-server", "1:8.2p1-4ubuntu0.5", "amd64", "secure shell (SSH) server, for secure access from remote machines"),
             ("python3", "3.8.2-0ubuntu2", "amd64", "interactive high-level object-oriented language (default python3 version)")]

def dpkg(pkgs):
    rows = sorted(BASE_PKGS + pkgs)
    return HEAD + "".join(f"ii  {n:<36} {v:<39} {a:<12} {d}\n" for n, v, a, d in rows)

def sos_host(base, sosdir, hostname, date_line, pkgs, tz="Etc/UTC"):
    h = os.path.join(base, sosdir)
    write(h, "hostname", hostname)
    write(h, "etc/hostname", hostname)
    write(h, "etc/timezone", tz)
    write(h, "sos_commands/host/hostname", hostname)
    write(h, "sos_commands/date/date", date_line)
    write(h, "sos_commands/date/date_--utc", date_line)
    write(h, "sos_commands/dpkg/dpkg_-l", dpkg(pkgs))
    return h
