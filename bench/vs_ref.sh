#!/usr/bin/env bash
# vs_ref.sh - Blendwerk's benchmark against the ozz-animation yardstick
# (../shared/bench-ref): builds ref_bench into the build folder (never into
# the repository), runs it and blendwerk-bench alternately in PAIRS pairs,
# takes per measurement the median over pairs of t_blendwerk / t_ref, and
# divides by R = t_ozz / t_ref from the yardstick's README for this CPU,
# which gives the time as a multiple of ozz-animation 0.16's.
#
#   bench/vs_ref.sh [--pairs N] [--simd PATH] [--cpu N] [--build DIR] [--against BENCH] [-- BENCH_ARGS...]
#   ./dev.sh bench --vs-ref [same options]
#
# --simd forces a kernel path (BW_SIMD=portable|sse2|avx2|avx512) in both
# programs; the default is what the CPU has. --cpu N runs both programs on
# CPU N only (taskset): on a shared host one vCPU can run markedly slower
# than the other for minutes at a time, and a pair whose two programs
# landed on different vCPUs compares the vCPUs, not the programs. Both
# programs run with --quick unless BENCH_ARGS are given. A CPU with no
# calibration in the README gets its ratios to ref_bench and, marked as an
# estimate, × ozz through the nearest calibrated CPU's R.
#
# --against BENCH pairs this build's blendwerk-bench with another one
# (BENCH: say, another checkout's build-release/bench/blendwerk-bench)
# instead of ref_bench, in the same alternating pairs, and reports each
# measurement as the median of the per-pair ratios t_this / t_other: the
# side-by-side of two versions of the code, without ref_bench's own noise
# in between (no × ozz).
set -euo pipefail
cd "$(dirname "$0")/.."

pairs=5
simd=
cpu=
against=
build=build-release
args=(--quick)
while [ $# -gt 0 ]; do
    case "$1" in
    --pairs) pairs=$2; shift 2 ;;
    --simd) simd=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --against) against=$2; shift 2 ;;
    --) shift; args=("$@"); break ;;
    *) echo "usage: bench/vs_ref.sh [--pairs N] [--simd PATH] [--cpu N] [--build DIR] [--against BENCH] [-- BENCH_ARGS...]" >&2; exit 2 ;;
    esac
done
[ "$pairs" -ge 5 ] 2>/dev/null || { echo "vs_ref.sh: at least 5 pairs (the yardstick's rule)" >&2; exit 2; }
pin=()
if [ -n "$cpu" ]; then
    command -v taskset >/dev/null || { echo "vs_ref.sh: --cpu needs taskset (util-linux)" >&2; exit 1; }
    taskset -c "$cpu" true 2>/dev/null || { echo "vs_ref.sh: --cpu $cpu: no such CPU here" >&2; exit 2; }
    pin=(taskset -c "$cpu")
fi
if [ -n "$against" ]; then
    [ -x "$against" ] || { echo "vs_ref.sh: --against $against: not an executable" >&2; exit 2; }
    other=$against
else
    ref_src=../shared/bench-ref/ref_bench.c
    [ -f "$ref_src" ] || { echo "vs_ref.sh: $ref_src not found" >&2; exit 1; }
    other=$build/ref/ref_bench
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target blendwerk-bench >/dev/null
if [ -z "$against" ]; then
    mkdir -p "$build/ref"
    # exactly the yardstick README's command, output in the build folder
    gcc -O2 -std=c11 -o "$build/ref/ref_bench" "$ref_src" -lm
fi
[ -n "$simd" ] && export BW_SIMD=$simd

# ---- which calibration ----
vendor=$(awk -F': ' '/^vendor_id/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
family=$(awk -F': ' '/^cpu family/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
model=$(awk -F': ' '/^model\t/ || /^model[ ]*:/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
model_name=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
calib=none
if [ "$vendor" = AuthenticAMD ] && [ "$family" = 25 ]; then calib=zen4
elif [ "$vendor" = GenuineIntel ] && [ "$family" = 6 ] && { [ "$model" = 106 ] || [ "$model" = 108 ]; }; then calib=icelake
fi
estimate=$calib
[ "$calib" = none ] && { [ "$vendor" = GenuineIntel ] && estimate=icelake || estimate=zen4; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "vs_ref: $pairs pairs, ${against:-ref_bench} ${args[*]} / blendwerk-bench ${args[*]}${simd:+ (BW_SIMD=$simd)}"
echo "cpu: $model_name ($vendor family $family model $model), load: $(cut -d' ' -f1-3 /proc/loadavg)${cpu:+, both programs on CPU $cpu}"
for i in $(seq 1 "$pairs"); do
    # alternate which program goes first, so neither always meets a warm
    # or a cold machine
    if [ $((i % 2)) = 1 ]; then
        "${pin[@]}" "$other" "${args[@]}" >"$out/ref.$i"
        "${pin[@]}" "$build/bench/blendwerk-bench" "${args[@]}" >"$out/bw.$i"
    else
        "${pin[@]}" "$build/bench/blendwerk-bench" "${args[@]}" >"$out/bw.$i"
        "${pin[@]}" "$other" "${args[@]}" >"$out/ref.$i"
    fi
done
grep -h '^check' "$out/bw.1" || true
[ -z "$against" ] && { grep -h '^check' "$out/ref.1" || true; }
grep -h '^blendwerk-bench:' "$out/bw.1" || true
grep -h '^allocations\|^bytes per' "$out/bw.$pairs" || true

awk -v pairs="$pairs" -v calib="$calib" -v est="$estimate" -v dir="$out" -v against="$against" '
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# the pairs of measurement m: c of them, the ratios in a[], this build
# times in x[], the other program times in y[], the ratios as text in list
function collect(m,   i) {
    c = cnt[m]; list = ""
    for (i = 1; i <= c; i++) { a[i] = ratio[m, i]; list = list sprintf(" %.3f", ratio[m, i]); x[i] = bw[m, i]; y[i] = rf[m, i] }
}
function grab(file, tbl,   line, f, k, name, v) {
    while ((getline line < file) > 0) {
        split(line, f, " ")
        name = f[1]
        for (k = 2; k in f; k++) if (f[k] ~ /^median_ns=/) { v = substr(f[k], 11); tbl[name] = v }
    }
    close(file)
}
BEGIN {
    # R = t_ozz / t_ref from ../shared/bench-ref/README.md
    Rz["sample1_fwd"] = 0.489; Ri["sample1_fwd"] = 0.475
    Rz["sample1_rand"] = 2.161; Ri["sample1_rand"] = 2.270
    Rz["sample4_fwd"] = 0.574; Ri["sample4_fwd"] = 0.500
    Rz["blend4_only"] = 0.943; Ri["blend4_only"] = 0.701
    Rz["l2m"] = 0.388; Ri["l2m"] = 0.254
    Rz["pipe1"] = 0.383; Ri["pipe1"] = 0.392
    Rz["pipe4"] = 0.533; Ri["pipe4"] = 0.439
    n = split("sample1_fwd sample1_rand sample4_fwd blend4_only sample4_blend4 l2m pipe1 pipe4 fused4", names, " ")
    for (p = 1; p <= pairs; p++) {
        delete r; delete b
        grab(dir "/ref." p, r); grab(dir "/bw." p, b)
        for (k = 1; k <= n; k++) {
            m = names[k]; rm = m == "fused4" && against == "" ? "pipe4" : m
            if ((m in b) && (rm in r) && r[rm] > 0) { cnt[m]++; ratio[m, cnt[m]] = b[m] / r[rm]; bw[m, cnt[m]] = b[m]; rf[m, cnt[m]] = r[rm] }
        }
    }
    if (against != "") {
        printf "%-15s %12s %12s %10s %s\n", "measurement", "this ns", "other ns", "this/other", "per-pair this/other"
        for (k = 1; k <= n; k++) {
            m = names[k]; if (!(m in cnt)) continue
            collect(m)
            printf "%-15s %12.3f %12.3f %10.3f%s\n", m, median(x, c), median(y, c), median(a, c), list
        }
        exit
    }
    if (calib == "none")
        printf "NOTE: this CPU has no calibration in the yardstick README; the x ozz column is an ESTIMATE through the %s R\n", est == "zen4" ? "Zen 4 (family 25)" : "Ice Lake-SP"
    else
        printf "calibration: %s\n", calib == "zen4" ? "AMD EPYC Zen 4 (family 25)" : "Intel Ice Lake-SP"
    printf "%-15s %12s %12s %10s %10s %s\n", "measurement", "bw ns", "ref ns", "x ref", (calib == "none" ? "x ozz(est)" : "x ozz"), "per-pair x ref"
    for (k = 1; k <= n; k++) {
        m = names[k]; if (!(m in cnt)) continue
        collect(m)
        med = median(a, c); mb = median(x, c); mr = median(y, c)
        rm = m == "fused4" ? "pipe4" : m
        oz = "-"
        if (rm in Rz) oz = sprintf("%.3f", med / (est == "icelake" ? Ri[rm] : Rz[rm]))
        printf "%-15s %12.3f %12.3f %10.3f %10s%s\n", (m == "fused4" ? "fused4/pipe4" : m), mb, mr, med, oz, list
    }
}'
