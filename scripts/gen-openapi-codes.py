#!/usr/bin/env python3
"""The error codes' parts of openapi.yaml, generated from core/codes.h (issue 22, item 4).

core/codes.h is the one table of codes: name, status, retryable and title. openapi.yaml repeats
them three times, each generated here from that table:
  - `x-error-codes` at the root: per code its status, retryable and title from codes.h, plus the
    facts that are the document's own and live only there: `emittedBy` (which routes and ops
    answer it), `alsoStatus` (another status it is sent with) and `reserved` (never sent);
  - the markdown table under `## Error codes` in info.description;
  - the `ErrorCode` enum in components/schemas.
  scripts/gen-openapi-codes.py          check: exit 1 naming each stale part (ctest openapi_codes)
  scripts/gen-openapi-codes.py --write  rewrite the three parts in place
A code new in codes.h needs its `emittedBy` written into x-error-codes first (the check says so).
"""
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODES_H = os.path.join(ROOT, "core", "codes.h")
OPENAPI = os.path.join(ROOT, "openapi.yaml")


def read_codes():
    """[(name, status, retryable, title)] in table order."""
    text = open(CODES_H, encoding="utf-8").read()
    rows = re.findall(r'X\((\w+), (\d{3}), (true|false), "((?:[^"\\]|\\.)*)"', text)
    if not rows:
        sys.exit("gen-openapi-codes: no X(...) rows in core/codes.h")
    return [(n, int(s), r == "true", t.replace('\\"', '"')) for n, s, r, t in rows]


def quoted(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def x_error_codes(codes, docs):
    out = ["x-error-codes:"]
    for name, status, retryable, title in codes:
        d = docs[name]
        out.append(f"  {name}:")
        out.append(f"    status: {status}")
        if d.get("alsoStatus"):
            out.append(f"    alsoStatus: [{', '.join(str(s) for s in d['alsoStatus'])}]")
        out.append(f"    retryable: {'true' if retryable else 'false'}")
        out.append(f"    title: {quoted(title)}")
        out.append(f"    emittedBy: {quoted(d['emittedBy'])}")
        if d.get("reserved"):
            out.append("    reserved: true")
    return "\n".join(out) + "\n"


def table(codes, docs):
    out = ["    | code | status | retryable | title | emitted today by |",
           "    | --- | --- | --- | --- | --- |"]
    for name, status, retryable, title in codes:
        d = docs[name]
        st = str(status)
        if d.get("alsoStatus"):
            st += " (" + ", ".join(str(s) for s in d["alsoStatus"]) + " via If-Match)"
        out.append(f"    | `{name}` | {st} | {'yes' if retryable else 'no'} | {title} | "
                   f"{d['emittedBy']} |")
    return "\n".join(out) + "\n"


def enum(codes):
    return "".join(f"        - {name}\n" for name, *_ in codes)


def main():
    write = "--write" in sys.argv[1:]
    codes = read_codes()
    text = open(OPENAPI, encoding="utf-8").read()
    docs = yaml.safe_load(text).get("x-error-codes") or {}
    missing = [n for n, *_ in codes if n not in docs or not docs[n].get("emittedBy")]
    if missing:
        sys.exit("gen-openapi-codes: write emittedBy for " + ", ".join(missing) +
                 " in openapi.yaml's x-error-codes (the routes and ops that answer it)")
    parts = []
    # x-error-codes: from its key to the next top-level key or the end.
    m = re.search(r"^x-error-codes:\n(?:(?:  .*)?\n)*", text, re.M)
    parts.append(("x-error-codes", m, x_error_codes(codes, docs)))
    m = re.search(r"^    \| code \| status \| retryable \| title \| emitted today by \|\n"
                  r"(?:    \|.*\|\n)+", text, re.M)
    parts.append(("the error table in info.description", m, table(codes, docs)))
    m = re.search(r"^    ErrorCode:\n(?:      .*\n)*?      enum:\n((?:        - .*\n)+)", text, re.M)
    parts.append(("the ErrorCode enum", m, enum(codes)))
    stale = []
    for what, m, new in parts:
        if not m:
            sys.exit(f"gen-openapi-codes: cannot find {what} in openapi.yaml")
    # Replace from the end so earlier offsets stay valid.
    spans = []
    for what, m, new in parts:
        group = 1 if what == "the ErrorCode enum" else 0
        spans.append((m.start(group), m.end(group), what, new))
    for start, end, what, new in sorted(spans, reverse=True):
        if text[start:end] != new:
            stale.append(what)
            text = text[:start] + new + text[end:]
    if write:
        open(OPENAPI, "w", encoding="utf-8").write(text)
        print("gen-openapi-codes: " + ("rewrote " + ", ".join(stale) if stale else "up to date"))
        return 0
    if stale:
        print("gen-openapi-codes: openapi.yaml is stale from core/codes.h: " + ", ".join(stale) +
              "; run scripts/gen-openapi-codes.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
