#!/usr/bin/env python3
"""Compare `evacdoc analyze --format json` of a real-stack bundle with its ground truth.

    python3 compare.py GROUND_TRUTH.json ANALYSIS.json [WATCH_OUTPUT]

Checks, each mismatch printed on a `MISMATCH` line (exit status 1 on any):
  - per notification, the set of findings equals what the ground truth implies
    (`expected_detectors`): no missing and no false finding, and no finding on a
    notification the ground truth does not know;
  - each finding names the failed host, the instances concerned, and the notification's
    final status as Masakari's API reported it;
  - every file of the bundle is read with the role its path gives it (`files` of the
    ground truth: path -> service), none is skipped, none unknown;
  - each finding not tied to a notification is in `expected_global` (naming the host of
    `global_hosts` when given), and each of `expected_global` is found;
  - each of `pairs` (a finding about two notifications) found exactly once, on either
    notification, naming both;
  - no line is left unparsed;
  - with WATCH_OUTPUT (`evacdoc watch --format json` on the live files): each expected
    finding printed exactly once, no other.
Python 3 standard library only.
"""

import json
import re
import sys

# Findings that describe one notification's recovery (the others are about config).
PER_NOTIFICATION = {"evacuate-400-race", "pending-after-finished", "bfv-evacuation-delay",
                    "recovery-failed", "evacuation-race-risk"}


def check_watch(truth, path):
    """`evacdoc watch` on the live files: each expected finding printed exactly once."""
    bad = []
    seen = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                bad.append("watch: a line is not JSON: %s" % line[:120])
                continue
            fnd = obj.get("finding", obj)
            if "detector" in fnd:
                seen.append((fnd["detector"], fnd.get("notification_id")))
    want = [(d, r["notification_id"]) for r in truth["recoveries"] for d in r["expected_detectors"]]
    want += [(d, None) for d in truth.get("expected_global", [])]
    for key in sorted(set(seen) | set(want), key=str):
        n = seen.count(key)
        if n != (1 if key in want else 0):
            bad.append("watch: %s on %s printed %d time(s), expected %d" % (
                key[0], key[1], n, 1 if key in want else 0))
    print("watch: %d finding(s) printed: %s" % (len(seen), sorted(d for d, _ in seen)))
    return bad


def main():
    truth = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    bad = []
    findings = doc.get("findings", [])
    known = {r["notification_id"] for r in truth["recoveries"]}
    # A finding about two notifications at once (`pairs`): exactly one, on either of them
    # (which one is a detail only the logs tell), naming both.
    paired = []
    for p in truth.get("pairs", []):
        hits = [f for f in findings if f["detector"] == p["detector"]
                and f.get("notification_id") in p["notifications"]]
        paired.extend(id(f) for f in hits)
        if len(hits) != 1:
            bad.append("%s on the pair %s: %d finding(s), expected 1" % (
                p["detector"], p["notifications"], len(hits)))
        for f in hits:
            if not all(n in f["id"] for n in p["notifications"]):
                bad.append("%s does not name both notifications %s" % (f["id"], p["notifications"]))
            if f.get("failed_host") != p["failed_host"]:
                bad.append("%s names host %s, the failed host is %s" % (
                    f["id"], f.get("failed_host"), p["failed_host"]))
    for r in truth["recoveries"]:
        n = r["notification_id"]
        want = set(r["expected_detectors"])
        mine = [f for f in findings if f.get("notification_id") == n and id(f) not in paired]
        got = {f["detector"] for f in mine}
        if got != want:
            bad.append("notification %s (%s): expected %s, evacdoc found %s" % (
                n, r["final_status"], sorted(want) or "nothing", sorted(got) or "nothing"))
        for f in mine:
            if f.get("failed_host") not in (None, r["failed_host"]):
                bad.append("%s names host %s, the failed host is %s" % (
                    f["id"], f.get("failed_host"), r["failed_host"]))
            if f["detector"] in r.get("instance_detectors", []):
                gi = set(f.get("instance_uuids") or [])
                wi = set(r["instances_concerned"])
                if gi != wi:
                    bad.append("%s names instances %s, expected %s" % (
                        f["id"], sorted(gi), sorted(wi)))
            if f["detector"] == r["expected"]:
                for words in r.get("explanation_mentions", []):
                    if words not in f.get("explanation", ""):
                        bad.append("%s: the explanation does not say %r" % (f["id"], words))
            m = re.search(r"ended `(\w+)`", f.get("summary", ""))
            if f["detector"] in r.get("status_detectors", []):
                if not m or m.group(1) != r["final_status"]:
                    bad.append("%s: says the notification ended %s, Masakari says %s" % (
                        f["id"], m.group(1) if m else "nothing", r["final_status"]))
    for f in findings:
        n = f.get("notification_id")
        if n is not None and n not in known:
            bad.append("finding %s on a notification not in the ground truth (%s)" % (f["detector"], n))
        if n is None and f["detector"] not in truth.get("expected_global", []):
            bad.append("finding %s (%s) not implied by the ground truth" % (f["detector"], f.get("title")))
        want_host = truth.get("global_hosts", {}).get(f["detector"])
        if n is None and want_host and f.get("failed_host") != want_host:
            bad.append("%s names host %s, expected %s" % (f["id"], f.get("failed_host"), want_host))
    for d in truth.get("expected_global", []):
        if not any(f["detector"] == d for f in findings):
            bad.append("expected finding %s: evacdoc found none" % d)

    a = doc.get("analysis", {})
    roles = {f["path"]: f for f in a.get("files", [])}
    for path, service in sorted(truth["files"].items()):
        f = roles.get(path)
        if f is None:
            bad.append("file %s: not read as a log (expected %s)" % (path, service))
        elif f.get("service") != service:
            bad.append("file %s: read as %s, expected %s" % (path, f.get("service"), service))
    for path in sorted(set(roles) - set(truth["files"])):
        bad.append("file %s: read as %s, not a log of the bundle" % (path, roles[path].get("service")))
    for s in a.get("skipped", []):
        bad.append("skipped: %s" % json.dumps(s))
    conf_files = {c["file"] for c in a.get("config", [])}
    for path in truth.get("configs", []):
        if path not in conf_files:
            bad.append("config %s: not read" % path)
    unparsed = doc.get("stats", {}).get("unparsed", 0)
    if unparsed:
        per = ", ".join("%s %d" % (f["path"], f["unparsed"]) for f in a.get("files", []) if f.get("unparsed"))
        bad.append("%d unparsed line(s): %s" % (unparsed, per))

    if len(sys.argv) > 3:
        bad.extend(check_watch(truth, sys.argv[3]))

    print("%s: %d finding(s) %s; %d log file(s), %d record(s), %d unparsed" % (
        truth["scenario"], len(findings), sorted(f["detector"] for f in findings),
        len(roles), doc.get("stats", {}).get("records", 0), unparsed))
    for line in bad:
        print("  MISMATCH %s" % line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
