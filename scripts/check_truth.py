#!/usr/bin/env python3
"""Check `evacdoc analyze --format json` against a generated bundle's ground_truth.json.

    python3 scripts/check_truth.py GROUND_TRUTH.json ANALYSIS.json [--mix NAME] [--report]

Checks, each mismatch printed on one `MISMATCH` line:
  - findings per notification: the set of failure detectors (evacuate-400-race,
    pending-after-finished, bfv-evacuation-delay) evacdoc reports for each recovery equals
    the expected one (empty for healthy recoveries); no finding on an unknown notification;
  - instances: a finding's instance_uuids equal the raced / pending / delayed instances;
  - hosts: evacdoc's host count equals the bundle's, and every host is found by name;
  - clock offsets: every skew estimate evacdoc reports (analysis.skew: host vs reference)
    is within 2 s of the difference of the known offsets of those two hosts.
Exit status 1 on any mismatch, unless --report (then 0: print only).
Python 3 standard library only.
"""

import argparse
import json
import sys

CLASSES = {"evacuate-400-race", "pending-after-finished", "bfv-evacuation-delay"}
SKEW_TOLERANCE_MS = 2000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("analysis")
    ap.add_argument("--mix", default="")
    ap.add_argument("--report", action="store_true", help="print mismatches, exit 0")
    a = ap.parse_args()
    truth = json.load(open(a.truth))
    doc = json.load(open(a.analysis))
    if isinstance(truth, list):  # format 1: a list of recoveries
        truth = {"recoveries": truth, "hosts": None}
    tag = "[%s] " % a.mix if a.mix else ""
    bad = []
    recs = truth["recoveries"]

    # findings per notification
    findings = [f for f in doc.get("findings", []) if f.get("detector") in CLASSES]
    known = {r["notification_id"] for r in recs}
    ok = 0
    for r in recs:
        n = r["notification_id"]
        want = set(r.get("expected_detectors", [] if r["expected"] == "healthy" else [r["expected"]]))
        mine = [f for f in findings if f.get("notification_id") == n]
        got = {f["detector"] for f in mine}
        label = "notification %s (%s, host %s, %d instance(s))" % (n, r["expected"], r["failed_host"], len(r["instances"]))
        if got != want:
            bad.append("%s: expected %s, evacdoc found %s" % (label, sorted(want) or "nothing", sorted(got) or "nothing"))
            continue
        ok += 1
        for f in mine:
            if f["detector"] != r["expected"]:
                continue
            gi = set(f.get("instance_uuids") or [])
            wi = set(r.get("instances_concerned") or [])
            if wi and gi != wi:
                bad.append("%s: %s names %d instance(s), expected %d (%d missing, %d extra)" % (
                    label, f["detector"], len(gi), len(wi), len(wi - gi), len(gi - wi)))
    for f in findings:
        if f.get("notification_id") not in known:
            bad.append("finding %s on a notification not in the ground truth (%s)" % (f["detector"], f.get("notification_id")))
    print("%sground truth: %d/%d recoveries diagnosed as expected" % (tag, ok, len(recs)))

    # hosts
    hosts = doc.get("analysis", {}).get("hosts", [])
    names_of = {}
    for h in hosts:
        names_of[h.get("id")] = {h.get("hostname")} | set(h.get("aliases") or [])
    if truth.get("hosts") is not None:
        th = truth["hosts"]
        if len(hosts) != len(th):
            bad.append("hosts: evacdoc found %d, the bundle has %d" % (len(hosts), len(th)))
        all_names = set().union(*names_of.values()) if names_of else set()
        missing = [h["name"] for h in th if h["name"] not in all_names]
        if missing:
            bad.append("hosts: %d not found by name: %s" % (len(missing), ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")))
        print("%shosts: evacdoc %d, bundle %d" % (tag, len(hosts), len(th)))

        # clock offsets, where evacdoc reports an estimate: a pinned offset
        # (offset_ms not null) must be near the known difference, and every reported
        # interval must contain it. Names are matched by hostname before aliases
        # (the generator's aliases overlap between containers).
        off, by_alias = {}, {}
        for h in th:
            off[h["name"]] = h["clock_offset_s"] * 1000
            for n in h.get("aliases") or []:
                by_alias.setdefault(n, h["clock_offset_s"] * 1000)
        hostname_of = {h.get("id"): h.get("hostname") for h in hosts}

        def known(hid):
            name = hostname_of.get(hid)
            if name in off:
                return off[name]
            return next((by_alias[x] for x in sorted(names_of.get(hid, set())) if x in by_alias), None)

        n_sk = n_pinned = 0
        for s in doc.get("analysis", {}).get("skew", []) or []:
            ho, ro = known(s.get("host")), known(s.get("reference"))
            if ho is None or ro is None:
                continue
            n_sk += 1
            want = ho - ro
            label = "%s vs %s" % (hostname_of.get(s.get("host")), hostname_of.get(s.get("reference")))
            lo, hi = s.get("low_ms"), s.get("high_ms")
            # Interval ends are floored to the millisecond.
            if (lo is not None and lo > want + 1) or (hi is not None and hi + 1 < want):
                bad.append("clock: %s: interval %s..%s ms excludes the known %+d ms (%s)" % (
                    label, lo, hi, want, s.get("note")))
            if s.get("offset_ms") is not None:
                n_pinned += 1
                if abs(s["offset_ms"] - want) > SKEW_TOLERANCE_MS:
                    bad.append("clock: %s: evacdoc %+d ms (applied=%s), known %+d ms" % (
                        label, s["offset_ms"], s.get("applied"), want))
            elif s.get("applied"):
                bad.append("clock: %s: applied without a pinned offset" % label)
        print("%sclock: %d estimate(s) checked (%d pinned); hosts with known offsets: %s" % (
            tag, n_sk, n_pinned,
            ", ".join("%s %+gs" % (h["name"], h["clock_offset_s"]) for h in th if h["clock_offset_s"]) or "none"))

    for line in bad:
        print("%s  MISMATCH %s" % (tag, line))
    if bad and not a.report:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
