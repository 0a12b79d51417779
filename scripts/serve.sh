#!/usr/bin/env bash
# The README's first command: install packages, build, and start rigd on the
# embedded default (./rigd.db, 127.0.0.1:8080). Extra arguments go to rigd,
# e.g. ./scripts/serve.sh --listen 127.0.0.1:9000 --db /tmp/demo.db
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target rigd
exec ./build/server/rigd "$@"
