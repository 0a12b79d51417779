#!/usr/bin/env python3
"""Writes a C file holding openapi.yaml converted to JSON, so GET /v1/openapi.json
serves the same contract as GET /v1/openapi.yaml without a YAML parser in rigd.
Run at build time by api/CMakeLists.txt: openapi-to-json.py INPUT.yaml OUTPUT.c

Needs PyYAML (Debian's python3-yaml). Keys keep the document's order; a value
JSON cannot hold (a YAML date, say) fails the build rather than serving a
different document.
"""
import json
import sys

import yaml

from gen_output import write_if_changed


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    body = text.encode("utf-8")
    lines = []
    for i in range(0, len(body), 24):
        lines.append("".join(f"0x{b:02x}," for b in body[i:i + 24]))
    c = ("/* Generated from openapi.yaml by scripts/openapi-to-json.py; do not edit. */\n"
         "#include <stddef.h>\n"
         "const char rig_openapi_json[] = {\n" + "\n".join(lines) + "0};\n"
         f"const size_t rig_openapi_json_len = {len(body)};\n")
    write_if_changed(out, c)


if __name__ == "__main__":
    main()
