#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs them.
#   Benchmarks/run.sh [--quick] [--json] [TRACE]
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product MotionFusionBenchmarks >&2
export OPENBLAS_NUM_THREADS=1  # no idle OpenBLAS workers competing for the second core
BIN=.build/release/MotionFusionBenchmarks
"$BIN" "$@"
# Offline reconstruction at growing lengths, each in its own process so its peak memory is its own.
case " $* " in *" --only "*) exit 0 ;; esac
SIZES="10000 100000 1000000 10000000"
case " $* " in *" --quick "*) SIZES="10000 100000 1000000" ;; esac
TRACE_ARG=""
for a in "$@"; do case "$a" in --*) ;; *) TRACE_ARG="$a" ;; esac; done
for n in $SIZES; do
    FLAGS=""
    case " $* " in *" --json "*) FLAGS="--json" ;; esac
    "$BIN" $FLAGS --reconstruct-scale "$n" $TRACE_ARG
done
