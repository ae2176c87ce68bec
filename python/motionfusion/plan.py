"""``python -m motionfusion.plan SRC DST [--batches N | --task-seconds S] [--format NAME]
[--calibration FILE]``: prints the plan of ``motionfusion replay SRC --output DST`` after the
command line's checks (no output onto an input; DST created).

Without ``--batches``/``--task-seconds`` it prints lines ``INPUT<TAB>OUTPUT``, one per trace in the
command line's order: line k + 1 is the work of task k of a Slurm job array or a Kubernetes indexed
Job. With them, traces are grouped into tasks (consecutive traces, never a trace split, groups of
about equal estimated work: the traces' sizes; with ``--batches N``, N tasks, or one per trace when
there are fewer) and it prints lines ``TASK<TAB>INPUT<TAB>OUTPUT``: task k runs every line whose
first field is k, numbered 0, 1, ... without gaps (docs/Distributed.md).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import zipfile
from typing import Sequence

from ._core import MotionFusionError, folder_plan

#: Rough seconds of one core per byte of trace (CSV text) for each command, from the BROAD trials
#: (about 9 MB of CSV each: replay, EKF 9D, about 0.13 s; reconstruct about 0.3 s) on the
#: development machine; only the ratio between traces and the size of a task depend on it.
SECONDS_PER_BYTE = {"replay": 0.13 / 9e6, "reconstruct": 0.3 / 9e6}


def trace_bytes(path: str | os.PathLike) -> int:
    """The size of a trace, as the estimate of its work: a file's size, a ``.zip``'s uncompressed
    size, a recording folder's files in total (0 for what cannot be read: its task reports it)."""
    path = os.fspath(path)
    try:
        if os.path.isdir(path):
            return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(path) for f in files)
        if path.lower().endswith(".zip"):
            try:
                with zipfile.ZipFile(path) as z:
                    return sum(i.file_size for i in z.infolist())
            except (zipfile.BadZipFile, ValueError):
                pass
        return os.path.getsize(path)
    except OSError:
        return 0


def batches(weights: Sequence[float], count: int) -> list[list[int]]:
    """The indices of ``weights`` cut into ``min(count, len(weights))`` groups of consecutive
    indices with about equal total weight; every index is in exactly one group, in order, and no
    group is empty. Index k goes to the group its weight's midpoint falls in when the total is cut
    into ``count`` equal parts, moved on to the next group where the groups left need it (no group
    is skipped, and the last indices fill the last groups)."""
    n = len(weights)
    if n == 0:
        return []
    count = max(1, min(int(count), n))
    w = [max(0.0, float(x)) for x in weights]
    total = sum(w)
    if total <= 0:
        w, total = [1.0] * n, float(n)
    groups: list[list[int]] = []
    before = 0.0
    for i, x in enumerate(w):
        part = int((before + x / 2) * count / total)
        last = len(groups) - 1
        # Never skip a group, never go back, and leave at least one index for each group after this one.
        part = min(count - 1, max(min(part, last + 1), last, count - (n - i)))
        if part > last:
            groups.append([])
        groups[-1].append(i)
        before += x
    return groups


def task_count(total_seconds: float, traces: int, task_seconds: float, workers: int = 1) -> int:
    """How many tasks to cut ``traces`` traces of ``total_seconds`` of estimated work into: tasks of
    about ``task_seconds`` each, at least one per worker (while there are traces for them), rounded
    up to a multiple of ``workers`` so that the last round keeps every worker busy."""
    if traces == 0:
        return 0
    workers = max(1, workers)
    count = max(math.ceil(total_seconds / task_seconds) if task_seconds > 0 else traces, min(traces, workers))
    return min(traces, math.ceil(count / workers) * workers)


def main(argv: list[str] | None = None) -> int:
    """Prints the plan; returns the exit status (1 bad input, 2 usage, as the command line)."""
    parser = argparse.ArgumentParser(prog="python -m motionfusion.plan", description=__doc__.split("\n")[0])
    parser.add_argument("src", help="a folder of traces")
    parser.add_argument("dst", help="the output folder")
    parser.add_argument("--format", help="recording format (default: detected)")
    parser.add_argument("--calibration", action="append", default=[], help="a calibration file the run reads")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--batches", type=int, metavar="N",
                       help="group the traces into N tasks of about equal size (one per trace when there are fewer)")
    group.add_argument("--task-seconds", type=float, metavar="S",
                       help="group the traces into tasks of about S seconds of replay work each (estimated from sizes)")
    a = parser.parse_args(argv)
    if a.batches is not None and a.batches < 1:
        parser.error("--batches must be a positive integer")
    if a.task_seconds is not None and not a.task_seconds > 0:
        parser.error("--task-seconds must be a positive number")
    try:
        plan = folder_plan(a.src, a.dst, format=a.format, extra_inputs=a.calibration)
    except MotionFusionError as e:
        print(f"motionfusion plan: error: {e.message}", file=sys.stderr)
        return e.code
    for note in plan.notes:
        print(note, file=sys.stderr)
    for i, o in zip(plan.inputs, plan.outputs):
        if any(c in p for p in (i, o) for c in "\t\n"):
            print(f"motionfusion plan: error: {i!r} -> {o!r}: a tab or newline in a path", file=sys.stderr)
            return 1
    if a.batches is None and a.task_seconds is None:
        for i, o in zip(plan.inputs, plan.outputs):
            print(f"{i}\t{o}")
        return 0
    sizes = [trace_bytes(i) for i in plan.inputs]
    if a.batches is not None:
        count = a.batches
    else:
        count = task_count(sum(sizes) * SECONDS_PER_BYTE["replay"], len(sizes), a.task_seconds)
    for task, group in enumerate(batches(sizes, count)):
        for k in group:
            print(f"{task}\t{plan.inputs[k]}\t{plan.outputs[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
