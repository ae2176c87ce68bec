"""Fleet runs on Dask: a folder of traces replayed (or reconstructed) with one Dask task per trace.

Each task runs the command line itself on one trace (``motionfusion replay TRACE --output FILE``,
in the worker process, from the bundled library): it reads one file and writes one estimate file
atomically, with the command line's safety rules. The traces and output names come from the
command line's own folder plan (:func:`motionfusion.folder_plan`), checked against the inputs before
any task starts, so the outputs are the files, names and bytes of
``motionfusion replay SRC --output DST``.

By default a :class:`dask.distributed.LocalCluster` is started for the run (and closed after it);
pass ``client=`` to use any cluster, e.g. ``Client("tcp://scheduler:8786")`` of a multi-host one
(every worker needs this package installed and the same paths mounted). Progress is Dask's own
progress bar (and its dashboard, when the cluster has one). Needs ``pip install "motionfusion[dask]"``.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Sequence

from . import _native
from ._core import Filter, MotionFusionError, PathLike, folder_plan


def replay_folder(
    src: PathLike, dst: PathLike, *, n_workers: int | None = None, client: Any = None, filter: str = "ekf",
    mode: str | None = None, format: str | None = None, options: Sequence[str] = (), progress: bool = True,
) -> list[dict[str, Any]]:
    """Replays every trace of the folder ``src`` into the folder ``dst`` on Dask, one task per trace:
    the same files as ``motionfusion replay SRC --output DST --filter FILTER --mode MODE`` (``mode``
    None: the filter's default, as without ``--mode``).

    ``client``: a ``dask.distributed.Client`` to run on; without one a ``LocalCluster`` of
    ``n_workers`` single-threaded worker processes (default: one per core) is started and closed.
    ``format`` names the recording format (default: detected per trace); ``options`` are further
    ``replay`` options, e.g. ``["--frame", "ned", "--param", "gyroscopeNoise=0.003"]``.
    ``progress`` shows Dask's progress bar.

    Returns one dict per trace, in the command line's order: ``input``, ``output``, ``status`` (the
    command line's exit status: 0 ok, 1 bad input, 2 usage), ``messages`` (what it printed on
    standard error: warnings, errors) and ``seconds``. A failing trace does not stop the others;
    when any failed, :class:`motionfusion.MotionFusionError` is raised after all finished, with the
    per-trace results in its ``results`` attribute. Outputs that would overwrite an input, and a
    ``src`` that is not a folder of traces, are refused before anything runs.
    """
    # A filter or mode the command line would refuse fails here once, not in every task.
    Filter(filter, mode)
    args = ["--filter", filter] + ([] if mode is None else ["--mode", mode])
    return _run_folder("replay", src, dst, args, n_workers, client, format, options, progress)


def reconstruct_folder(
    src: PathLike, dst: PathLike, *, n_workers: int | None = None, client: Any = None, filter: str = "ekf",
    mode: str | None = None, format: str | None = None, options: Sequence[str] = (), progress: bool = True,
) -> list[dict[str, Any]]:
    """As :func:`replay_folder`, with ``motionfusion reconstruct`` (best offline attitude) per trace.
    ``filter`` must be "ekf", the filter the reconstruction is built on."""
    if filter.lower() != "ekf":
        raise MotionFusionError("reconstruct runs the EKF (filter ekf)", _native.ERROR_USAGE)
    args = [] if mode is None else ["--mode", mode]
    return _run_folder("reconstruct", src, dst, args, n_workers, client, format, options, progress)


def _option_values(options: Sequence[str], name: str) -> list[str]:
    """The values of ``--name VALUE`` and ``--name=VALUE`` in ``options``."""
    values = []
    for i, o in enumerate(options):
        if o == f"--{name}" and i + 1 < len(options):
            values.append(options[i + 1])
        elif o.startswith(f"--{name}="):
            values.append(o.split("=", 1)[1])
    return values


def _run_folder(
    command: str, src: PathLike, dst: PathLike, args: list[str], n_workers: int | None, client: Any,
    format: str | None, options: Sequence[str], progress: bool,
) -> list[dict[str, Any]]:
    options = [str(o) for o in options]
    for taken in ("output", "format", "filter", "mode"):
        if _option_values(options, taken) or f"--{taken}" in options:
            raise MotionFusionError(f"pass {taken} as the keyword argument, not in options", _native.ERROR_USAGE)
    if format is not None:
        args += ["--format", format]
    args += options
    plan = folder_plan(src, dst, format=format, extra_inputs=_option_values(options, "calibration"))
    for note in plan.notes:
        print(note, file=sys.stderr)

    from dask.distributed import Client, LocalCluster

    own = None
    if client is None:
        cluster = LocalCluster(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
        own = client = Client(cluster)
    try:
        n = len(plan.inputs)
        futures = client.map(_run_trace, [command] * n, plan.inputs, plan.outputs, [args] * n, pure=False)
        if progress:
            from dask.distributed import progress as show_progress

            show_progress(futures)
        results = client.gather(futures)
    finally:
        if own is not None:
            cluster = own.cluster
            own.close()
            cluster.close()
    for r in results:
        if r["messages"]:
            sys.stderr.write(r["messages"])
    failed = [r for r in results if r["status"] != 0]
    if failed:
        lines = "\n".join(f"{r['input']}: {r['messages'].strip()}" for r in failed)
        error = MotionFusionError(f"{len(failed)} of {len(results)} traces failed:\n{lines}",
                                  max(r["status"] for r in failed))
        error.results = results  # type: ignore[attr-defined]
        raise error
    return results


def _run_trace(command: str, trace: str, output: str, args: list[str]) -> dict[str, Any]:
    """One task: the command line on one trace, in the worker process. ``--`` ends the options, so
    any trace name is read as a path."""
    start = time.perf_counter()
    status, _, err = _native.run_cli([command, "--output", output, *args, "--", trace])
    return {"input": trace, "output": output, "status": status, "messages": err,
            "seconds": time.perf_counter() - start}


__all__ = ["reconstruct_folder", "replay_folder"]
