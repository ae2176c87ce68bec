"""``python -m motionfusion.plan SRC DST [--format NAME] [--calibration FILE]``: prints the plan of
``motionfusion replay SRC --output DST`` as lines ``INPUT<TAB>OUTPUT``, one per trace in the command
line's order, after the command line's checks (no output onto an input; DST created). Line k is the
work of task k of a Slurm job array or a Kubernetes indexed Job (docs/Distributed.md).
"""
from __future__ import annotations

import argparse
import sys

from ._core import MotionFusionError, folder_plan


def main(argv: list[str] | None = None) -> int:
    """Prints the plan; returns the exit status (1 bad input, 2 usage, as the command line)."""
    parser = argparse.ArgumentParser(prog="python -m motionfusion.plan", description=__doc__.split("\n")[0])
    parser.add_argument("src", help="a folder of traces")
    parser.add_argument("dst", help="the output folder")
    parser.add_argument("--format", help="recording format (default: detected)")
    parser.add_argument("--calibration", action="append", default=[], help="a calibration file the run reads")
    a = parser.parse_args(argv)
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
        print(f"{i}\t{o}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
