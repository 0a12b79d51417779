#!/usr/bin/env bash
# Fails when a C source differs from what clang-format makes of it under
# .clang-format, naming each file. The formatting of a given file depends on
# clang-format's version, so the check runs with the version CI installs
# (Debian 12's clang-format 14) and skips (exit 77) with any other.
#   scripts/check-format.sh            check
#   scripts/check-format.sh --fix      reformat in place
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found (./scripts/install-deps.sh installs it)"; exit 77
fi
major=$("$cf" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "check-format: $cf is version $major; the house format is clang-format 14's"; exit 77
fi
files=$(git ls-files '*.c' '*.h' | grep -v '^api/util/dtoa_tables.h$' | grep -v '^tests/tsan/criterion/')
if [ "${1:-}" = --fix ]; then
  printf '%s\n' $files | xargs "$cf" -i
  exit 0
fi
bad=0
for f in $files; do
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "$f: not formatted (clang-format -i $f)"; bad=1
  fi
done
exit $bad
