#!/usr/bin/env bash
# Builds PRODUCT of the Swift package in DIR (a benchmark package that depends on the root package
# by path) in release mode, from clean whenever the root's sources changed since DIR's last build.
#   Benchmarks/build-package.sh DIR PRODUCT
# SwiftPM's incremental build of a path dependency can keep objects compiled against an earlier
# layout of the root's types (code inlined from it, the sizes of its structs and enums): on
# 2026-12-04 such a benchmark binary ran the EKF, reading another filter's parameters as its own,
# for every filter kind, and its instruction counts and timings were the EKF's. A stamp of the
# root's sources (their SHA-256) decides when to start again.
set -euo pipefail
DIR=$(cd "$1" && pwd)
PRODUCT=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STAMP="$DIR/.build/root-sources.sha256"
SUM=$(cd "$ROOT" && find Sources Package.swift -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$SUM" ]; then
    echo "build-package.sh: the root's sources changed since $DIR was built: building $PRODUCT from clean" >&2
    rm -rf "$DIR/.build"
fi
(cd "$DIR" && swift build -c release --product "$PRODUCT" >&2)
echo "$SUM" >"$STAMP"
