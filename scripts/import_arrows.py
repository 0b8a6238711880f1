#!/usr/bin/env python3
"""The import arrows between the crate's top-level modules, checked against the floors
ARCHITECTURE.md's "Invariants" names: a module may import only modules on floors below
its own. Test code (files named tests.rs or *_tests.rs, tests/ folders, anything after a
`#[cfg(test)]` line) and comments are not counted: tests may reach up for real helpers.

Usage: scripts/import_arrows.py [SRC]   (exit 1 and the offending lines on an arrow up)
"""
import os
import re
import sys

# Bottom first. A module imports only modules on floors below its own, so no circle
# between modules can form.
FLOORS = [
    ["model", "memory", "visible", "panics", "openstack"],
    ["ingest", "blobs"],
    ["correlate"],
    ["detect"],
    ["triage"],
    ["redact"],
    ["run"],
    ["watch", "redacted_copy", "index", "store"],
    ["trigger"],
    ["recovery", "jobs"],
    ["share"],
    ["sim", "http"],
    ["cli"],
]
FLOOR = {m: i for i, names in enumerate(FLOORS) for m in names}
USE = re.compile(r"crate::([a-z_]+)")


def code_lines(path):
    """The non-test, non-comment lines of a file."""
    base = os.path.basename(path)
    if base == "tests.rs" or base.endswith("_tests.rs") or "/tests/" in path:
        return
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip().startswith("#[cfg(test)]"):
                return
            if line.lstrip().startswith("//"):
                continue
            yield n, line


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    up = []
    arrows = {}
    for top in sorted(os.listdir(src)):
        module = top[:-3] if top.endswith(".rs") else top
        if module not in FLOOR:
            continue
        root = os.path.join(src, top)
        files = [root] if top.endswith(".rs") else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".rs")
        ]
        for path in sorted(files):
            for n, line in code_lines(path):
                for target in USE.findall(line):
                    if target == module or target not in FLOOR:
                        continue
                    arrows.setdefault((module, target), 0)
                    arrows[(module, target)] += 1
                    if FLOOR[target] >= FLOOR[module]:
                        up.append(f"{path}:{n}: {module} -> {target}: {line.strip()}")
    for (a, b), count in sorted(arrows.items()):
        print(f"{a} -> {b} ({count})")
    if up:
        print(f"\n{len(up)} imports do not run down a floor:")
        print("\n".join(up))
        sys.exit(1)
    print(f"\n{len(arrows)} arrows, all down a floor")


if __name__ == "__main__":
    main()
