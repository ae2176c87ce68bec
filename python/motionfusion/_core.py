"""The Python API over the C ABI: batch replay and reconstruction, trace loading, the BROAD metric,
the per-sample filter, and the folder-run plan."""
from __future__ import annotations

import ctypes
import functools
import json
import math
import numbers
import os
import re
import struct
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _native
from ._native import MotionFusionError, MotionFusionWarning, SolveError, _step, check, encode, error_buffer, lib, take_string

PathLike = Union[str, "os.PathLike[str]"]

#: The filters by name (``filter=`` of :func:`replay`, ``kind`` of :class:`Filter`).
FILTERS = ("ekf", "complementary", "mahony", "madgwick", "ecompass", "tilt")


def version() -> str:
    """The version of the bundled MotionFusion library."""
    return lib.mf_version().decode()


# ---- Arrays -----------------------------------------------------------------------------------

def _real(a: Any, name: str) -> None:
    """Refuses complex values (numpy would drop the imaginary part with only a warning)."""
    if np.iscomplexobj(a):
        raise TypeError(f"{name} must be real numbers, got complex values")


def _array(a: Any, name: str, columns: int | None, n: int | None, reference: str = "t") -> np.ndarray:
    """`a` as a C-contiguous float64 array of shape (n,) or (n, columns): the array itself when it
    already is one (no copy), else a converted copy. `reference` names what has the n rows."""
    _real(a, name)
    arr = np.ascontiguousarray(a, dtype=np.float64)
    if columns is None:
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (N,), got shape {arr.shape}")
    elif arr.ndim != 2 or arr.shape[1] != columns:
        raise ValueError(f"{name} must have shape (N, {columns}), got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but {reference} has {n}")
    return arr


def _address(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


def _option(value: str | None) -> bytes | None:
    return None if value is None else str(value).encode()


def _parameters(parameters: Mapping[str, float] | None) -> bytes | None:
    """``{"name": value}`` as the C ABI's ``name=value,...`` (``a__b`` may spell the dotted ``a.b``)."""
    if not parameters:
        return None
    parts = []
    for name, value in parameters.items():
        if not isinstance(name, str):
            raise TypeError(f"parameter names must be strings, got {name!r}")
        if "=" in name or "," in name or not name:
            raise ValueError(f"not a parameter name: {name!r}")
        parts.append(f"{name.replace('__', '.')}={float(value)!r}")
    return ",".join(parts).encode()


#: The outputs of :func:`replay` and :func:`reconstruct`, in the C ABI's order, with their shapes.
OUTPUTS = ("quaternion", "euler_deg", "heading_deg", "used", "gyro_bias", "sigma_attitude_deg", "sigma_heading_deg")
_COLUMNS = {"quaternion": 4, "euler_deg": 3, "gyro_bias": 3}


def _warn_if_9d_without_magnetometer(mode: Any, mag: np.ndarray | None, where: str = "", stacklevel: int = 4) -> None:
    """A 9D run asked for by name, on a recording without a magnetometer value, runs 6D: say so,
    as the command line does."""
    if isinstance(mode, str) and mode.lower() == "9d" and (mag is None or not np.isfinite(mag).any()):
        warnings.warn(
            f"{where}mode='9d' but the recording has no magnetometer value: running 6D (heading not "
            "referenced to north); pass mag, or mode='6d' (or None, the filter's default) to silence this",
            MotionFusionWarning, stacklevel=stacklevel)


# ---- Screening arrays as files are screened ----------------------------------------------------

# The command line's fixes in the library's unit warnings, and what fixes arrays instead.
_ARRAY_FIXES = [
    (re.compile(r"pass --units gyr=deg/s"), "pass gyr in rad/s: np.radians(gyr)"),
    (re.compile(r"deg/s given as rad/s\?"), "deg/s given as rad/s? pass gyr in rad/s: np.radians(gyr)"),
    (re.compile(r"milli-g given as m/s²\?"), "milli-g given as m/s²? pass acc in m/s²: acc * 9.80665e-3"),
    (re.compile(r"nT given as µT\?"), "nT given as µT? pass mag in µT: mag / 1000"),
    (re.compile(r"pass --units acc=g\b"), "pass acc in m/s²: acc * 9.80665"),
    (re.compile(r"pass --units acc=mg\b"), "pass acc in m/s²: acc * 9.80665e-3"),
    (re.compile(r"pass --units mag=gauss"), "pass mag in µT: mag * 100"),
    (re.compile(r"pass --units mag=nT"), "pass mag in µT: mag / 1000"),
    (re.compile(r"; pass --units mag=au to say so"), " (filter this warning to silence it)"),
    (re.compile(r"pass --units t=ms \(or t=us, t=ns\)"),
     "pass t in seconds: t / 1e3 for milliseconds (t / 1e6 for µs, t / 1e9 for ns)"),
    (re.compile(r" \(--columns t=…, --units t=…\)"), " (t must be in seconds)"),
    (re.compile(r"or choose other columns with --columns"), "or check which columns are acc"),
    (re.compile(r"Calibrate it: motionfusion calibrate .*?--calibration CAL\.json; without it"),
     "Subtract it from gyr (a rest's median per axis); without that"),
]


def _array_fix(message: str) -> str:
    """A library warning with the command line's fix replaced by the fix for arrays."""
    for pattern, fix in _ARRAY_FIXES:
        message = pattern.sub(fix, message)
    return message


def _check_time_precision(t: Any, where: str) -> None:
    """Refuses times in a float type too narrow for them (float32 epoch times: at 1.7e9 s, float32
    values are 128 s apart, so a recording collapses onto a few distinct times)."""
    dtype = getattr(t, "dtype", None)
    if dtype is None or dtype.kind != "f" or dtype.itemsize >= 8 or np.ndim(t) != 1 or len(t) < 2:
        return
    finite = np.asarray(t)[np.isfinite(t)]
    if finite.size < 2:
        return
    distinct = np.unique(finite).size
    largest = float(np.max(np.abs(finite)))
    spacing = float(np.spacing(dtype.type(largest)))
    steps = np.diff(finite.astype(np.float64))
    median = float(np.median(steps[steps > 0])) if (steps > 0).any() else 0.0
    if distinct < finite.size or spacing > 0.01 * median:
        raise MotionFusionError(
            f"{where}t is {dtype.name}, whose values near {largest:.6g} are {spacing:.3g} s apart: the "
            f"{finite.size} times collapse to {distinct} distinct values{'' if distinct < finite.size else ' or lose their steps'}. "
            "Keep times in float64 (read them as np.float64, or subtract the first time before narrowing)",
            _native.ERROR_USAGE)


def _screen(t: np.ndarray, gyr: np.ndarray | None, acc: np.ndarray | None, mag: np.ndarray | None, mode: Any,
            where: str = "", stacklevel: int = 4):
    """Screens arrays as :func:`load` screens a file, with the library's own checks: warns
    (:class:`MotionFusionWarning`) about implausible units and value faults, naming the fix for
    arrays; raises when nothing could be estimated (no finite time, no accelerometer value). A
    value beyond any sensor's range counts as no value, as in a file: the sensor's array is then
    copied with NaN there. Returns the arrays to run."""
    n = t.shape[0]
    if n == 0:
        return gyr, acc, mag
    faulty = np.empty(n, dtype=np.uint8)
    report = ctypes.c_void_p()
    err = error_buffer()
    check(lib.mf_check_arrays(n, _address(t), _address(gyr), _address(acc), _address(mag), _address(faulty),
                              ctypes.byref(report), err, len(err)), err)
    r = json.loads(take_string(report.value))
    finite = r["finite"]
    if finite["t"] == 0:
        raise MotionFusionError(f"{where}t has no finite value: nothing to estimate", _native.ERROR_INPUT)
    if acc is not None and finite["acc"] == 0:
        raise MotionFusionError(
            f"{where}acc has no usable value (every row NaN or beyond any sensor's range): every filter needs the "
            "accelerometer to find the vertical, so every attitude would be the identity", _native.ERROR_INPUT)
    for line in r["warnings"]:
        warnings.warn(where + _array_fix(line), MotionFusionWarning, stacklevel=stacklevel)
    if gyr is not None and finite["gyr"] == 0:
        warnings.warn(f"{where}gyr has no usable value (every row NaN): running without a gyroscope; pass gyr=None "
                      "to silence this", MotionFusionWarning, stacklevel=stacklevel)
    _warn_if_9d_without_magnetometer(mode, None if mag is None or finite["mag"] == 0 else mag, where,
                                     stacklevel=stacklevel + 1)
    if faulty.any():
        out = []
        for bit, a in ((1, gyr), (2, acc), (4, mag)):
            rows = (faulty & bit) != 0
            if a is not None and rows.any():
                a = a.copy()
                a[rows] = np.nan
            out.append(a)
        return tuple(out)
    return gyr, acc, mag


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
    ``motionfusion replay``.

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


# ---- Per-sample filter ------------------------------------------------------------------------

def _vector(v: Any, name: str) -> ctypes.Array | None:
    if v is None:
        return None
    _real(v, name)
    a = np.asarray(v, dtype=np.float64)
    if a.shape != (3,):
        raise ValueError(f"{name} must have 3 values, got shape {a.shape}")
    return (ctypes.c_double * 3)(*a)


_NONE3 = (math.nan, math.nan, math.nan)
_step_ctypes = lib.mf_filter_step  # looked up once: the per-sample call of arguments the extension does not read
_pack = struct.Struct("10d").pack_into


def _freed(*_: Any) -> int:
    raise MotionFusionError("this Filter has been freed", _native.ERROR_USAGE)


def _report(handle: int, stacklevel: int = 2) -> None:
    """Reports the warnings of a native filter's updates since the last report (stacklevel 2: the
    caller of Filter.update, when called from its C fast path)."""
    for line in take_string(lib.mf_filter_warnings(handle)).splitlines():
        warnings.warn(f"Filter.update: {_array_fix(line)}", MotionFusionWarning, stacklevel=stacklevel)


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) or (isinstance(x, np.ndarray) and x.ndim == 0)


class Filter(_step.FilterBase):
    """One attitude filter updated a sample at a time (live data, or code that needs the state
    between samples), on the same run path as :func:`replay`: updating it with the rows of a
    recording gives :func:`replay`'s attitudes sample for sample. For whole recordings
    :func:`replay` (or :meth:`update_many`) is much faster.

    ``Filter("ekf", mode="9d", gyroscopeNoise=0.003)``: parameters by name in SI units (the
    command line's ``--param``; a nested name such as ``rest.minimumDuration`` may be written
    ``rest__minimumDuration``). Filters pickle with their state.
    """

    def __init__(self, kind: str = "ekf", mode: str | None = None, **parameters: float):
        self._handle = ctypes.c_void_p()
        err = error_buffer()
        check(lib.mf_filter_create(_option(kind), _option(mode), _parameters(parameters),
                                   ctypes.byref(self._handle), err, len(err)), err)
        self._h = self._handle.value
        self._step = _step_ctypes
        # update (FilterBase, in C) steps this native filter and reports its warnings with _report.
        self._bind(self._h, functools.partial(_report, self._h))
        self.kind = kind.lower()
        # The mode run: the one asked for, or the filter's own default (read off its state's setup).
        self.mode = mode.lower() if isinstance(mode, str) else json.loads(self.state)["setup"]["mode"]
        self._parameters = dict(parameters)
        self._q = np.empty(4)
        self._qp = self._q.ctypes.data
        self._sample = np.empty(10)  # t, gyr, acc, mag: what update packs for mf_filter_step
        self._sp = self._sample.ctypes.data
        self._bias = np.empty(3)
        self._sigma = np.empty(2)
        self._flags = ctypes.c_uint32()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        self._step = _freed
        self._unbind()  # update takes the general path from now on, which raises
        if handle and handle.value:
            try:
                lib.mf_filter_free(handle)
            except Exception:  # interpreter shutdown
                pass
            handle.value = None

    def _live(self) -> ctypes.c_void_p:
        """The native filter, or an error once it has been freed."""
        handle = getattr(self, "_handle", None)
        if not handle or not handle.value:
            raise MotionFusionError("this Filter has been freed", _native.ERROR_USAGE)
        return handle

    # update(t, gyr, acc, mag, *, dt=None) is FilterBase's (motionfusion._step, in C), with its
    # docstring: the usual call goes straight to mf_filter_step, any other here.

    def _update_general(self, t: Any = None, gyr: Any = None, acc: Any = None, mag: Any = None, *,
                        dt: float | None = None) -> np.ndarray:
        """:meth:`update` for the calls its C fast path does not read: other sequences and dtypes
        are packed into the sample buffer here and go to the library through ctypes; anything
        unusual fails the packing and is checked by _update_checked."""
        if dt is None:
            try:
                _pack(self._sample, 0, t, *(_NONE3 if gyr is None else gyr.tolist() if type(gyr) is np.ndarray else gyr),
                      *(_NONE3 if acc is None else acc.tolist() if type(acc) is np.ndarray else acc),
                      *(_NONE3 if mag is None else mag.tolist() if type(mag) is np.ndarray else mag))
            except (TypeError, ValueError, struct.error):
                return self._update_checked(t, gyr, acc, mag, dt)
            if self._step(self._h, self._sp, self._qp):
                self._warn(3)
            return self._q.copy()
        return self._update_checked(t, gyr, acc, mag, dt)

    def _update_checked(self, t: Any, gyr: Any, acc: Any, mag: Any, dt: Any) -> np.ndarray:
        handle = self._live()
        if dt is None and not _is_number(t) and _is_number(mag) and not isinstance(mag, bool):
            # update(gyr, acc, mag, dt), the earlier form.
            warnings.warn("Filter.update(gyr, acc, mag, dt) is the earlier form: pass update(t, gyr, acc, mag) "
                          "with the sample's time (or update(gyr=..., acc=..., mag=..., dt=...))",
                          DeprecationWarning, stacklevel=3)
            t, gyr, acc, mag, dt = None, t, gyr, acc, mag
        vectors = [_vector(v, k) for v, k in ((gyr, "gyr"), (acc, "acc"), (mag, "mag"))]
        if dt is not None:
            if t is not None:
                raise ValueError("pass t (the sample's time) or dt (the time since the previous sample), not both")
            _real(dt, "dt")
            err = error_buffer()
            check(lib.mf_filter_update(handle, *vectors, float(dt), err, len(err)), err)
            self._warn(4)
            return self.quaternion
        if not _is_number(t) or isinstance(t, bool):
            raise TypeError(f"t must be the sample's time in seconds (a number); got {type(t).__name__}"
                            + (" (or dt=, the seconds since the previous sample)" if t is None else ""))
        _real(t, "t")
        values = [_NONE3 if v is None else tuple(v) for v in vectors]
        _pack(self._sample, 0, float(t), *values[0], *values[1], *values[2])
        if self._step(self._h, self._sp, self._qp):
            self._warn(4)
        return self._q.copy()

    def update_many(self, t: Any, gyr: Any = None, acc: Any = None, mag: Any = None) -> np.ndarray:
        """Processes many samples in one call, as :meth:`update` on each row in turn (the loop runs in
        the library): ``t`` (N,) s, ``gyr``, ``acc``, ``mag`` (N, 3) or None, rows with NaN having no
        value. Returns the attitude after each sample, (N, 4). The filter continues from where it
        was, so a recording may come in blocks."""
        handle = self._live()
        _check_time_precision(t, "")
        t = _array(t, "t", None, None)
        n = t.shape[0]
        gyr, acc, mag = (None if v is None else _array(v, k, 3, n) for v, k in ((gyr, "gyr"), (acc, "acc"), (mag, "mag")))
        out = np.empty((n, 4))
        err = error_buffer()
        check(lib.mf_filter_update_many(handle, n, _address(t), _address(gyr), _address(acc), _address(mag),
                                        _address(out), err, len(err)), err)
        self._warn(3)
        return out

    def _warn(self, stacklevel: int) -> None:
        """Reports the warnings of the updates since the last report."""
        _report(self._h, stacklevel + 1)

    def _read(self) -> None:
        lib.mf_filter_read(self._live(), self._q.ctypes.data, self._bias.ctypes.data, self._sigma.ctypes.data,
                           ctypes.addressof(self._flags))

    @property
    def quaternion(self) -> np.ndarray:
        """Attitude w, x, y, z (4,), earth (ENU, magnetic north) from sensor, w >= 0."""
        self._read()
        return self._q.copy()

    @property
    def gyro_bias(self) -> np.ndarray:
        """Gyroscope bias estimate (3,), rad/s (zeros for filters that do not estimate it)."""
        self._read()
        return self._bias.copy()

    @property
    def diagnostics(self) -> dict[str, Any]:
        """What the last update did: ``accelerometer_rejected``, ``magnetometer_rejected``,
        ``at_rest``, ``initialising`` (bools) and ``sigma_attitude_deg``, ``sigma_heading_deg``
        (one-sigma uncertainties in degrees, NaN when the filter has none)."""
        self._read()
        f = self._flags.value
        return {
            "accelerometer_rejected": bool(f & 1), "magnetometer_rejected": bool(f & 2),
            "at_rest": bool(f & 4), "initialising": bool(f & 8),
            "sigma_attitude_deg": float(self._sigma[0]), "sigma_heading_deg": float(self._sigma[1]),
        }

    @property
    def parameters(self) -> dict[str, float]:
        """Every numeric parameter by name (nested ones dotted) with its value in SI units (NaN
        where a value is unset, e.g. the expected field without a location)."""
        out = ctypes.c_void_p()
        err = error_buffer()
        check(lib.mf_filter_parameters(self._live(), ctypes.byref(out), err, len(err)), err)
        values = json.loads(take_string(out.value))
        return {k: float(v) for k, v in values.items()}

    @property
    def state(self) -> str:
        """The evolving state as JSON, exact to the bit: the run path's saved run (``"filter"``: the
        filter's state, ``"runner"``: its last time and held values) and ``"setup"``, the filter's
        kind, mode and parameters. Assign it to a filter of the same kind, mode and parameters to
        continue exactly where this one is; any other filter raises :class:`MotionFusionError`
        naming what the state belongs to. States saved in the earlier format
        (``{"filter": KIND, ..., "state": {...}}``) restore too."""
        out = ctypes.c_void_p()
        err = error_buffer()
        check(lib.mf_filter_save_state(self._live(), ctypes.byref(out), err, len(err)), err)
        return take_string(out.value)

    @state.setter
    def state(self, value: str | bytes) -> None:
        if not isinstance(value, (str, bytes)):
            raise TypeError(f"a state is the JSON text .state gave, got {type(value).__name__}")
        data = value.encode() if isinstance(value, str) else value
        err = error_buffer()
        check(lib.mf_filter_restore_state(self._live(), data, err, len(err)), err)

    def __reduce__(self):
        return (_restore_filter, (self.kind, self.mode, self._parameters, self.state))

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._parameters.items())
        return f"Filter({self.kind!r}, mode={self.mode!r}{extra})"


def _restore_filter(kind: str, mode: str | None, parameters: dict[str, float], state: str) -> Filter:
    f = Filter(kind, mode, **parameters)
    f.state = state
    return f


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
