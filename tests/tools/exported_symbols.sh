#!/bin/sh
# exported_symbols.sh MODULE HEADER_DIR
# The shared objects Blendwerk builds export the public C API and nothing
# else: every defined dynamic symbol (other than the toolchain's own,
# which start with '_') must be luaopen_blendwerk or a function or object
# declared BW_API in a public header, and the public API must be there.
set -eu
module=$1
headers=$2
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
for must in luaopen_blendwerk bw_rig_create bw_mix_run bw_asset_load_file; do
    grep -qx "$must" "$exported" || { echo "$must is not exported" >&2; exit 1; }
done
echo "$(wc -l <"$exported") exported symbols, all public API"
