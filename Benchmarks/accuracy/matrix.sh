#!/usr/bin/env bash
# Rebuilds the accuracy matrix of docs/Accuracy.md:
#   Benchmarks/accuracy/matrix.sh [--conditions a,b,…] [--logo] [--per-trial CONDITION] [--json OUT] [--no-vqf]
# Builds the AccuracyMatrix program (release), creates Benchmarks/.venv with numpy and vqf from PyPI
# when missing (as Benchmarks/peers.sh does), and prints the Markdown tables.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
if [ ! -x "$ROOT/Benchmarks/.venv/bin/python" ]; then
    python3 -m venv "$ROOT/Benchmarks/.venv"
    "$ROOT/Benchmarks/.venv/bin/pip" install --quiet --upgrade pip
    "$ROOT/Benchmarks/.venv/bin/pip" install --quiet numpy vqf imufusion ahrs
fi
# From clean whenever the root's sources changed (a path dependency's incremental build can keep
# objects compiled against the root's earlier types).
nice -n 10 "$ROOT/Benchmarks/build-package.sh" . AccuracyMatrix
cd "$ROOT"
exec nice -n 10 Benchmarks/accuracy/.build/release/AccuracyMatrix "$@"
