"""Fleet runs on Dask: a folder of traces replayed (or reconstructed), traces batched into Dask tasks.

Each trace runs the command line itself (``motionfusion replay TRACE --output FILE``, the bundled
executable, as a child process of the worker): it reads one file and writes one estimate file
atomically, with the command line's safety rules. A task runs a batch of consecutive traces, one
after the other, of about ``batch_seconds`` of estimated work (from the traces' sizes; a trace is
never split), so that small traces do not each pay a task's overhead; each trace keeps its own
result. The traces and output names come from the command line's own folder plan (the library's
``FolderPlan``, :func:`motionfusion.folder_plan`),
checked against the inputs before any task starts, so the outputs are the files, names and bytes
of ``motionfusion replay SRC --output DST``.

By default a :class:`dask.distributed.LocalCluster` of threads in this process is started for the
run (and closed after it): each task spends its time waiting for its child process, so threads use
every core, and a script needs no ``if __name__ == "__main__":`` guard (worker processes,
``processes=True``, re-run the script that starts them; without the guard that is refused with one
clear error). Pass ``client=`` to use any cluster, e.g.
``Client("tcp://scheduler:8786")`` of a multi-host one (every worker needs this package installed
and the same paths mounted). Options are checked once, by the command line itself, before any task
is scheduled. Progress is Dask's own progress bar (and its dashboard, when the cluster has one).
Needs ``pip install "motionfusion[dask]"``.
"""
from __future__ import annotations

import ast
import logging
import os
import sys
import tempfile
import time
import uuid
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np

from . import _native
from ._core import MotionFusionError, PathLike, folder_plan
from .plan import SECONDS_PER_BYTE, batches, task_count, trace_bytes


def replay_folder(
    src: PathLike, dst: PathLike, *, n_workers: int | None = None, client: Any = None, filter: str = "ekf",
    mode: str | None = None, format: str | None = None, options: Sequence[str] = (), progress: bool = True,
    processes: bool = False, batch_seconds: float | None = 1.0,
) -> list[dict[str, Any]]:
    """Replays every trace of the folder ``src`` into the folder ``dst`` on Dask, traces batched into tasks:
    the same files as ``motionfusion replay SRC --output DST --filter FILTER --mode MODE`` (``mode``
    None: the filter's default, as without ``--mode``).

    ``client``: a ``dask.distributed.Client`` to run on; without one a ``LocalCluster`` running
    ``n_workers`` traces at a time (default: one per core) is started and closed: threads of this
    process, or with ``processes=True`` single-threaded worker processes (the calling script then
    needs ``if __name__ == "__main__":`` around the call, as for any process pool).
    ``format`` names the recording format (default: detected per trace); ``options`` are further
    ``replay`` options, e.g. ``["--frame", "ned", "--param", "gyroscopeNoise=0.003"]``.
    ``progress`` shows Dask's progress bar (of the tasks).
    ``batch_seconds``: the estimated work of one task (seconds of one core, estimated from the
    traces' sizes): consecutive traces are grouped into tasks of about that much, never splitting a
    trace, with at least one task per worker and a multiple of the workers' number of tasks; None
    or 0: one task per trace.

    Returns one dict per trace, in the command line's order: ``input``, ``output``, ``status`` (the
    command line's exit status: 0 ok, 1 bad input, 2 usage), ``messages`` (what it printed on
    standard error: warnings, errors) and ``seconds``. A failing trace does not stop the others;
    when any failed, :class:`motionfusion.MotionFusionError` is raised after all finished, with the
    per-trace results in its ``results`` attribute. Outputs that would overwrite an input, and a
    ``src`` that is not a folder of traces, are refused before anything runs.
    """
    args = ["--filter", filter] + ([] if mode is None else ["--mode", mode])
    return _run_folder("replay", src, dst, args, n_workers, client, format, options, progress, processes,
                       batch_seconds)


def reconstruct_folder(
    src: PathLike, dst: PathLike, *, n_workers: int | None = None, client: Any = None, filter: str = "ekf",
    mode: str | None = None, format: str | None = None, options: Sequence[str] = (), progress: bool = True,
    processes: bool = False, batch_seconds: float | None = 1.0,
) -> list[dict[str, Any]]:
    """As :func:`replay_folder`, with ``motionfusion reconstruct`` (best offline attitude) per trace.
    ``filter`` must be "ekf", the filter the reconstruction is built on."""
    if filter.lower() != "ekf":
        raise MotionFusionError("reconstruct runs the EKF (filter ekf)", _native.ERROR_USAGE)
    args = [] if mode is None else ["--mode", mode]
    return _run_folder("reconstruct", src, dst, args, n_workers, client, format, options, progress, processes,
                       batch_seconds)


def _option_values(options: Sequence[str], name: str) -> list[str]:
    """The values of ``--name VALUE`` and ``--name=VALUE`` in ``options``."""
    values = []
    for i, o in enumerate(options):
        if o == f"--{name}" and i + 1 < len(options):
            values.append(options[i + 1])
        elif o.startswith(f"--{name}="):
            values.append(o.split("=", 1)[1])
    return values


def _check_options(command: str, args: list[str]) -> None:
    """Runs the command line once with the run's options on a trace that does not exist: a bad
    option (a usage error) or an unreadable file they name (a calibration) fails here, once,
    with the command line's message, instead of in every task."""
    probe = os.path.join(tempfile.gettempdir(), f"motionfusion-option-check-{uuid.uuid4().hex}")
    status, _, err = _native.run_cli([command, "--output", os.path.join(probe, "out.csv"), *args, "--",
                                      os.path.join(probe, "in.csv")])
    if status == 0 or (status == 1 and probe in err):
        return
    lines = [line for line in err.splitlines() if "error: " in line]
    raise MotionFusionError((lines[0].split("error: ", 1)[1] if lines else err.strip()), status)


def _unguarded_call() -> str | None:
    """``file:line`` of the module-level line of the main script that leads here when it is not
    under ``if __name__ == "__main__":`` (worker processes re-run the script from the top), else
    None."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or not os.path.isfile(path):
        return None  # interactive, -c, or a notebook: nothing is re-run
    line = None
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>":
            line = frame.f_lineno
        frame = frame.f_back
    if line is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None

    def is_guard(node: ast.AST) -> bool:
        t = node.test if isinstance(node, ast.If) else None
        return (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
                and len(t.comparators) == 1 and isinstance(t.comparators[0], ast.Constant)
                and t.comparators[0].value == "__main__")

    for node in tree.body:
        if is_guard(node) and node.lineno <= line <= (node.end_lineno or line):
            return None
    return f"{path}:{line}"


@contextmanager
def _quiet_shutdown() -> Iterator[None]:
    """Closing a cluster, above all after an interruption, can make Dask log a CancelledError
    traceback for each of its own internal tasks it cancels; nothing failed, so its loggers are
    silenced while the cluster closes."""
    names = ("distributed", "tornado", "asyncio")
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _run_folder(
    command: str, src: PathLike, dst: PathLike, args: list[str], n_workers: int | None, client: Any,
    format: str | None, options: Sequence[str], progress: bool, processes: bool = False,
    batch_seconds: float | None = 1.0,
) -> list[dict[str, Any]]:
    options = [str(o) for o in options]
    for taken in ("output", "format", "filter", "mode"):
        if _option_values(options, taken) or f"--{taken}" in options:
            raise MotionFusionError(f"pass {taken} as the keyword argument, not in options", _native.ERROR_USAGE)
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1):
        raise ValueError(f"n_workers must be a positive integer or None; got {n_workers!r}")
    if batch_seconds is not None and (isinstance(batch_seconds, bool) or not isinstance(batch_seconds, (int, float))
                                      or not batch_seconds >= 0):
        raise ValueError(f"batch_seconds must be a number >= 0 or None; got {batch_seconds!r}")
    if format is not None:
        args += ["--format", format]
    args += options
    # Everything that would fail in every task fails here, once, before a cluster starts.
    _check_options(command, args)
    if client is None and processes:
        where = _unguarded_call()
        if where:
            raise MotionFusionError(
                f"{where}: processes=True starts worker processes, which re-run this script from the top: put "
                "the call under `if __name__ == \"__main__\":`, or leave processes=False (threads; each trace "
                "runs in a child process)", _native.ERROR_USAGE)
    plan = folder_plan(src, dst, format=format, extra_inputs=_option_values(options, "calibration"))
    for note in plan.notes:
        print(note, file=sys.stderr)

    with _client(n_workers, client, processes) as run_on:
        groups = _batches(command, plan.inputs, _workers(run_on), batch_seconds)
        n = len(groups)
        done = _gather(run_on, _run_batch, [command] * n, [[plan.inputs[k] for k in g] for g in groups],
                       [[plan.outputs[k] for k in g] for g in groups], [args] * n, progress=progress)
    return _report([r for batch in done for r in batch])


def _workers(client: Any) -> int:
    """How many tasks `client`'s cluster runs at once (its workers' threads; 1 when unknown)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:
        return 1


def _batches(command: str, inputs: Sequence[str], workers: int, batch_seconds: float | None) -> list[list[int]]:
    """The plan's traces (indices) grouped into tasks: consecutive traces, about `batch_seconds` of
    estimated work each, a multiple of `workers` tasks (:func:`motionfusion.plan.task_count`)."""
    if not batch_seconds:
        return [[k] for k in range(len(inputs))]
    work = [trace_bytes(i) * SECONDS_PER_BYTE[command] for i in inputs]
    return batches(work, task_count(sum(work), len(work), batch_seconds, workers))


@contextmanager
def _client(n_workers: int | None, client: Any, processes: bool) -> Iterator[Any]:
    """The client to run on: `client`, or a LocalCluster started for the run and closed after it
    (threads of this process, or single-threaded worker processes with `processes`)."""
    if client is not None:
        yield client
        return
    from dask.distributed import Client, LocalCluster

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = n_workers or cores
    if processes:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    else:
        cluster = LocalCluster(n_workers=1, threads_per_worker=workers, processes=False, dashboard_address=":0")
    own = Client(cluster)
    try:
        yield own
    finally:
        with _quiet_shutdown():
            own.close()
            cluster.close()


def _gather(client: Any, function: Any, *iterables: Sequence[Any], progress: bool) -> list[Any]:
    """`function` mapped over `iterables` on `client`, one task each, gathered in order; an
    interruption or a failure cancels what is left."""
    futures: list = []
    try:
        futures = client.map(function, *iterables, pure=False)
        if progress:
            from dask.distributed import progress as show_progress

            show_progress(futures)
        return client.gather(futures)
    except BaseException:
        # Interrupted (Ctrl-C) or failed: nothing is left running on the cluster.
        with _quiet_shutdown():
            client.cancel(futures)
        raise


def _report(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Prints each task's messages; raises once, after all finished, when any failed."""
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


def _run_batch(command: str, traces: list[str], outputs: list[str], args: list[str]) -> list[dict[str, Any]]:
    """One task: the command line on each trace of a batch in turn, each with its own result (a
    failing trace does not stop the next)."""
    return [_run_trace(command, t, o, args) for t, o in zip(traces, outputs)]


def _run_trace(command: str, trace: str, output: str, args: list[str]) -> dict[str, Any]:
    """One trace of a task: the command line on it, a child process of the worker. ``--`` ends the
    options, so any trace name is read as a path."""
    start = time.perf_counter()
    status, _, err = _native.run_cli([command, "--output", output, *args, "--", trace])
    return {"input": trace, "output": output, "status": status, "messages": err,
            "seconds": time.perf_counter() - start}


# ---- Parquet datasets ---------------------------------------------------------------------------

#: The columns of a written estimate table: the command line's estimate-file names where they exist.
PARQUET_COLUMNS = {
    "quaternion": ("qw", "qx", "qy", "qz"), "euler_deg": ("roll", "pitch", "yaw"), "heading_deg": ("heading",),
    "used": ("used",), "gyro_bias": ("bias_x", "bias_y", "bias_z"), "sigma_attitude_deg": ("sigma_attitude_deg",),
    "sigma_heading_deg": ("sigma_heading_deg",),
}


def _parquet_inputs(src: PathLike) -> list[str]:
    """The Parquet files of `src`: the file itself, or every *.parquet below the folder (a dataset,
    partitioned or not), in sorted order."""
    path = os.fspath(src)
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise MotionFusionError(f"{path}: no such file or folder", _native.ERROR_INPUT)
    found = sorted(os.path.join(root, f) for root, _, files in os.walk(path) for f in files if f.endswith(".parquet"))
    if not found:
        raise MotionFusionError(f"{path}: no .parquet files in the folder", _native.ERROR_INPUT)
    return found


def replay_parquet(
    src: PathLike, dst: PathLike, *, n_workers: int | None = None, client: Any = None, filter: str = "ekf",
    mode: str | None = None, frame: str = "enu", declination: float | None = None,
    parameters: dict[str, float] | None = None, reconstruct: bool = False, progress: bool = True,
    processes: bool = False,
) -> list[dict[str, Any]]:
    """Replays every trace of a Parquet dataset on Dask, one task per file, writing Parquet.

    ``src`` is a Parquet file or a folder of them (searched recursively, e.g. a partitioned
    dataset), one trace per file with the native column names :func:`motionfusion.from_table` reads
    (``t``, ``gyr_x``..., ``acc_x``..., ``mag_x``..., or 3-value list columns). Each trace's estimates go to
    ``dst/<the file's path below src>`` (a single file: ``dst/<its name>``), written atomically: ``t``
    and the outputs of :func:`motionfusion.replay` under the command line's column names (``qw``, ``qx``,
    ``qy``, ``qz``, ``roll``, ``pitch``, ``yaw``, ``heading``, ``used``, ``bias_x``..., ``sigma_attitude_deg``,
    ``sigma_heading_deg``). ``filter``, ``mode``, ``frame``, ``declination`` and ``parameters`` are
    :func:`~motionfusion.replay`'s; ``reconstruct=True`` runs :func:`~motionfusion.reconstruct` instead.
    ``n_workers``, ``client``, ``progress`` and ``processes`` are as for :func:`replay_folder`.

    Returns one dict per file (``input``, ``output``, ``status``, ``messages``: its warnings, ``seconds``).
    Options are checked once before any task; an output that would overwrite an input is refused
    before anything runs; a failing trace does not stop the others, and
    :class:`motionfusion.MotionFusionError` is raised after all finished (``results`` attribute).
    Needs pyarrow (``pip install "motionfusion[arrow,dask]"``).
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError as e:
        raise ImportError(f'replay_parquet needs pyarrow: pip install "motionfusion[arrow]" ({e})') from e
    from . import _core

    options = {"filter": filter, "mode": mode, "frame": frame, "declination": declination, "parameters": parameters}
    run = _core.reconstruct if reconstruct else _core.replay
    # Everything that would fail in every task fails here, once: the options on a two-sample recording.
    probe = np.array([0.0, 0.01])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _core.replay(probe, np.zeros((2, 3)), np.tile([0.0, 0.0, 9.81], (2, 1)), np.tile([20.0, 0, -40], (2, 1)),
                         **options)
        except MotionFusionError as e:
            if e.code == _native.ERROR_USAGE:
                raise
    if reconstruct and str(filter).lower() != "ekf":
        raise MotionFusionError("reconstruct runs the EKF (filter ekf)", _native.ERROR_USAGE)
    inputs = _parquet_inputs(src)
    base = os.fspath(src) if os.path.isdir(os.fspath(src)) else os.path.dirname(os.fspath(src))
    outputs = [os.path.join(os.fspath(dst), os.path.relpath(i, base)) for i in inputs]
    taken = {os.path.realpath(i) for i in inputs}
    for o in outputs:
        if os.path.realpath(o) in taken:
            raise MotionFusionError(f"{o}: the output would overwrite an input; choose another dst", _native.ERROR_USAGE)
    if client is None and processes:
        where = _unguarded_call()
        if where:
            raise MotionFusionError(
                f"{where}: processes=True starts worker processes, which re-run this script from the top: put "
                "the call under `if __name__ == \"__main__\":`, or leave processes=False", _native.ERROR_USAGE)
    n = len(inputs)
    with _client(n_workers, client, processes) as run_on:
        results = _gather(run_on, _replay_parquet_file, inputs, outputs, [run] * n, [options] * n, progress=progress)
    return _report(results)


def _replay_parquet_file(source: str, output: str, run: Any, options: dict[str, Any]) -> dict[str, Any]:
    """One task: one Parquet trace replayed into one Parquet estimate table, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .tables import from_table

    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            arrays = from_table(pq.read_table(source))
            out = run(**arrays, **options)
        except (MotionFusionError, ValueError, OSError) as e:
            code = getattr(e, "code", _native.ERROR_INPUT)
            return {"input": source, "output": output, "status": code, "messages": f"{source}: error: {e}\n",
                    "seconds": time.perf_counter() - start}
    columns = {"t": arrays["t"]}
    for key, names in PARQUET_COLUMNS.items():
        values = out[key].reshape(len(arrays["t"]), -1)
        for i, name in enumerate(names):
            columns[name] = values[:, i]
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix=".", suffix=".parquet.part", dir=os.path.dirname(output) or ".")
    os.close(fd)
    try:
        pq.write_table(pa.table(columns), partial)
        os.replace(partial, output)
    except BaseException:
        os.unlink(partial)
        raise
    messages = "".join(f"{source}: warning: {w.message}\n" for w in caught)
    return {"input": source, "output": output, "status": 0, "messages": messages, "seconds": time.perf_counter() - start}


__all__ = ["reconstruct_folder", "replay_folder", "replay_parquet"]
