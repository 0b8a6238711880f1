#!/usr/bin/env python3
"""List the Rust functions longer than N lines under a folder, longest first.

Usage: fn_lengths.py FOLDER [--min N]   (default N = 80)

A function's length counts from its `fn` line to its closing brace, both included
(doc comments and attributes above it are not counted). Braces inside strings, raw
strings, char literals and comments are skipped, so a `"{"` in a format string does not
throw the count off. Exits 1 when any function is longer than N, so it can guard CI.
"""

import argparse
import pathlib
import re
import sys

FN_START = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
    r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)"
)


def code_only(text):
    """The source with strings, chars and comments blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif raw := re.match(r'b?r(#*)"', text[i:i + 260]):
            if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
                out.append(c)
                i += 1
                continue
            close = '"' + raw.group(1)
            j = text.find(close, i + raw.end())
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            # a char literal ('x', '\n', '\u{1F600}') or a lifetime ('a): only blank chars
            lit = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if lit:
                out.append(" " * lit.end())
                i += lit.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, length) of each fn with a body in `path`."""
    lines = code_only(path.read_text(encoding="utf-8")).split("\n")
    found = []
    for start, line in enumerate(lines):
        m = FN_START.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            for ch in lines[end]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break  # a declaration without a body (trait method)
            else:
                if opened and depth == 0:
                    found.append((m.group(1), start + 1, end - start + 1))
                    break
                continue
            break
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--min", type=int, default=80, help="list fns longer than this")
    args = parser.parse_args()
    root = pathlib.Path(args.folder)
    rows = []
    for path in sorted(root.rglob("*.rs")):
        for name, line, length in functions(path):
            rows.append((length, f"{path}:{line}", name))
    rows.sort(key=lambda r: (-r[0], r[1]))
    long = [r for r in rows if r[0] > args.min]
    for length, place, name in long:
        print(f"{length:5}  {place}  {name}")
    longest = rows[0] if rows else (0, "-", "-")
    print(f"{len(long)} fns longer than {args.min} lines in {root} "
          f"({len(rows)} fns; longest {longest[0]}: {longest[2]} at {longest[1]})")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
