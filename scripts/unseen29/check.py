#!/usr/bin/env python3
"""Compare evacdoc's findings on the unseen bundles with their ground truth.

    python3 scripts/unseen29/check.py OUTDIR [EVACDOC_BINARY]

Runs `evacdoc analyze <bundle> --format json` on every bundle of OUTDIR/truth.json and prints
one row per expectation and per unexpected finding: class, bundle, expected, got, PASS / MISS /
FALSE. Exit status 1 when any row is MISS or FALSE.

MISS: an expected finding (detector, and where the truth names them the host, the instances,
the notification) is absent. FALSE: a finding the truth forbids (healthy bundles: any finding;
failing bundles: another issue-29 class's detector not listed as allowed).
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def short(h):
    return (h or "").split(".")[0].lower()


def same_host(want, got):
    if not want:
        return True
    return bool(got) and (want.lower() == got.lower() or short(want) == short(got))


def matches(exp, f):
    if f.get("detector") != exp["detector"]:
        return False
    if not same_host(exp.get("host"), f.get("failed_host")):
        # a finding may name the host only in its evidence or summary
        text = json.dumps(f.get("summary", "")) + json.dumps(f.get("title", ""))
        if not (exp.get("host") and (exp["host"] in text or short(exp["host"]) in text)):
            return False
    if exp.get("instances"):
        got = set(f.get("instance_uuids") or [])
        text = json.dumps(f)
        if not all(i in got or i in text for i in exp["instances"]):
            return False
    if exp.get("notification"):
        if exp["notification"] not in json.dumps(f):
            return False
    return True


def analyze(binary, path):
    p = subprocess.run([binary, "analyze", path, "--format", "json"], capture_output=True, text=True)
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:200])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/unseen29"
    binary = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("EVACDOC", "target/debug/evacdoc")
    with open(os.path.join(out, "truth.json")) as f:
        truths = json.load(f)
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda tr: analyze(binary, os.path.join(out, tr["bundle"])), truths))
    rows = []
    for tr, (doc, err) in zip(truths, results):
        findings = (doc or {}).get("findings", [])
        got_ids = sorted({f.get("detector") for f in findings})
        got = ",".join(got_ids) or "-"
        if err:
            rows.append((tr["class"], tr["bundle"], "-", "error " + err, "MISS"))
            continue
        used = set()
        for exp in tr["expect"]:
            hit = [k for k, f in enumerate(findings) if matches(exp, f)]
            used.update(hit)
            desc = exp["detector"] + ("@" + exp["host"] if exp.get("host") else "") + (
                " [%d inst]" % len(exp["instances"]) if exp.get("instances") else "")
            if hit:
                rows.append((tr["class"], tr["bundle"], desc, got, "PASS"))
            else:
                near = [f for f in findings if f.get("detector") == exp["detector"]]
                why = got if not near else "%s (host %s, inst %s)" % (got, near[0].get("failed_host"), near[0].get("instance_uuids"))
                rows.append((tr["class"], tr["bundle"], desc, why, "MISS"))
        for exp in tr["expect"]:
            for f in findings:
                if f.get("detector") != exp["detector"]:
                    continue
                wrong = [i for i in exp.get("not_instances", []) if i in (f.get("instance_uuids") or [])]
                if wrong:
                    rows.append((tr["class"], tr["bundle"], "not " + ",".join(w[:8] for w in wrong),
                                 "%s names %s" % (f.get("detector"), ",".join(w[:8] for w in wrong)), "FALSE"))
        for k, f in enumerate(findings):
            if k in used or f.get("detector") in tr.get("allow", []):
                continue
            forbidden = tr["must_not"] == "*" or f.get("detector") in tr["must_not"]
            if forbidden:
                rows.append((tr["class"], tr["bundle"], "no " + f.get("detector"),
                             "%s@%s" % (f.get("detector"), f.get("failed_host")), "FALSE"))
        if tr["kind"] == "healthy" and not any(r[1] == tr["bundle"] and r[4] == "FALSE" for r in rows):
            rows.append((tr["class"], tr["bundle"], "(none)", got, "PASS"))
    w = max(len(r[1]) for r in rows)
    print("%-5s %-*s %-48s %-40s %s" % ("class", w, "bundle", "expected", "got", "result"))
    for r in rows:
        print("%-5s %-*s %-48s %-40s %s" % (r[0], w, r[1], r[2][:48], r[3][:80], r[4]))
    counts = {k: sum(1 for r in rows if r[4] == k) for k in ("PASS", "MISS", "FALSE")}
    print("PASS %(PASS)d MISS %(MISS)d FALSE %(FALSE)d" % counts)
    sys.exit(0 if counts["MISS"] == 0 and counts["FALSE"] == 0 else 1)


if __name__ == "__main__":
    main()
