#!/usr/bin/env bash
# growth.sh - cost per joint as the rig and the crowd grow: blendwerk-bench
# --only NAME at 16, 64 and 256 joints and 10, 100, 1,000 and 10,000
# characters, printed as a markdown table (ns per joint, median of the
# clean blocks). Each cell is its own run of the one measurement.
#
#   bench/growth.sh [--build DIR] [NAME...]     (default: pipe4 sample1_fwd l2m)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-release
if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(pipe4 sample1_fwd l2m)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target blendwerk-bench >/dev/null
bench=$build/bench/blendwerk-bench
echo "simd path: $("$bench" --quick --characters 1 --only l2m | sed -n 's/.*simd path \([a-z0-9]*\).*/\1/p'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${names[@]}"; do
    echo
    echo "\`$name\`, ns per joint"
    echo
    echo "| joints | 10 chars | 100 chars | 1,000 chars | 10,000 chars |"
    echo "|---|---|---|---|---|"
    for joints in 16 64 256; do
        row="| $joints |"
        for chars in 10 100 1000 10000; do
            v=$("$bench" --quick --joints "$joints" --characters "$chars" --only "$name" |
                sed -n "s/^$name median_ns=\([0-9.]*\).*/\1/p")
            row="$row $v |"
        done
        echo "$row"
    done
done
