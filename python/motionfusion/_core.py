"""The Python API over the C ABI: batch replay and reconstruction, trace loading, the BROAD metric
and the folder-run plan. The per-sample filter is in :mod:`._filter`, the arrays' checks in
:mod:`._arrays`."""
from __future__ import annotations

import ctypes
import json
import math
import numbers
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _native
from ._arrays import (
    _COLUMNS, OUTPUTS, _address, _array, _check_time_precision, _option, _parameters, _screen,
)
from ._filter import Filter
from ._native import MotionFusionError, MotionFusionWarning, SolveError, check, encode, error_buffer, lib, take_string

PathLike = Union[str, "os.PathLike[str]"]

#: The filters by name (``filter=`` of :func:`replay`, ``kind`` of :class:`Filter`), as the library
#: lists them.
FILTERS = tuple(lib.mf_filters().decode().split(","))


def version() -> str:
    """The version of the bundled MotionFusion library."""
    return lib.mf_version().decode()


def _batch(function, t, gyr, acc, mag, filter, mode, frame, declination, parameters, outputs) -> dict[str, np.ndarray]:
    _check_time_precision(t, "")
    t = _array(t, "t", None, None)
    n = t.shape[0]
    gyr = None if gyr is None else _array(gyr, "gyr", 3, n)
    acc = None if acc is None else _array(acc, "acc", 3, n)
    mag = None if mag is None else _array(mag, "mag", 3, n)
    gyr, acc, mag = _screen(t, gyr, acc, mag, mode)
    wanted = OUTPUTS if outputs is None else tuple(outputs)
    unknown = sorted(set(wanted) - set(OUTPUTS))
    if unknown or isinstance(outputs, str):
        raise ValueError(f"outputs must name some of {', '.join(OUTPUTS)}; got {outputs!r}")
    out = {}
    for key in OUTPUTS:
        if key in wanted:
            shape = (n, _COLUMNS[key]) if key in _COLUMNS else (n,)
            out[key] = np.empty(shape, dtype=np.bool_ if key == "used" else np.float64)
    err = error_buffer()
    status = function(
        _option(filter), _option(mode), _parameters(parameters), _option(frame),
        math.nan if declination is None else float(declination), n,
        _address(t), _address(gyr), _address(acc), _address(mag),
        *(_address(out.get(k)) for k in OUTPUTS), err, len(err))
    warned = take_string(lib.mf_run_warnings())
    if status != _native.OK and function is lib.mf_reconstruct and "normal equations of" in err.value.decode():
        e = SolveError(err.value.decode("utf-8", "replace"), status)
        e.result = out
        raise e
    check(status, err)
    for line in warned.splitlines():
        warnings.warn(line, MotionFusionWarning, stacklevel=3)
    return out


def replay(
    t: Any, gyr: Any, acc: Any, mag: Any = None, *, filter: str = "ekf", mode: str | None = None,
    frame: str = "enu", declination: float | None = None, parameters: Mapping[str, float] | None = None,
    outputs: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Runs a filter over a whole recording in one call: the same run, sample for sample, as
    ``motionfusion replay`` of a file, which starts with the magnetometer calibration its filter
    comes to trust within the opening 120 s (:class:`Filter`, like live input, starts uncalibrated).

    Inputs are numpy arrays (or anything numpy converts), read in place without a copy when they
    are C-contiguous float64: ``t`` (N,) in seconds, ``gyr`` (N, 3) rad/s, ``acc`` (N, 3) m/s², ``mag``
    (N, 3) µT or None (each sensor may be None when the recording lacks it). A row with a NaN means
    "no value of that sensor at this sample". ``filter`` is one of :data:`FILTERS`; ``mode`` is
    "6d", "9d" or None, the filter's own default as on the command line; "9d" without a
    magnetometer value runs 6D and warns (:class:`MotionFusionWarning`). ``frame``
    is the earth frame of the outputs ("enu", "ned", "nwu"); ``declination`` (degrees east)
    references them to true north; ``parameters`` sets filter parameters by name in SI units (the
    command line's ``--param``). ``outputs`` names the arrays to compute (default: all of
    :data:`OUTPUTS`); ``outputs=["quaternion"]`` skips the Euler-angle and heading conversions.

    Returns a dict of numpy arrays, one row per sample, the columns of the command line's estimate
    file (unrounded):

    - ``quaternion`` (N, 4): attitude w, x, y, z, earth (``frame``) from sensor, w >= 0;
    - ``euler_deg`` (N, 3): roll, pitch, yaw (Z-Y'-X'') of that attitude, degrees;
    - ``heading_deg`` (N,): degrees clockwise from north in [0, 360) (true north with a
      declination, else magnetic);
    - ``used`` (N,) bool: the filter had an attitude and used a sensor for the sample;
    - ``gyro_bias`` (N, 3): gyroscope bias estimate, rad/s;
    - ``sigma_attitude_deg``, ``sigma_heading_deg`` (N,): one-sigma uncertainties, degrees (180
      while unknown); NaN for filters without one (all but the EKF).

    The arrays are screened as :func:`load` screens a file, by the library's own checks: implausible
    units (a gyroscope in deg/s, times in ms or sample indices, ...), repeated or backward times
    and values beyond any sensor's range warn (:class:`MotionFusionWarning`) with the fix for
    arrays, and such a value counts as no value (the caller's array is left alone).

    Raises :class:`MotionFusionError` for an unknown filter, mode or parameter, for float32 times
    too coarse for their values (epoch seconds: keep float64), and for inputs without any finite
    time or accelerometer value; ValueError for arrays of the wrong shape.
    """
    return _batch(lib.mf_replay, t, gyr, acc, mag, filter, mode, frame, declination, parameters, outputs)


def replay_many(
    traces: Sequence[Mapping[str, Any]], *, filter: str = "ekf", mode: str | None = None, frame: str = "enu",
    declination: float | None = None, parameters: Mapping[str, float] | None = None, workers: int | None = None,
) -> list[np.ndarray]:
    """Runs a filter over many recordings in one call: for each, the ``quaternion`` output of
    :func:`replay` on it, bit for bit.

    ``traces`` is a sequence of mappings with ``t``, ``gyr``, ``acc`` and optionally ``mag``, as
    :func:`replay` takes them (what :func:`load` returns will do); recordings may differ in length,
    rate and sensors. Recordings run on up to ``workers`` threads at once (None: one per processor
    available to the process), each recording on one thread; the results do not depend on
    ``workers``. The GIL is released during the run, so other Python threads keep running.
    Returns one (N, 4) array per recording: attitude w, x, y, z, earth (``frame``) from sensor.
    Warnings are :func:`replay`'s, headed ``traces[i]: `` (the magnetometer rejected most of a
    9D run, and what screening the arrays finds).
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None; got {workers!r}")
    prepared = []
    for i, trace in enumerate(traces):
        if not isinstance(trace, Mapping) or "t" not in trace:
            raise ValueError(f"traces[{i}] must be a mapping with 't', 'gyr', 'acc' and optionally 'mag'")
        _check_time_precision(trace["t"], f"traces[{i}]: ")
        t = _array(trace["t"], f"traces[{i}]['t']", None, None)
        n = t.shape[0]
        sensors = [None if trace.get(k) is None else _array(trace[k], f"traces[{i}]['{k}']", 3, n)
                   for k in ("gyr", "acc", "mag")]
        sensors = list(_screen(t, *sensors, mode, f"traces[{i}]: ", stacklevel=3))
        prepared.append((t, *sensors, np.empty((n, 4), dtype=np.float64)))
    count = len(prepared)

    def pointers(column: int) -> ctypes.Array:
        return (ctypes.c_void_p * max(count, 1))(*(_address(p[column]) for p in prepared))

    lengths = (ctypes.c_size_t * max(count, 1))(*(p[0].shape[0] for p in prepared))
    columns = [pointers(c) for c in range(5)]  # t, gyr, acc, mag, quaternion; alive through the call
    err = error_buffer()
    status = lib.mf_replay_many(
        _option(filter), _option(mode), _parameters(parameters), _option(frame),
        math.nan if declination is None else float(declination), count, ctypes.addressof(lengths),
        *(ctypes.addressof(c) for c in columns), int(workers or 0), err, len(err))
    warned = take_string(lib.mf_run_warnings())
    check(status, err)
    # replay's warnings, per trace (the library heads them "trace I: ").
    for line in warned.splitlines():
        warnings.warn(re.sub(r"^trace (\d+): ", r"traces[\1]: ", line), MotionFusionWarning, stacklevel=2)
    return [p[4] for p in prepared]


def reconstruct(
    t: Any, gyr: Any, acc: Any, mag: Any = None, *, filter: str = "ekf", mode: str | None = None,
    frame: str = "enu", declination: float | None = None, parameters: Mapping[str, float] | None = None,
    outputs: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """The best offline attitude of every sample, using past and future samples: the same run as
    ``motionfusion reconstruct``. Arguments and outputs as :func:`replay`; ``filter`` must be
    "ekf", the filter the reconstruction is built on (``parameters`` tune it), and the
    uncertainties are the reconstruction's own.

    BLAS/LAPACK come from the package's scipy-openblas32 dependency (the environment variable
    ``MOTIONFUSION_LAPACK`` names another library file, or ``system`` for the system's OpenBLAS and
    LAPACKE). A library that cannot be loaded raises :class:`MotionFusionError` naming it and the
    fix; a window whose normal equations could not be solved raises :class:`SolveError` with
    LAPACK's ``routine`` and ``info`` code (its ``result`` holds the outputs, those windows at the
    initialising smoother's attitude): never a silent fallback.
    """
    return _batch(lib.mf_reconstruct, t, gyr, acc, mag, filter, mode, frame, declination, parameters, outputs)


# ---- Traces -----------------------------------------------------------------------------------

_CONTENTS = {"gyr": 1, "acc": 2, "mag": 4, "gt": 8, "moving": 16}


def _spec(value: str | Mapping[str, Any] | None, name: str) -> bytes | None:
    """A ``KEY=VALUE,...`` option of the command line, given as that text or as a dict."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        parts = []
        for k, v in value.items():
            if not isinstance(k, str) or not k or any(c in k for c in "=,"):
                raise ValueError(f"{name} keys must be names such as 'gyr' or 't'; got {k!r}")
            parts.append(f"{k}={v}")
        value = ",".join(parts)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a 'KEY=VALUE,...' string or a dict; got {type(value).__name__}")
    return value.encode()


def load(
    path: PathLike, format: str | None = None, *, columns: str | Mapping[str, Any] | None = None,
    units: str | Mapping[str, str] | None = None, sample_rate: float | None = None, remap: str | None = None,
    header_rows: int | None = None, imu_topic: str | None = None, mag_topic: str | None = None,
) -> dict[str, np.ndarray]:
    """Reads a trace in any supported format (a native CSV, any delimited file with named columns,
    EuRoC, xio Fusion, x-IMU3, phyphox, Sensor Logger; a file, a recording folder or a .zip),
    detected from its contents unless ``format`` names it.

    ``columns`` and ``units`` are the command line's ``--columns`` and ``--units``, as their text or
    as a dict: ``columns={"t": 1, "acc": 6, "gyr": 9}`` (1-based column numbers or header names;
    x column, y and z follow) reads any delimited file; ``units={"gyr": "deg/s", "acc": "g", "t":
    "ms"}`` overrides the header's unit hints. ``sample_rate`` (Hz) is ``--sample-rate``: the rate of
    rows without a time column, or of a sample counter (``units={"t": "count"}``). ``remap`` is
    ``--remap`` (body axes from the raw ones, e.g. ``"x,-z,y"`` or ``"+Y-X+Z"`` for every sensor, or
    per sensor: ``"mag=+Y+X-Z"``, ``"acc=x,-z,y,mag=-y,-x,-z"``) and ``header_rows`` is ``--header-rows`` (lines before the data, the first naming the
    columns; 0 needs ``columns``).

    ROS bags (a ROS 1 ``.bag``, a ROS 2 bag folder or ``.mcap``) are read with the ``rosbags``
    library (``pip install "motionfusion[ros]"``): sensor_msgs/Imu gives ``t`` (header stamps),
    ``gyr`` and ``acc``, sensor_msgs/MagneticField gives ``mag`` (tesla to µT), merged on time.
    ``imu_topic`` and ``mag_topic`` choose the topics; by default the one topic of each type (an
    error lists them when there are several). See :func:`motionfusion.ros.load_bag`.

    Returns a dict of float64 arrays: ``t`` (N,) s, and where the recording has them ``gyr``,
    ``acc``, ``mag`` (N, 3) in rad/s, m/s², µT, ``gt`` (N, 4) ground truth w, x, y, z (ENU from
    sensor), with NaN rows where a sample has no value, and ``moving`` (N,) bool when the trace
    marks the scored phase. Values the reader repaired (NaN axes, values beyond any sensor's range)
    are NaN, and each repair or unit guess is reported as a :class:`MotionFusionWarning`. Raises
    :class:`MotionFusionError` with ``file:line:column`` for a malformed trace.
    """
    from . import ros

    if ros.is_bag(path, format):
        others = {"columns": columns, "units": units, "sample_rate": sample_rate, "remap": remap,
                  "header_rows": header_rows}
        given = [k for k, v in others.items() if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: not options of a ROS bag (its messages carry their fields and units)")
        return ros.load_bag(path, imu_topic=imu_topic, mag_topic=mag_topic)
    if imu_topic is not None or mag_topic is not None:
        raise ValueError(f"imu_topic and mag_topic are for ROS bags (.bag, .mcap, or a ROS 2 bag folder); "
                         f"{os.fsdecode(path)} is not one")
    if header_rows is not None and (isinstance(header_rows, bool) or not isinstance(header_rows, numbers.Integral)):
        raise TypeError(f"header_rows must be an integer; got {header_rows!r}")
    if header_rows is not None and not 0 <= header_rows <= 1000:
        raise MotionFusionError(f"header_rows must be within 0...1000; got {header_rows}", _native.ERROR_USAGE)
    if remap is not None and not isinstance(remap, str):
        raise TypeError(f"remap must be a string such as 'x,-z,y' or 'mag=+Y+X-Z'; got {type(remap).__name__}")
    handle = ctypes.c_void_p()
    err = error_buffer()
    rate = math.nan if sample_rate is None else float(sample_rate)
    check(lib.mf_trace_load_ex(encode(path), _option(format), _spec(columns, "columns"), _spec(units, "units"),
                               rate, _option(remap), -1 if header_rows is None else int(header_rows),
                               ctypes.byref(handle), err, len(err)), err)
    try:
        n = lib.mf_trace_count(handle)
        contents = lib.mf_trace_contents(handle)
        out: dict[str, np.ndarray] = {"t": np.empty(n)}
        shapes = {"gyr": (n, 3), "acc": (n, 3), "mag": (n, 3), "gt": (n, 4)}
        for key, bit in _CONTENTS.items():
            if contents & bit:
                out[key] = np.empty(n, dtype=np.bool_) if key == "moving" else np.empty(shapes[key])
        lib.mf_trace_copy(handle, *(_address(out.get(k)) for k in ("t", "gyr", "acc", "mag", "gt", "moving")))
        for line in take_string(lib.mf_trace_warnings(handle)).splitlines():
            warnings.warn(line, MotionFusionWarning, stacklevel=2)
    finally:
        lib.mf_trace_free(handle)
    return out


def info(
    path: PathLike, format: str | None = None, *, columns: str | Mapping[str, Any] | None = None,
    units: str | Mapping[str, str] | None = None, sample_rate: float | None = None,
) -> dict[str, Any] | list[dict[str, Any]]:
    """What ``motionfusion info --json`` reports about a trace: format, start time, duration, rates
    and gaps per sensor, norms at rest, units, value faults (the command line itself, the bundled
    executable, run as a child process). Options as :func:`load`. Its warnings (unit guesses, repairs, a gyroscope offset)
    are :class:`MotionFusionWarning`. A folder of several traces gives one dict per trace, in a list."""
    args = ["info", "--json"]
    if format is not None:
        args += ["--format", str(format)]
    for name, value in (("columns", columns), ("units", units)):
        spec = _spec(value, name)
        if spec is not None:
            args += [f"--{name}", spec.decode()]
    if sample_rate is not None:
        args += ["--sample-rate", repr(float(sample_rate))]
    status, out, err = _native.run_cli(args + ["--", os.fsdecode(path)])
    messages = [line for line in err.splitlines() if line.strip()]
    if status != 0:
        errors = [m.split(" error: ", 1)[1] if " error: " in m else m for m in messages if "error:" in m]
        raise MotionFusionError("\n".join(errors or messages), status)
    for line in messages:
        warnings.warn(line, MotionFusionWarning, stacklevel=2)
    reports = [json.loads(line) for line in out.splitlines() if line.strip()]
    return reports[0] if len(reports) == 1 else reports


# ---- Evaluation -------------------------------------------------------------------------------

def evaluate(
    quaternion: Any, truth_trace: PathLike | Mapping[str, Any], mode: str = "9d", *, frame: str = "enu",
    format: str | None = None,
) -> dict[str, Any]:
    """Scores estimates against ground truth with the BROAD metric, the figures of
    ``motionfusion evaluate --json``: total, heading and inclination RMSE in degrees over the samples
    that are moving and have truth; in 6D a constant heading offset is removed first.

    ``quaternion`` is (N, 4), one row per sample of the truth trace (e.g. ``replay(...)["quaternion"]``),
    in ``frame``. ``truth_trace`` is a trace path (read with :func:`load`) or a dict as :func:`load`
    returns (``gt``, and ``moving`` when known). Returns ``total_rmse_deg``, ``heading_rmse_deg``,
    ``inclination_rmse_deg``, ``samples_used``, ``heading_offset_deg`` and ``mode``.
    """
    if not isinstance(mode, str):
        raise TypeError(f"mode must be '6d' or '9d', got {mode!r}")
    truth = load(truth_trace, format) if isinstance(truth_trace, (str, bytes, os.PathLike)) else truth_trace
    if "gt" not in truth:
        raise MotionFusionError("the truth trace has no ground truth (gt) to score against")
    gt = _array(truth["gt"], "gt", 4, None)
    q = _array(quaternion, "quaternion", 4, gt.shape[0], reference="the ground truth (gt)")
    moving = truth.get("moving")
    if moving is not None:
        moving = np.ascontiguousarray(moving, dtype=np.bool_)
        if moving.shape != (gt.shape[0],):
            raise ValueError(f"moving must have shape ({gt.shape[0]},), got {moving.shape}")
    result = np.empty(5)
    err = error_buffer()
    check(lib.mf_evaluate(gt.shape[0], _address(q), _option(frame), _address(gt), _address(moving), _option(mode),
                          _address(result), err, len(err)), err)
    return {
        "total_rmse_deg": float(result[0]), "heading_rmse_deg": float(result[1]),
        "inclination_rmse_deg": float(result[2]), "samples_used": int(result[3]),
        "heading_offset_deg": float(result[4]), "mode": mode.lower(),
    }


# ---- Folder runs ------------------------------------------------------------------------------

@dataclass(frozen=True)
class FolderPlan:
    """What ``motionfusion replay SRC --output DST`` runs when SRC is a folder of traces."""

    #: The traces, in the command line's order.
    inputs: tuple[str, ...]
    #: The output file of each trace, named as the command line names it.
    outputs: tuple[str, ...]
    #: The messages the command line prints for outputs renamed because two traces share a name.
    notes: tuple[str, ...]


def folder_plan(
    source: PathLike, output: PathLike, *, format: str | None = None, extra_inputs: Sequence[PathLike] = (),
) -> FolderPlan:
    """The plan of a folder run, decided by the command line's own code: the traces of ``source``
    and the output file of each in ``output``. Like the command line, it refuses (raising
    :class:`MotionFusionError`) any output that would overwrite an input (a file below ``source`` or
    one of ``extra_inputs``, such as a calibration file) and creates ``output`` when missing. Raises
    when ``source`` is a single trace rather than a folder of traces.
    """
    plan = ctypes.c_void_p()
    err = error_buffer()
    extras = _native.string_array(list(extra_inputs))
    check(lib.mf_folder_plan(encode(source), encode(output), _option(format), extras, len(extra_inputs),
                             ctypes.byref(plan), err, len(err)), err)
    p = json.loads(take_string(plan.value))
    if not p["folder"]:
        raise MotionFusionError(f"{os.fsdecode(source)}: is one trace, not a folder of traces", _native.ERROR_USAGE)
    return FolderPlan(tuple(p["inputs"]), tuple(p["outputs"]), tuple(p["notes"]))


def run_cli(arguments: Sequence[PathLike]) -> tuple[int, str, str]:
    """Runs ``motionfusion ARGUMENTS`` (the bundled executable) as a child process and returns its
    exit status (0, 1 for bad input, 2 for a usage error, 128 + n after signal n) and what it
    printed on standard output and standard error."""
    return _native.run_cli(arguments)


__all__ = [
    "FILTERS", "OUTPUTS", "Filter", "FolderPlan", "MotionFusionError", "MotionFusionWarning", "SolveError", "evaluate", "folder_plan",
    "info", "load", "reconstruct", "replay", "replay_many", "run_cli", "version",
]
