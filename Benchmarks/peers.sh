#!/usr/bin/env bash
# Side-by-side comparison with peer libraries on the same trace, in the same run:
#   Benchmarks/peers.sh [TRACE]
# Installs vqf, imufusion and ahrs from PyPI and MotionFusion's Python package (python/) into
# Benchmarks/.venv (never used by the tests),
# builds MotionFusion in release mode, and prints accuracy (BROAD metric) and throughput with ratios,
# issue #28's ratios and a live pipe's latencies (live_pipe.py), then the per-sample call from
# Python (Filter.update / vqf's update + getQuat9D, per_sample.py).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
    .venv/bin/pip install --quiet --upgrade pip
fi
# The peers, whenever one is missing (run.sh's venv may hold only vqf).
.venv/bin/python -c "import numpy, vqf, imufusion, ahrs" 2>/dev/null ||
    .venv/bin/pip install --quiet numpy vqf imufusion ahrs
# MotionFusion's own Python package, rebuilt from these sources each run (release build, bundled).
.venv/bin/pip install --quiet --force-reinstall --no-deps ../python >&2
(cd .. && swift build -c release --product motionfusion >&2)
./build-package.sh . MotionFusionBenchmarks
TRACE="${1:-../../shared/data/broad/21_undisturbed_fast_combined.csv}"
exec env OPENBLAS_NUM_THREADS=1 .venv/bin/python peers.py "$TRACE"
