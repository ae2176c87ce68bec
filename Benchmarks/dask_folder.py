"""A folder of traces on 2 Dask workers against a plain loop, same run (issue #26, item 6):

    python Benchmarks/dask_folder.py [FOLDER] [--rounds N] [--workers W] [--ways A,B,...] [--scratch DIR]

FOLDER defaults to the 14 held-out BROAD trials (../shared/data/broad). Needs the package with its
Dask extra installed (``pip install "./python[dask]"``). Every way replays every trace (EKF, the
default mode) into estimate files in a temporary folder, each round in a new one:

- ``loop``: the plain loop, ``motionfusion.run_cli(["replay", "--output", OUT, "--", TRACE])`` for
  each trace of ``motionfusion.folder_plan`` in a ``for`` loop: the bundled command line as a child
  process, one trace after another, on one core; the same work and files as each Dask task's.
- ``dask``: ``replay_folder(FOLDER, DST, n_workers=W)`` as a script calls it, starting and closing
  its ``LocalCluster`` (threads) for the run.
- ``dask-client``: the same on an already running ``LocalCluster`` (W threads), batched (default
  ``batch_seconds=1``), and ``dask-client-1``: one task per trace (``batch_seconds=None``);
  ``dask-processes``: batched, on an already running ``LocalCluster`` of W single-threaded worker
  processes (no GIL shared between the workers).
- ``many-1`` and ``many-2``, the control: the same trials, loaded into memory beforehand, through
  ``motionfusion.replay_many`` on 1 and W threads (no files; the library's threads): how much a
  second core gives at that moment of a shared machine (1.9-2.0x when it is quiet).
- ``cli-folder``: the command line's own folder run, a child process
  (``run_cli(["replay", FOLDER, "--output", DST])``, its threads on every core), for reference.

Rounds alternate the ways (rotating their order). For each way the median and best wall time, the
process's CPU time (user + system) and the traces' own times added up (each trace's wall time as
its task measured it: when it grows with 2 workers, each trace ran slower, i.e. the workers did
not have a core each) are printed; the speed-up of each
way over the loop is the median of the rounds' own ratios (loop / way, same round), with its range.
Also prints one JSON line ({"benchmark": "dask_folder", ...}). Never run by the tests.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import motionfusion as mf
from motionfusion.dask import replay_folder

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "data" / "broad"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=str(DEFAULT))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ways", help="a comma-separated subset of the ways to run (default: all; the loop always "
                        "runs, as the reference)")
    parser.add_argument("--scratch", help="where the estimate files go (default: the system's temporary folder; "
                        "/dev/shm keeps the disk out of it)")
    a = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    scratch = Path(tempfile.mkdtemp(prefix="dask_folder.", dir=a.scratch))
    plan = mf.folder_plan(a.folder, scratch / "plan")
    size = sum(os.path.getsize(p) for p in plan.inputs if os.path.isfile(p))
    print(f"{len(plan.inputs)} traces, {size / 1e6:.1f} MB, {a.workers} workers, {a.rounds} rounds, "
          f"{os.cpu_count()} processors, load average {os.getloadavg()[0]:.2f} at the start")

    cluster = LocalCluster(n_workers=1, threads_per_worker=a.workers, processes=False, dashboard_address=":0")
    client = Client(cluster)
    processes = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    on_processes = Client(processes)
    counter = iter(range(10**9))

    def fresh() -> Path:
        return scratch / f"out{next(counter)}"

    def loop() -> float:
        dst = fresh()
        p = mf.folder_plan(a.folder, dst)
        total = 0.0
        for i, o in zip(p.inputs, p.outputs):
            t0 = time.perf_counter()
            status, _, err = mf.run_cli(["replay", "--output", o, "--", i])
            total += time.perf_counter() - t0
            assert status == 0, err
        return total

    def traces(results: list[dict]) -> float:
        return sum(r["seconds"] for r in results)

    def folder() -> float:
        status, _, err = mf.run_cli(["replay", a.folder, "--output", str(fresh())])
        assert status == 0, err
        return float("nan")

    # The control: what a second core gives at the moment, the same trials in memory (no files) on
    # 1 and 2 threads of the library (replay_many, GIL released; 1.9-2.0x on a quiet machine).
    arrays = [mf.load(p) for p in plan.inputs]

    def many(workers: int) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mf.replay_many(arrays, workers=workers)
        return float("nan")

    ways = {
        "many-1": lambda: many(1),
        "many-2": lambda: many(a.workers),
        "loop": loop,
        "dask": lambda: traces(replay_folder(a.folder, fresh(), n_workers=a.workers, progress=False)),
        "dask-client": lambda: traces(replay_folder(a.folder, fresh(), client=client, progress=False)),
        "dask-client-1": lambda: traces(replay_folder(a.folder, fresh(), client=client, progress=False,
                                                      batch_seconds=None)),
        "dask-processes": lambda: traces(replay_folder(a.folder, fresh(), client=on_processes, progress=False)),
        "cli-folder": folder,
    }
    if a.ways:
        chosen = {"loop"} | set(a.ways.split(","))
        unknown = chosen - set(ways)
        if unknown:
            parser.error(f"unknown ways {sorted(unknown)}; the ways are {', '.join(ways)}")
        ways = {n: f for n, f in ways.items() if n in chosen}
    wall: dict[str, list[float]] = {w: [] for w in ways}
    cpu: dict[str, list[float]] = {w: [] for w in ways}
    trace_s: dict[str, list[float]] = {w: [] for w in ways}
    names = list(ways)
    try:
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                c0, t0 = os.times(), time.perf_counter()
                trace_s[name].append(ways[name]())
                t1, c1 = time.perf_counter(), os.times()
                wall[name].append(t1 - t0)
                cpu[name].append((c1.user - c0.user) + (c1.system - c0.system))
            for d in scratch.glob("out*"):
                shutil.rmtree(d)
            print(f"round {r + 1}: " + ", ".join(f"{n} {wall[n][-1]:.2f} s" for n in names)
                  + f"; load average {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        for name in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        for c in (client, cluster, on_processes, processes):
            c.close()
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"\n{'way':<15} {'median s':>9} {'best s':>7} {'CPU s':>6} {'traces s':>9} "
          f"{'speed-up over loop (median, range)':>36}")
    summary = {}
    for n in names:
        ratios = [lp / w for lp, w in zip(wall["loop"], wall[n])]
        summary[n] = {"median_s": statistics.median(wall[n]), "best_s": min(wall[n]),
                      "cpu_s": statistics.median(cpu[n]), "trace_s": statistics.median(trace_s[n]),
                      "speedup_median": statistics.median(ratios), "speedup_min": min(ratios),
                      "speedup_max": max(ratios), "wall_s": wall[n]}
        s = summary[n]
        print(f"{n:<15} {s['median_s']:>9.3f} {s['best_s']:>7.3f} {s['cpu_s']:>6.2f} {s['trace_s']:>9.2f} "
              f"{s['speedup_median']:>20.2f}× ({s['speedup_min']:.2f}–{s['speedup_max']:.2f})")
    print("(CPU s: this process's user + system time, worker processes not included; traces s: the traces' "
          "own wall times added up, as each task measured them; medians of the rounds)")
    if "many-1" in wall and "many-2" in wall:
        control = [one / two for one, two in zip(wall["many-1"], wall["many-2"])]
        print(f"control, replay_many on 1 / {a.workers} threads, same rounds: median {statistics.median(control):.2f}× "
              f"({min(control):.2f}–{max(control):.2f}): the speed-up the machine offered")
        summary["control_speedup"] = control
    print(json.dumps({"benchmark": "dask_folder", "traces": len(plan.inputs), "bytes": size, "workers": a.workers,
                      "rounds": a.rounds, "ways": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
