#!/usr/bin/env python3
"""The module graph of docs/architecture.md, checked: which folder may include
which, and no cycle between files.

A file's unit is its path without the extension (api/edit/batch.c and
api/edit/batch.h are one unit); unit A depends on unit B when a file of A
includes B's header. Two rules:
  1. Layers: each folder lists the folders it may include (below). In
     particular api/edit and api/eval include nothing from api/http or
     api/handlers: the edit pipeline and evaluation return data, and only
     handlers build responses.
  2. No cycle between units (Tarjan's strongly connected components).
Prints every violation with the include line that causes it; exit 1 if any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# folder -> folders its files may include (its own is always allowed)
ALLOWED = {
    "core": [],
    "storage": ["core"],  # the interface and what every backend shares
    "api/util": ["core"],
    "api/eval": ["core", "storage", "api/util", "api"],
    "api/edit": ["core", "storage", "api/util", "api", "api/interchange"],
    # documents of other tools to ops and back: pure conversions of data
    "api/interchange": ["core", "storage", "api/util"],
    "api/http": ["core", "storage", "api/util", "api", "api/edit"],
    "api/handlers": ["core", "storage", "api/util", "api", "api/edit", "api/eval", "api/http",
                     "api/interchange"],
    "api": ["core", "storage", "api/util", "api/edit", "api/eval", "api/http", "api/handlers"],
    "server": ["core", "storage", "api", "api/http", "api/util", "version"],
    "clients": ["version"],
    "version": [],  # the build's version and commit, for --version
}
# Every folder of storage/ is a backend (storage/sqlite/ is SQLite's): it
# implements storage/*.h and includes only core/ and storage/, never another
# backend. A new backend's folder is checked as soon as it exists.
BACKENDS = sorted(d for d in os.listdir(os.path.join(ROOT, "storage"))
                  if os.path.isdir(os.path.join(ROOT, "storage", d)))
for backend in BACKENDS:
    ALLOWED["storage/" + backend] = ["core", "storage"]

# From api/ itself the folders below it may include only context.h (the shared
# context, a declaration); app.h and app.c are the wiring, for the server.
APP_HEADER_ONLY = {"api/edit", "api/eval", "api/http", "api/handlers", "api/interchange"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    return os.path.dirname(path)


def sources():
    for top in ALLOWED:
        base = os.path.join(ROOT, top)
        for name in sorted(os.listdir(base)):
            if name.endswith((".c", ".h")):
                yield os.path.join(top, name)


def main():
    problems = []
    graph = {}
    where = {}
    for path in sources():
        unit = os.path.splitext(path)[0]
        graph.setdefault(unit, set())
        text = open(os.path.join(ROOT, path), encoding="utf-8").read()
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if not os.path.exists(os.path.join(ROOT, target)):
                if "/" not in target:
                    problems.append(f"{path}:{line}: include \"{target}\" is not qualified from the project root")
                continue
            src_folder, dst_folder = folder_of(path), folder_of(target)
            dst_unit = os.path.splitext(target)[0]
            if dst_unit == unit:
                continue
            if dst_folder != src_folder:
                allowed = ALLOWED.get(src_folder, [])
                if dst_folder not in allowed:
                    problems.append(f"{path}:{line}: {src_folder}/ may not include {target}")
                elif dst_folder == "api" and src_folder in APP_HEADER_ONLY and target != "api/context.h":
                    problems.append(f"{path}:{line}: {src_folder}/ may include only api/context.h from api/")
            graph[unit].add(dst_unit)
            where.setdefault((unit, dst_unit), f"{path}:{line}")
    problems += cycles(graph, where)
    for p in problems:
        print(p)
    print(f"check-layers: {len(graph)} units, {sum(len(v) for v in graph.values())} dependencies, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


def cycles(graph, where):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comp.sort()
                edges = [where[(a, b)] for a in comp for b in comp if (a, b) in where]
                out.append("cycle between " + ", ".join(comp) + " (via " + "; ".join(edges) + ")")

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
