#!/usr/bin/env python3
"""Regenerates src/redact/vocab.txt and src/redact/modules.txt: the words a public share
may show as they are (the constant text of OpenStack log messages) and the Python
module names of the services (logger names).

    scripts/gen_vocab.py [--masakari GITDIR] [--nova GITDIR] [--monitors GITDIR]

GITDIR is a git directory (bare or not) of openstack/masakari, openstack/nova and
openstack/masakari-monitors (--monitors, whose hostmonitor lines findings quote); the
defaults are the snapshots the `fetch` tool leaves in /work/.mirror. Words come from:

- the LOG.<level>(...) format strings, `_()` strings and `msg_fmt` of both sources
  (tests excluded), their class names, function names and module paths;
- the message part of every oslo log line in /work/shared/reference/masakari-nova-logs.md
  and /work/shared/seeds/ (never the prose around them: it names people and hosts);
- the string literals of evacdoc's own detectors, correlation and triage (src/detect/,
  src/correlate/, src/triage/, tests excluded): the constant text of a finding's title,
  summary and explanation, of clock notes and of the bug template;
- a short hand list (levels, HTTP methods, months, units, path and traceback words).

A word is letters, or a letter then letters and digits (ASCII), lowercased; the log lines
of the reference and seeds give letters-only words (their alphanumeric words are host
names). Placeholders (`%(host)s`, `{}`) are removed before words are taken.
"""

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT_WORDS = ROOT / "src/redact/vocab.txt"
OUT_MODULES = ROOT / "src/redact/modules.txt"

LOG_LINE = re.compile(
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)? +\d+ +(?:DEBUG|INFO|WARNING|ERROR|CRITICAL|TRACE) +\S+ +(.*)$"
)
CONTEXT = re.compile(r"^\[[^\]]*\] *")
PLACEHOLDER = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc]|%[sdifrx]|\{[^}]*\}")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
LETTERS = re.compile(r"[A-Za-z]+")
LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical"}

EXTRA = """
debug info warning warn error critical trace audit notice fatal
get post put delete patch head options connect
jan feb mar apr may jun jul aug sep oct nov dec
january february march april june july august september october november december
mon tue wed thu fri sat sun utc gmt z
ms us ns sec secs seconds min mins minutes h hr hrs hours days kb mb gb tb kib mib gib tib
http https tcp udp amqp rabbit rabbitmq mysql pymysql ssl tls json yaml ini conf cfg log
logs txt gz xz zst bz2 tar tgz py pyc sh service socket pid lock
var lib usr etc opt run tmp dev proc sys srv home local share dist packages site python
python3 bin sbin systemd apache2 httpd wsgi uwsgi juju lxd sosreport sos_commands
traceback most recent call last file line in raise from during handling another
exception occurred above direct cause following true false none null yes no on off
nova masakari cinder neutron glance keystone placement octavia heat barbican ironic swift
oslo messaging taskflow libvirt qemu kvm pacemaker corosync crm hacluster consul
compute conductor scheduler api engine monitors hostmonitor instancemonitor processmonitor
introspectiveinstancemonitor novncproxy metadata evacuate evacuation recovery
instance instances notification notifications segment segments host hosts request req
x86 x86_64 aarch64 ppc64le s390x ipv4 ipv6 utf8 sha256 md5 v1 v2 v3 v2.1
"""

TOP_PACKAGES = """
nova masakari masakarimonitors cinder neutron glance keystone placement oslo oslo_log
oslo_messaging oslo_service oslo_db oslo_concurrency oslo_privsep oslo_config oslo_policy
oslo_middleware oslo_utils oslo_cache oslo_context keystoneauth1 keystonemiddleware
keystoneclient novaclient cinderclient neutronclient glanceclient os_brick os_vif
taskflow sqlalchemy urllib3 requests eventlet amqp kombu libvirt routes webob migrate
alembic stevedore ovsdbapp tooz futurist
"""


def git_files(gitdir):
    names = subprocess.run(
        ["git", "--git-dir", gitdir, "ls-tree", "-r", "--name-only", "HEAD"],
        check=True, capture_output=True, text=True,
    ).stdout.split("\n")
    return [n for n in names if n.endswith(".py") and "/tests/" not in n and not n.startswith("tests/")]


def git_blobs(gitdir, names):
    proc = subprocess.Popen(
        ["git", "--git-dir", gitdir, "cat-file", "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    proc.stdin.write("".join(f"HEAD:{n}\n" for n in names).encode())
    proc.stdin.close()
    for name in names:
        header = proc.stdout.readline().split()
        if len(header) < 3:
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        yield name, data.decode("utf-8", "replace")
    proc.wait()


def strings_of(node):
    """The constant text of a format argument (concatenations and `_()` included)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp):
        return strings_of(node.left) + strings_of(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "_LE", "_LW", "_LI"):
        return [s for a in node.args for s in strings_of(a)]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return []


def python_words(source, words):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        texts = []
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in LOG_METHODS:
                texts = [s for a in node.args[:1] for s in strings_of(a)]
            elif isinstance(f, ast.Name) and f.id in ("_", "_LE", "_LW", "_LI"):
                texts = [s for a in node.args for s in strings_of(a)]
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id in ("msg_fmt", "message", "msg") for t in node.targets):
                texts = strings_of(node.value)
        elif isinstance(node, ast.ClassDef):
            words.add(node.name.lower())
            texts = [node.name]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            texts = [node.name.replace("_", " ")]
        for text in texts:
            text = PLACEHOLDER.sub(" ", text)
            words.update(w.lower() for w in WORD.findall(text))


def source_tree(gitdir, package, words, modules):
    names = git_files(gitdir)
    for name in names:
        if name.startswith(package + "/"):
            module = name[:-3].replace("/", ".")
            if module.endswith(".__init__"):
                module = module[: -len(".__init__")]
            modules.add(module)
            words.update(p.lower() for part in module.split(".") for p in part.split("_") if p)
    for _, source in git_blobs(gitdir, names):
        python_words(source, words)


def log_line_words(text, words):
    for line in text.splitlines():
        m = LOG_LINE.search(line)
        if not m:
            continue
        message = CONTEXT.sub("", m.group(1))
        message = re.sub(r"\[instance: [^\]]*\] *", "", message)
        words.update(w.lower() for w in LETTERS.findall(message))


def rust_detector_words(words):
    paths = [p for d in ("src/detect", "src/correlate", "src/triage") for p in (ROOT / d).rglob("*.rs")]
    # Test modules in files of their own hold sample ids and host names, not finding text.
    paths = [p for p in paths if not (p.stem == "tests" or p.stem.endswith("_tests") or "tests" in p.parts)]
    for path in sorted(paths):
        text = path.read_text()
        text = text.split("#[cfg(test)]")[0]
        for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', text, re.DOTALL):
            lit = PLACEHOLDER.sub(" ", lit)
            words.update(w.lower() for w in LETTERS.findall(lit))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--masakari", default="/work/.mirror/openstack+masakari/repo")
    ap.add_argument("--nova", default="/work/.mirror/openstack+nova/repo")
    ap.add_argument("--monitors", default="/work/.mirror/openstack+masakari-monitors/repo")
    ap.add_argument("--reference", default="/work/shared/reference/masakari-nova-logs.md")
    ap.add_argument("--seeds", default="/work/shared/seeds")
    args = ap.parse_args()
    words, modules = set(), set()
    source_tree(args.masakari, "masakari", words, modules)
    source_tree(args.nova, "nova", words, modules)
    source_tree(args.monitors, "masakarimonitors", words, modules)
    log_line_words(Path(args.reference).read_text(), words)
    for seed in sorted(Path(args.seeds).glob("*")):
        log_line_words(seed.read_text(errors="replace"), words)
    rust_detector_words(words)
    words.update(EXTRA.split())
    modules.update(TOP_PACKAGES.split())
    # Nothing that is only one letter repeated, nor absurdly long.
    words = {w for w in words if len(w) <= 40}
    header = "# generated by scripts/gen_vocab.py: do not edit\n"
    OUT_WORDS.write_text(header + "\n".join(sorted(words)) + "\n")
    OUT_MODULES.write_text(header + "\n".join(sorted(modules)) + "\n")
    print(f"{len(words)} words, {len(modules)} modules", file=sys.stderr)


if __name__ == "__main__":
    main()
