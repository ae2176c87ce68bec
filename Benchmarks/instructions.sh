#!/usr/bin/env bash
# Instructions per sample of each online filter (deterministic, unlike wall-clock figures on a shared
# machine): callgrind over RunConfiguration.attitudes alone, one run of each filter and mode.
#   Benchmarks/instructions.sh [TRACE]      (default BROAD trial 21; needs valgrind)
# With --dump DIR, each filter's attitudes are also written bit for bit (DIR/KIND-MODE.bin), so two
# builds can be compared with cmp.
set -euo pipefail
cd "$(dirname "$0")"
DUMP=""
if [ "${1:-}" = "--dump" ]; then DUMP=$2; shift 2; mkdir -p "$DUMP"; fi
TRACE="${1:-../../shared/data/broad/21_undisturbed_fast_combined.csv}"
[ -f "$TRACE" ] || { echo "instructions.sh: $TRACE does not exist (pass a trace)" >&2; exit 2; }
./build-package.sh . MotionFusionBenchmarks
BIN=.build/release/MotionFusionBenchmarks
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for fm in ekf:9d ekf:6d complementary:9d complementary:6d mahony:9d mahony:6d madgwick:9d madgwick:6d ecompass:9d tilt:6d; do
    kind=${fm%%:*}
    mode=${fm##*:}
    extra=()
    [ -n "$DUMP" ] && extra=(--dump "$DUMP/$kind-$mode.bin")
    samples=$("$BIN" --once "$kind" "$mode" "${extra[@]}" "$TRACE" | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')
    valgrind --tool=callgrind --callgrind-out-file="$OUT" --collect-atstart=no \
        --toggle-collect='*RunConfigurationV9attitudes*' "$BIN" --once "$kind" "$mode" "$TRACE" >/dev/null 2>&1
    total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p; s/^summary: \([0-9]*\).*/\1/p' "$OUT" | head -1)
    printf '%-14s %s  %6.0f instructions/sample\n' "$kind" "$mode" "$(echo "$total / $samples" | bc -l)"
done
