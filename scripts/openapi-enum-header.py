#!/usr/bin/env python3
"""Writes a C header holding the values of one string enum of openapi.yaml, so a client
learns names the server defines (the mesh-data collections of the binding kinds' rows)
from the contract rather than from the server's code, which clients/ may not include.
Run at build time by clients/CMakeLists.txt:

    openapi-enum-header.py INPUT.yaml SCHEMA PREFIX OUTPUT.h

writes PREFIX_NAMES (the values as a list of string literals, in the contract's order),
PREFIX_COUNT and PREFIX_TEXT ("a, b or c"). Needs PyYAML, as openapi-to-json.py does.
test_openapi_sync.py checks that the server answers exactly the enum's values.
"""
import os
import sys

import yaml

from gen_output import write_if_changed


def main():
    src, schema, prefix, out = sys.argv[1:5]
    with open(src, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    values = doc["components"]["schemas"][schema]["enum"]
    if not values or not all(isinstance(v, str) and v.isidentifier() for v in values):
        sys.exit(f"{src}: {schema} is not an enum of plain names")
    text = ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]
    guard = "RIG_" + os.path.basename(out).upper().replace(".", "_").replace("-", "_")
    c = (f"/* Generated from openapi.yaml's {schema} by scripts/openapi-enum-header.py; do not\n"
         " * edit. */\n"
         f"#ifndef {guard}\n#define {guard}\n\n"
         f"#define {prefix}_NAMES " + ", ".join(f'"{v}"' for v in values) + "\n"
         f"#define {prefix}_COUNT {len(values)}\n"
         f'#define {prefix}_TEXT "{text}"\n\n#endif\n')
    write_if_changed(out, c)


if __name__ == "__main__":
    main()
