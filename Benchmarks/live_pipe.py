#!/usr/bin/env python3
"""Latency of a live pipe: rows written at a fixed rate into `motionfusion replay - --output -`
(or `convert`), and when each estimate comes out.

    Benchmarks/live_pipe.py [--binary .build/release/motionfusion] [--rows 1000] [--rate 100]
                            [--command replay] [TRACE] [-- OPTION...]

Rows are the first --rows data rows of TRACE (default data/sim_mixed_100hz.csv), each written and
flushed at its slot of a --rate Hz clock; a reader thread stamps each output line on arrival.
Output line k (after the header) belongs to input row k. Options after `--` go to the command
(`-- --columns t=timestamp,acc=x`). Prints the first row's latency and the
median, 99th percentile and largest latency of the others, in ms. Times on a shared, loaded
machine: run it a few times and take the best. Not a test: it times and blocks on a pipe."""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("trace", nargs="?", default=os.path.join(root, "data/sim_mixed_100hz.csv"))
parser.add_argument("--binary", default=os.path.join(root, ".build/release/motionfusion"))
parser.add_argument("--rows", type=int, default=1000)
parser.add_argument("--rate", type=float, default=100.0)
parser.add_argument("--command", default="replay", choices=["replay", "convert"])
argv = sys.argv[1:]
extra = argv[argv.index("--") + 1:] if "--" in argv else []
args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)

with open(args.trace) as f:
    header = f.readline()
    rows = [f.readline() for _ in range(args.rows)]
rows = [r for r in rows if r]

process = subprocess.Popen(
    [args.binary, args.command, "-", "--output", "-"] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    stderr=subprocess.DEVNULL, bufsize=0)
arrivals = []


def read():
    stream = process.stdout
    stream.readline()  # the output's header
    buffer = b""
    while True:
        chunk = os.read(stream.fileno(), 65536)
        now = time.monotonic()
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            _, buffer = buffer.split(b"\n", 1)
            arrivals.append(now)


reader = threading.Thread(target=read)
reader.start()
sent = []
os.write(process.stdin.fileno(), header.encode())
start = time.monotonic() + 0.2
for k, row in enumerate(rows):
    slot = start + k / args.rate
    delay = slot - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    sent.append(time.monotonic())
    os.write(process.stdin.fileno(), row.encode())
process.stdin.close()
reader.join()
process.wait()
if len(arrivals) != len(sent):
    sys.exit(f"{len(arrivals)} estimates for {len(sent)} rows")
latency = [(a - s) * 1000 for a, s in zip(arrivals, sent)]
later = sorted(latency[1:])
worst = max(range(1, len(latency)), key=lambda k: latency[k])
print(
    f"{args.command}: {len(sent)} rows at {args.rate:g} Hz: first {latency[0]:.2f} ms; later median "
    f"{statistics.median(later):.2f} ms, p99 {later[int(0.99 * (len(later) - 1))]:.2f} ms, max {later[-1]:.2f} ms "
    f"(row {worst}); over 10 ms: {sum(1 for x in later if x > 10)}")
