#!/usr/bin/env bash
# ab.sh - two builds of the full-character or the control benchmark side by
# side: runs A and B alternately in PAIRS pairs (which goes first
# alternates), each pinned to one CPU, and reports per measurement the
# median of each side and the median of the per-pair ratios t_B / t_A with
# their range. The ratio of a pair is taken within minutes of both runs, so
# a host whose speed drifts by a quarter within a session (bench/README.md)
# still compares the two builds rather than two moments.
#
#   bench/ab.sh [--pairs N] [--cpu N] character|control BENCH_A BENCH_B [-- ARGS...]
#
# BENCH_A / BENCH_B: two blendwerk-character-bench (or -control-bench)
# binaries, say a worktree of an older commit's and this one's; a program
# and a copy of itself gives the noise floor. ARGS go to both (default:
# `--quick --threads 1` for the character bench, nothing for the control
# bench). --cpu N (default 0) pins every run with taskset; --cpu -1 leaves
# them unpinned. blendwerk-bench has its own side by side:
# bench/vs_ref.sh --against.
#
# Measurements: character: compiled, lua_predicates, lua_head_aim,
# no_head_aim (ns per character-frame) and the head aims alone (c_aim,
# lua_aim: a variant minus no_head_aim; lua_timed: the Lua control timed
# in place around its calls; lua_timed_share: that as a fraction of the
# compiled variant's frame in the same run, which a host's speed moves
# less); control: lua, c, empty (ns per character-frame).
set -euo pipefail

pairs=7
cpu=0
usage() {
    sed -n '/^#   bench/p' "$0" | sed 's/^#   /usage: /' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
        --pairs) [ $# -ge 2 ] || usage; pairs=$2; shift 2 ;;
        --cpu) [ $# -ge 2 ] || usage; cpu=$2; shift 2 ;;
        -h | --help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] || usage
kind=$1 a=$2 b=$3
shift 3
if [ $# -gt 0 ]; then
    [ "$1" = "--" ] || usage
    shift
fi
case $pairs in '' | *[!0-9]*) usage ;; esac
[ "$pairs" -ge 1 ] || usage
case $kind in
    character) [ $# -gt 0 ] || set -- --quick --threads 1 ;;
    control) ;;
    *) echo "ab.sh: unknown benchmark '$kind' (character or control)" >&2; exit 2 ;;
esac
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "ab.sh: $bin is not an executable" >&2; exit 2; }
done
pin=()
if [ "$cpu" != "-1" ]; then
    command -v taskset > /dev/null || { echo "ab.sh: --cpu needs taskset (util-linux)" >&2; exit 2; }
    pin=(taskset -c "$cpu")
fi

# One run's measurements as "name ns" lines.
measure() {
    local out
    out=$("${pin[@]}" "$1" "${@:2}" 2>&1) || { echo "ab.sh: $1 failed:" >&2; echo "$out" >&2; exit 1; }
    if [ "$kind" = character ]; then
        echo "$out" | awk '
            /^(compiled|lua_predicates|lua_head_aim|no_head_aim): [0-9.]+ ns per character-frame/ {
                name = $1; sub(/:$/, "", name); print name, $2 }
            /^head aim per character-frame/ {
                if (match($0, /C \(animator\) [0-9.]+/)) { s = substr($0, RSTART, RLENGTH); n = split(s, f, " "); print "c_aim", f[n] }
                if (match($0, /Lua control[^0-9]*[0-9.]+/)) { s = substr($0, RSTART, RLENGTH); n = split(s, f, " "); print "lua_aim", f[n] } }
            /^Lua control timed in place: [0-9.]+ ns/ { print "lua_timed", $6; print "lua_timed_share", $10 }'
    else
        echo "$out" | awk '
            /^lua head_aim.lua control:/ { print "lua", $(NF - 3) }
            /^C head aim/ { print "c", $(NF - 3) }
            /^an empty Lua control:/ { print "empty", $(NF - 3) }'
    fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((p = 1; p <= pairs; p++)); do
    if [ $((p % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
    for side in $order; do
        bin=$a
        [ "$side" = B ] && bin=$b
        measure "$bin" "$@" | while read -r name ns; do echo "$p $name $ns" >> "$work/$side"; done
    done
done

printf 'ab.sh: %d pairs, %s; A = %s, B = %s%s\n' "$pairs" "$kind" "$a" "$b" \
    "$([ "$cpu" != "-1" ] && echo ", both on CPU $cpu")"
printf '%-16s %10s %10s %9s %17s\n' measurement "A ns" "B ns" "B/A" "per-pair range"
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for name in $(awk '{ print $2 }' "$work/A" | awk '!seen[$0]++'); do
    ma=$(awk -v n="$name" '$2 == n { print $3 }' "$work/A" | median)
    mb=$(awk -v n="$name" '$2 == n { print $3 }' "$work/B" | median)
    ratios=$(awk -v n="$name" 'FNR == NR { if ($2 == n) a[$1] = $3; next } $2 == n && ($1 in a) && a[$1] > 0 { print $3 / a[$1] }' \
        "$work/A" "$work/B")
    [ -n "$ratios" ] || continue
    mr=$(echo "$ratios" | median)
    lo=$(echo "$ratios" | sort -g | head -1)
    hi=$(echo "$ratios" | sort -g | tail -1)
    # ns with one decimal; a share (below 1) with four
    if awk -v a="$ma" 'BEGIN { exit !(a < 1 && a > -1) }'; then f='%10.4f'; else f='%10.1f'; fi
    printf "%-16s $f $f %9.3f %8.3f-%-8.3f\n" "$name" "$ma" "$mb" "$mr" "$lo" "$hi"
done
