#!/bin/sh
# exported_symbols.sh MODULE HEADER_DIR [core]
# The shared objects Blendwerk builds export the public C API and nothing
# else: every defined dynamic symbol (other than the toolchain's own,
# which start with '_') must be luaopen_blendwerk or a function or object
# declared BW_API in a public header, and the public API must be there.
# With `core` (libblendwerk.so) luaopen_blendwerk is not expected.
# Exits 77 (a skipped ctest) while no public header declares with BW_API.
set -eu
module=$1
headers=$2
kind=${3:-module}
if ! grep -q '^BW_API ' "$headers"/*.h; then
    echo "no declaration in $headers is marked BW_API yet: skipped" >&2
    exit 77
fi
public=$(mktemp)
exported=$(mktemp)
trap 'rm -f "$public" "$exported"' EXIT
# declared names: "BW_API <type> [*]bw_name(" or "BW_API extern const <type> bw_name;"
grep -ho 'BW_API[^(;]*\<bw_[a-z0-9_]*[(;]' "$headers"/*.h | grep -o 'bw_[a-z0-9_]*[(;]$' | tr -d '(;' | sort -u >"$public"
echo luaopen_blendwerk >>"$public"
nm -D --defined-only "$module" | awk '{print $NF}' | grep -v '^_' | sort -u >"$exported"
count=$(wc -l <"$public")
if [ "$count" -lt 50 ]; then
    echo "only $count public names found in $headers: is BW_API missing?" >&2
    exit 1
fi
extra=$(comm -13 "$public" "$exported")
if [ -n "$extra" ]; then
    echo "exported but not public API:" >&2
    echo "$extra" >&2
    exit 1
fi
must_list="bw_rig_create bw_mix_run bw_asset_load_file"
[ "$kind" = core ] || must_list="luaopen_blendwerk $must_list"
for must in $must_list; do
    grep -qx "$must" "$exported" || { echo "$must is not exported" >&2; exit 1; }
done
echo "$(wc -l <"$exported") exported symbols, all public API"
