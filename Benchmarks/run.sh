#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs them.
#   Benchmarks/run.sh [--quick] [--json] [TRACE]
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product MotionFusionBenchmarks >&2
exec .build/release/MotionFusionBenchmarks "$@"
