#!/usr/bin/env python3
"""A binding kind lives in its own files (issue 22, docs/architecture.md "A new binding
kind"): outside them and the registry, no code names the kind's rows or types.

For every kind of RIG_BINDING_KINDS (core/binding.h) and every kind of the test build's
registry (tests/kinds/binding_tables.c), the names checked are its rows,
rig_binding_<kind>, rig_binding_kind_<kind> and rig_binding_codec_<kind>, and the types
OWN lists below (its definition struct, its evaluator). A file may name them only when it
is one of the kind's own files listed below or a registry file. Comments are not code:
they may say "a skin's weights". Production kinds are looked for in the server's and the
clients' sources; a kind only the tests have is looked for everywhere (tests/ and bench/
included), so nothing but its own files knows it.

One kind may carry another's definition inside its own (issue 24 item 6: a skin's pins are a
puppet's, skin.puppet): CARRIES names, per carrying kind, the kind carried and the carrier's own
files that may name the carried kind's types (never its rows: the carrier reaches the carried
math through the types' functions, not through the binding table).

The lists are exact: a kind without an entry, an entry without a kind, or a listed file
that does not exist fails the check too, so the lists stay the truth the architecture
document repeats. Prints every violation as file:line; exit 1 if any.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The registry: where a kind is listed (and its rows gathered into the tables).
REGISTRY = [
    "core/binding.h",            # RIG_BINDING_KINDS: one X(kind) per kind
    "core/binding_table.c",      # the core table, generated from it
    "api/edit/binding.h",        # the edit rows' declarations, generated from it
    "api/edit/binding_table.c",  # the edit table, generated from it
    "tests/kinds/binding_tables.c",  # rigd-testkinds' tables: the list plus the test kinds
]

# Each kind's own files and the types only they may name.
OWN = {
    "skin": {
        "types": ["rig_skin_def", "rig_skin"],
        "files": [
            "core/skin.h", "core/skin.c",        # the math: definition, rules, evaluator
            "core/skin_binding.c",               # its core row and diff parts
            "core/weight_brush.h", "core/weight_brush.c",  # painting its weights (issue 25)
            "api/edit/ops_weights_auto.c",  # its authoring ops (issue 25)
            "api/edit/skin_binding.c",           # its edit row
            "api/edit/ops_skin.h",               # what its op files share
            "api/edit/ops_skin.c", "api/edit/ops_skin_weights.c",
            "api/edit/ops_skin_joints.c",        # its ops
            "api/handlers/skin.c", "api/handlers/skin_eval.c",  # its own routes
            "api/interchange/rig2d_export.c",    # .rig2d.json holds skins only (issue 26)
            "api/interchange/spine_export.c",    # Spine's weighted meshes are skins
            "api/interchange/gltf_export.c",     # glTF skins (issue 26)
            "storage/sqlite/skin_codec.c",       # its codec of its own (the skins table)
            "storage/skin_bytes.h", "storage/skin_bytes.c",  # its stored bytes, every backend's
        ],
    },
    "mesh": {
        "types": ["rig_mesh_def", "rig_mesh_eval"],
        "files": [
            "core/mesh_binding.h", "core/mesh_binding.c",  # the math, its core row
            "api/edit/ops_mesh.c",                         # its ops and edit row
            "api/edit/ops_bake.c",                         # every bake writes one
            "api/interchange/gltf_export.c",               # glTF morph targets (issue 26)
        ],
    },
    "puppet": {
        "types": ["rig_puppet_def", "rig_puppet"],
        "files": [
            "core/puppet.h", "core/puppet_impl.h",              # the definition, the evaluator
            "core/puppet.c", "core/puppet_weights.c",           # rules; harmonic weights
            "core/puppet_solve.c", "core/puppet_eval.c",        # LBS, ARAP, overlap; per frame
            "core/puppet_binding.c",                            # its core row and stored form
            "api/edit/puppet_binding.c",                        # its ops and edit row
            "api/edit/pins.h",                                  # its pins on the wire, shared
        ],
    },
    "ribbon": {
        "types": ["rig_ribbon_def", "ribbon_eval"],
        "files": [
            "core/ribbon.h", "core/ribbon.c",    # the definition, rules, generation
            "core/ribbon_binding.c",             # its core row and stored form
            "api/edit/ribbon_binding.c",         # its ops and edit row
        ],
    },
    # Only in the tests: rigd-testkinds (tests/kinds/CMakeLists.txt).
    "offset": {
        "types": ["rig_offset_def", "offset_eval"],
        "files": ["tests/kinds/offset.h", "tests/kinds/offset.c", "tests/kinds/offset_ops.c"],
        "test_only": True,
    },
}

# Kinds carrying another's definition: carrier -> {carried: [the carrier's files naming its types]}.
CARRIES = {
    "skin": {
        "puppet": [
            "core/skin.h", "core/skin.c",      # skin.puppet in the definition, the pins' evaluator
            "core/skin_binding.c",             # the pins' diff parts
            "storage/skin_bytes.c",            # the pins' trailer of the joints part
            "api/edit/ops_skin.c",             # layer.skin's skin.puppet
            "api/edit/skin_binding.c",         # the pins accessor, pins and pinWeights collections
            "api/handlers/skin.c",             # GET ...skin returns skin.puppet
            "api/handlers/skin_eval.c",        # POST /v1/skin/evaluate with skin.puppet
        ],
    },
}

PRODUCTION = ("core/", "storage/", "api/", "server/", "clients/", "version/")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def kinds_listed(path, macro):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    m = re.search(r"#define\s+" + macro + r"\(X\)(.*)", text)
    if not m:
        return None
    return re.findall(r"\bX\((\w+)\)", m.group(1))


def sources():
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    # files added but not yet committed count too
    extra = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "*.c", "*.h"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return sorted(set(out + extra))


def code_lines(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read()
    # blank comments, keeping their newlines so line numbers hold
    text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text.splitlines()


def main():
    problems = []
    production = kinds_listed("core/binding.h", "RIG_BINDING_KINDS")
    tests = kinds_listed("tests/kinds/binding_tables.c", "TEST_KINDS")
    if production is None or tests is None:
        print("check-kind-names: cannot read RIG_BINDING_KINDS or TEST_KINDS")
        return 1
    tests = [k for k in tests if k not in production]
    for k in production + tests:
        if k not in OWN:
            problems.append(f"kind '{k}' is registered but has no entry in OWN "
                            f"(list its own files in scripts/check-kind-names.py)")
    for k, own in OWN.items():
        if k not in production + tests:
            problems.append(f"OWN lists kind '{k}', which no registry has")
        if bool(own.get("test_only")) != (k in tests):
            problems.append(f"kind '{k}': test_only does not match its registry")
        for f in own["files"]:
            if not os.path.exists(os.path.join(ROOT, f)):
                problems.append(f"OWN['{k}'] lists {f}, which does not exist")
    for carrier, carried in CARRIES.items():
        for k, files in carried.items():
            if carrier not in OWN or k not in OWN:
                problems.append(f"CARRIES['{carrier}'] names a kind without an OWN entry")
                continue
            for f in files:
                if f not in OWN[carrier]["files"]:
                    problems.append(f"CARRIES['{carrier}']['{k}'] lists {f}, "
                                    f"which is not one of {carrier}'s own files")
    for f in REGISTRY:
        if not os.path.exists(os.path.join(ROOT, f)):
            problems.append(f"REGISTRY lists {f}, which does not exist")

    patterns, rows = {}, {}
    for k, own in OWN.items():
        names = [f"rig_binding_{k}", f"rig_binding_kind_{k}", f"rig_binding_codec_{k}"]
        rows[k] = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
        names += own["types"]
        patterns[k] = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")

    files = sources()
    n_checked = 0
    for path in files:
        lines = None
        for k, own in OWN.items():
            if path in own["files"] or path in REGISTRY:
                continue
            if not own.get("test_only") and not path.startswith(PRODUCTION):
                continue
            if lines is None:
                lines = code_lines(path)
                n_checked += 1
            carrying = any(path in carried.get(k, [])
                           for carried in CARRIES.values())
            pattern = rows[k] if carrying else patterns[k]
            for i, line in enumerate(lines, 1):
                for m in pattern.finditer(line):
                    problems.append(f"{path}:{i}: names {m.group(1)}, which belongs to kind "
                                    f"'{k}' (its own files and the registry only)")
    for p in problems:
        print(p)
    print(f"check-kind-names: {len(production)} production kind(s), {len(tests)} test kind(s), "
          f"{n_checked} files read, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
