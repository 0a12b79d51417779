#!/usr/bin/env bash
# Installs the Debian 12 packages rigd needs. The one list of them: deploy/Containerfile
# runs this script (--build) and scripts/check-deploy.sh checks that it does.
#   scripts/install-deps.sh                  build, test, benchmark and lint (test.sh, serve.sh)
#   scripts/install-deps.sh --build          only what building rigd, mesh-data and rigctl
#                                            needs (cmake -DRIG_BUILD_TESTS=OFF -DRIG_BUILD_BENCH=OFF)
#   scripts/install-deps.sh --list [--build] print the package names, one a line; install nothing
# python3-yaml converts openapi.yaml to JSON at build time (GET /v1/openapi.json); nettle-dev
# is SHA-256 and HMAC (api/util/sha256.h); libsuitesparse-dev is AMD and LDL, the puppet's sparse
# factorisation (core/sparse.h); libgeos-dev the silhouette tessellation's geometry
# (core/tessellate.h), libspng-dev its coverage images (core/png_alpha.h). python3-numpy and python3-scipy run the puppet's oracle test.
# Idempotent; uses sudo when not root.
set -euo pipefail
build_pkgs=(build-essential cmake pkg-config
            libmicrohttpd-dev libjansson-dev libsqlite3-dev libuv1-dev libcurl4-openssl-dev
            nettle-dev libsuitesparse-dev libgeos-dev libspng-dev
            python3 python3-yaml)
# Criterion for the unit tests, clang for the second build and the fuzzers, sqlite3 and openssl
# for test fixtures, curl and jq for the README's examples (tests/e2e/test_readme_examples.py).
# python3-numpy and python3-scipy for the independent reference math of the tests
# (test_skin_dqs.py, the puppet's oracle).
test_pkgs=(git libcriterion-dev sqlite3 clang clang-format libclang-rt-14-dev openssl curl jq
           python3-numpy python3-scipy)
build_only=0 list=0
for arg in "$@"; do
  case "$arg" in
    --build) build_only=1 ;;
    --list) list=1 ;;
    *) echo "usage: $0 [--build] [--list]" >&2; exit 2 ;;
  esac
done
pkgs=("${build_pkgs[@]}")
[ "$build_only" = 1 ] || pkgs+=("${test_pkgs[@]}")
if [ "$list" = 1 ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The OpenAPI linter runs with npx; Debian's Node.js only when none is present.
[ "$build_only" = 1 ] || command -v npx >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
