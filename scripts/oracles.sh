#!/usr/bin/env bash
# Installs the npm test oracles pinned in tests/oracles/package-lock.json
# (spine-core 4.2, three.js, glTF-Validator) into tests/oracles/node_modules.
# Test tools only, never vendored; skipped when already installed at the
# lock's versions. scripts/test.sh runs it before ctest.
set -euo pipefail
cd "$(dirname "$0")/../tests/oracles"
stamp=node_modules/.rigd-lock
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "oracles: npm not found (scripts/install-deps.sh installs Node.js)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
cp package-lock.json "$stamp"
