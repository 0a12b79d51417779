#!/usr/bin/env bash
# Installs the Debian 12 packages rigd needs to build, test and benchmark.
# python3-yaml converts openapi.yaml to JSON at build time (GET /v1/openapi.json).
# Idempotent; uses sudo when not root.
set -euo pipefail
pkgs=(build-essential cmake pkg-config git
      libmicrohttpd-dev libjansson-dev libsqlite3-dev libuv1-dev libcurl4-openssl-dev
      libcriterion-dev python3 python3-yaml sqlite3 clang clang-format libclang-rt-14-dev openssl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The OpenAPI linter runs with npx; Debian's Node.js only when none is present.
command -v npx >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
