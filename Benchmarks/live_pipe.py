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
default_trace = os.path.join(root, "data/sim_mixed_100hz.csv")
default_binary = os.path.join(root, ".build/release/motionfusion")


def measure(trace=default_trace, binary=default_binary, rows=1000, rate=100.0, command="replay", extra=()):
    """Each estimate's latency in ms (the first row's first): the first `rows` data rows of `trace`
    written into `binary command - --output -` at `rate` Hz."""
    with open(trace) as f:
        header = f.readline()
        lines = [f.readline() for _ in range(rows)]
    lines = [r for r in lines if r]
    process = subprocess.Popen(
        [binary, command, "-", "--output", "-"] + list(extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
    for k, row in enumerate(lines):
        slot = start + k / rate
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sent.append(time.monotonic())
        os.write(process.stdin.fileno(), row.encode())
    process.stdin.close()
    reader.join()
    process.wait()
    if len(arrivals) != len(sent):
        raise RuntimeError(f"{len(arrivals)} estimates for {len(sent)} rows")
    return [(a - s) * 1000 for a, s in zip(arrivals, sent)]


def summary(latency):
    """The first latency, and the median, 99th percentile and largest of the others, in ms."""
    later = sorted(latency[1:])
    return latency[0], statistics.median(later), later[int(0.99 * (len(later) - 1))], later[-1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("trace", nargs="?", default=default_trace)
    parser.add_argument("--binary", default=default_binary)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--command", default="replay", choices=["replay", "convert"])
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    latency = measure(args.trace, args.binary, args.rows, args.rate, args.command, extra)
    first, median, p99, largest = summary(latency)
    worst = max(range(1, len(latency)), key=lambda k: latency[k])
    print(
        f"{args.command}: {len(latency)} rows at {args.rate:g} Hz: first {first:.2f} ms; later median "
        f"{median:.2f} ms, p99 {p99:.2f} ms, max {largest:.2f} ms (row {worst}); over 10 ms: "
        f"{sum(1 for x in latency[1:] if x > 10)}")
