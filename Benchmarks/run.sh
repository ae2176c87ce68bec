#!/usr/bin/env bash
# Builds the benchmarks and the command line in release mode and runs them.
#   Benchmarks/run.sh [--quick] [--json] [--only SECTION] [TRACE]
# With Python and PyPI available, vqf's C++ batch loop is timed on the same trace in the same run
# (Benchmarks/.venv), and the EKF / vqf ratio is printed.
set -euo pipefail
cd "$(dirname "$0")"
(cd .. && swift build -c release --product motionfusion >&2)
./build-package.sh . MotionFusionBenchmarks
BIN=.build/release/MotionFusionBenchmarks
JSON=0
case " $* " in *" --json "*) JSON=1 ;; esac
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
"$BIN" "$@" | tee "$OUT"
case " $* " in *" --only "*) ONLY=1 ;; *) ONLY=0 ;; esac
# Offline reconstruction at growing lengths, each in its own process so its peak memory is its own.
if [ "$ONLY" = 0 ]; then
    SIZES="10000 100000 1000000 10000000"
    case " $* " in *" --quick "*) SIZES="10000 100000 1000000" ;; esac
    TRACE_ARG=""
    for a in "$@"; do case "$a" in --*) ;; *) TRACE_ARG="$a" ;; esac; done
    FLAGS=""
    [ "$JSON" = 1 ] && FLAGS="--json"
    for method in batch smoother; do
        for n in $SIZES; do "$BIN" $FLAGS --reconstruct-scale "$n" --method "$method" $TRACE_ARG; done
    done
fi
# vqf on the same trace, same run.
TRACE=""
for a in "$@"; do case "$a" in --*|filters|many|parse|write|imports|replay|folder|memory) ;; *) TRACE="$a" ;; esac; done
TRACE="${TRACE:-../../shared/data/broad/21_undisturbed_fast_combined.csv}"
if [ -f "$TRACE" ] && grep -q '"benchmark":"filter"\|^filter ' "$OUT"; then
    if [ ! -x .venv/bin/python ]; then
        (python3 -m venv .venv && .venv/bin/pip install --quiet numpy vqf) >&2 || echo "vqf not available: skipping the peer timing" >&2
    fi
    if [ -x .venv/bin/python ] && .venv/bin/python -c "import vqf" 2>/dev/null; then
        REPEATS=7
        case " $* " in *" --quick "*) REPEATS=3 ;; esac
        .venv/bin/python vqf_timing.py "$TRACE" "$REPEATS" | while read -r line; do
            mode=$(echo "$line" | sed 's/.*"mode": "\([69]d\)".*/\1/')
            vqf=$(echo "$line" | sed 's/.*"ns_per_sample": \([0-9.e+-]*\).*/\1/')
            ekf=$(grep -E "\"filter\":\"ekf\".*\"mode\":\"$mode\"|^filter ekf +$mode" "$OUT" | head -1 | sed -E 's/.*"ns_per_sample":([0-9.e+-]+).*/\1/; s/^filter ekf +[69]d +([0-9.]+) ns.*/\1/')
            ratio=$(python3 -c "print($ekf / $vqf)")
            if [ "$JSON" = 1 ]; then
                echo "$line"
                echo "{\"benchmark\":\"ratio\",\"name\":\"ekf_over_vqf\",\"mode\":\"$mode\",\"ekf_ns_per_sample\":$ekf,\"vqf_ns_per_sample\":$vqf,\"value\":$ratio}"
            else
                printf 'vqf batch %s          %8.1f ns/sample   EKF / vqf = %.2f (same run)\n' "$mode" "$vqf" "$ratio"
            fi
        done
    fi
fi
