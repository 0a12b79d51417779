#!/usr/bin/env python3
"""The error codes' copies in openapi.yaml and docs/errors.md, generated from core/codes.h
(issue 22, item 4).

core/codes.h is the one table of codes: name, status, retryable and title. Three copies are
generated here from that table:
  - `x-error-codes` at the root of openapi.yaml: per code its status, retryable and title from
    codes.h, plus the facts that are the document's own and live only there: `emittedBy` (which
    routes and ops answer it), `alsoStatus` (another status it is sent with) and `reserved`
    (never sent);
  - the `ErrorCode` enum in openapi.yaml's components/schemas;
  - the markdown table of docs/errors.md (the text around it is written by hand).
  scripts/gen-openapi-codes.py          check: exit 1 naming each stale part (ctest openapi_codes)
  scripts/gen-openapi-codes.py --write  rewrite the stale parts in place
A code new in codes.h needs its `emittedBy` written into x-error-codes first (the check says so).
"""
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODES_H = os.path.join(ROOT, "core", "codes.h")
OPENAPI = os.path.join(ROOT, "openapi.yaml")
ERRORS_MD = os.path.join(ROOT, "docs", "errors.md")
TABLE_HEAD = "| code | status | retryable | title | emitted today by |\n"


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
    out = [TABLE_HEAD.rstrip("\n"), "| --- | --- | --- | --- | --- |"]
    for name, status, retryable, title in codes:
        d = docs[name]
        st = str(status)
        if d.get("alsoStatus"):
            st += " (" + ", ".join(str(s) for s in d["alsoStatus"]) + " via If-Match)"
        out.append(f"| `{name}` | {st} | {'yes' if retryable else 'no'} | {title} | "
                   f"{d['emittedBy']} |")
    return "\n".join(out) + "\n"


def enum(codes):
    return "".join(f"        - {name}\n" for name, *_ in codes)


def splice(text, parts):
    """text with each (what, match, group, new) part put in; the names of the parts that changed."""
    stale = []
    for what, m, group, new in sorted(parts, key=lambda p: p[1].start(p[2]), reverse=True):
        # From the end, so earlier offsets stay valid.
        start, end = m.start(group), m.end(group)
        if text[start:end] != new:
            stale.append(what)
            text = text[:start] + new + text[end:]
    return text, stale


def main():
    write = "--write" in sys.argv[1:]
    codes = read_codes()
    text = open(OPENAPI, encoding="utf-8").read()
    docs = yaml.safe_load(text).get("x-error-codes") or {}
    missing = [n for n, *_ in codes if n not in docs or not docs[n].get("emittedBy")]
    if missing:
        sys.exit("gen-openapi-codes: write emittedBy for " + ", ".join(missing) +
                 " in openapi.yaml's x-error-codes (the routes and ops that answer it)")
    md = open(ERRORS_MD, encoding="utf-8").read()
    found = {
        # x-error-codes: from its key to the next top-level key or the end.
        "x-error-codes": re.search(r"^x-error-codes:\n(?:(?:  .*)?\n)*", text, re.M),
        "the ErrorCode enum": re.search(
            r"^    ErrorCode:\n(?:      .*\n)*?      enum:\n((?:        - .*\n)+)", text, re.M),
        "the table of docs/errors.md": re.search(
            "^" + re.escape(TABLE_HEAD) + r"(?:\|.*\|\n)+", md, re.M),
    }
    for what, m in found.items():
        if not m:
            where = "docs/errors.md" if what.endswith("errors.md") else "openapi.yaml"
            sys.exit(f"gen-openapi-codes: cannot find {what} in {where}")
    text, stale = splice(text, [
        ("x-error-codes", found["x-error-codes"], 0, x_error_codes(codes, docs)),
        ("the ErrorCode enum", found["the ErrorCode enum"], 1, enum(codes)),
    ])
    md, stale_md = splice(md, [("the table of docs/errors.md",
                                found["the table of docs/errors.md"], 0, table(codes, docs))])
    stale += stale_md
    if write:
        if stale_md:
            open(ERRORS_MD, "w", encoding="utf-8").write(md)
        if len(stale) > len(stale_md):
            open(OPENAPI, "w", encoding="utf-8").write(text)
        print("gen-openapi-codes: " + ("rewrote " + ", ".join(stale) if stale else "up to date"))
        return 0
    if stale:
        print("gen-openapi-codes: stale from core/codes.h: " + ", ".join(stale) +
              "; run scripts/gen-openapi-codes.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
