#!/usr/bin/env bash
# The tuning protocol's two dev halves (docs/Accuracy.md, "Tuning protocol"): mean total RMSE of
# `replay` on BROAD half A and half B, and on all 14 trials, for one filter and mode.
#   Benchmarks/accuracy/halves.sh [--filter KIND] [--mode 9d|6d] [--param NAME=VALUE,…]
# Half A holds trials 01 05 07 11 21 25 29 33 and half B 03 09 15 27 31 35: each motion group's
# trials alternate between the halves. The data folder is ../shared/data/broad beside the checkout
# (or $BROAD).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BROAD=${BROAD:-$ROOT/../shared/data/broad}
swift build -c release --product motionfusion --package-path "$ROOT" >&2
BIN="$ROOT/.build/release/motionfusion"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for trace in "$BROAD"/[0-9][0-9]_*.csv; do
    name=$(basename "$trace")
    total=$("$BIN" replay "$trace" --score --output "$OUT/estimates.csv" "$@" 2>&1 | sed -n 's/.*: total \([0-9.]*\)°.*/\1/p')
    echo "${name:0:2} $total"
done | awk '
    BEGIN { split("01 05 07 11 21 25 29 33", a, " "); for (i in a) inA[a[i]] = 1 }
    { all += $2; n++; if ($1 in inA) { sa += $2; na++ } else { sb += $2; nb++ } }
    END { printf "half A %.3f   half B %.3f   all %.3f   (%d trials)\n", sa / na, sb / nb, all / n, n }'
