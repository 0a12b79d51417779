#!/usr/bin/env bash
# Fails when a struct rig_errs (about 72 KiB, core/err.h) is declared by value
# inside a function body in the production sources: it belongs on the heap
# (rig_errs_new / rig_api__errs_new, freed with rig_errs_free). Members of a
# struct (a frame-range slot embeds one) and the definition itself are outside
# function bodies and pass. Function bodies are told apart the way the house
# style writes them: they open with "{" and close with "}" at column 0.
#   scripts/check-errs-heap.sh [dir...]   default: api core storage server
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(api core storage server)
found=$(find "${dirs[@]}" -name '*.c' -o -name '*.h' | sort | xargs awk '
	FNR == 1 { in_fn = 0 }
	/^\{[[:space:]]*$/ { in_fn = 1; next }
	/^\}/ { in_fn = 0; next }
	in_fn && /(^|[^A-Za-z0-9_])struct[[:space:]]+rig_errs[[:space:]]+[A-Za-z_]/ {
		print FILENAME ":" FNR ": " $0
	}')
if [ -n "$found" ]; then
	echo "struct rig_errs is about 72 KiB and never lives on the stack; use rig_errs_new()" \
	     "(or rig_api__errs_new(resp) in a handler) and rig_errs_free():" >&2
	echo "$found" >&2
	exit 1
fi
echo "no struct rig_errs on the stack in ${dirs[*]}"
