#!/usr/bin/env bash
# The scenario suite with exact truth (steady turns, a car on a circle, rest after fast motion, hard
# and soft iron, a 10 °/s gyroscope bias, 25 and 1000 Hz, magnetometer units): every filter kind in
# 6D and 9D, the offline reconstruction, VQF and gyroscope integration without the true bias.
#   Benchmarks/accuracy/scenarios.sh [--conditions a,b,…] [--no-vqf] [--json OUT]
# Runs matrix.sh with --scenarios; `matrix.sh --list` names the conditions.
set -euo pipefail
exec "$(dirname "$0")/matrix.sh" --scenarios "$@"
