#!/usr/bin/env bash
# report.sh - every figure of bench/README.md in one run, for re-running on
# a quiet machine: the x ozz session on the best path (7 pairs) and with the
# avx2 and sse2 paths forced (5 pairs each), the full-character benchmark,
# and the growth table. Prints the date, `lscpu` model name and the load
# before each part, so the README can say under what load it was taken.
#
#   bench/report.sh [--build DIR] [--cpu N]     ./dev.sh bench --report [same]
#
# --cpu N pins both programs of every x ozz pair to CPU N (vs_ref.sh
# --cpu); the full character keeps both CPUs (it measures two threads).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-release
pin=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --cpu) pin=(--cpu "$2"); shift 2 ;;
    *) echo "usage: bench/report.sh [--build DIR] [--cpu N]" >&2; exit 2 ;;
    esac
done

stamp() { echo "== $1: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"; }

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target blendwerk-bench blendwerk-character-bench >/dev/null
echo "lscpu model name: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p')"
echo "compiler: $(${CC:-cc} --version | head -1)"
stamp "x ozz, best path"
bench/vs_ref.sh --build "$build" --pairs 7 "${pin[@]}"
stamp "x ozz, avx2 forced"
bench/vs_ref.sh --build "$build" --pairs 5 --simd avx2 "${pin[@]}"
stamp "x ozz, sse2 forced"
bench/vs_ref.sh --build "$build" --pairs 5 --simd sse2 "${pin[@]}"
stamp "full character"
"$build/bench/blendwerk-character-bench"
stamp "growth"
bench/growth.sh --build "$build"
stamp "end"
