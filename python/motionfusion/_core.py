"""The Python API over the C ABI: batch replay and reconstruction, trace loading, the BROAD metric,
the per-sample filter, and the folder-run plan."""
from __future__ import annotations

import ctypes
import json
import math
import numbers
import os
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _native
from ._native import MotionFusionError, MotionFusionWarning, check, encode, error_buffer, lib, take_string

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


def _warn_if_9d_without_magnetometer(mode: Any, mag: np.ndarray | None, where: str = "") -> None:
    """A 9D run asked for by name, on a recording without a magnetometer value, runs 6D: say so,
    as the command line does."""
    if isinstance(mode, str) and mode.lower() == "9d" and (mag is None or not np.isfinite(mag).any()):
        warnings.warn(
            f"{where}mode='9d' but the recording has no magnetometer value: running 6D (heading not "
            "referenced to north); pass mag, or mode='6d' (or None, the filter's default) to silence this",
            MotionFusionWarning, stacklevel=4)


def _batch(function, t, gyr, acc, mag, filter, mode, frame, declination, parameters, outputs) -> dict[str, np.ndarray]:
    t = _array(t, "t", None, None)
    n = t.shape[0]
    gyr = None if gyr is None else _array(gyr, "gyr", 3, n)
    acc = None if acc is None else _array(acc, "acc", 3, n)
    mag = None if mag is None else _array(mag, "mag", 3, n)
    _warn_if_9d_without_magnetometer(mode, mag)
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
    check(status, err)
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

    Raises :class:`MotionFusionError` for an unknown filter, mode or parameter, and ValueError for
    arrays of the wrong shape.
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
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None; got {workers!r}")
    prepared = []
    for i, trace in enumerate(traces):
        if not isinstance(trace, Mapping) or "t" not in trace:
            raise ValueError(f"traces[{i}] must be a mapping with 't', 'gyr', 'acc' and optionally 'mag'")
        t = _array(trace["t"], f"traces[{i}]['t']", None, None)
        n = t.shape[0]
        sensors = [None if trace.get(k) is None else _array(trace[k], f"traces[{i}]['{k}']", 3, n)
                   for k in ("gyr", "acc", "mag")]
        _warn_if_9d_without_magnetometer(mode, sensors[2], f"traces[{i}]: ")
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
    check(status, err)
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
    """
    return _batch(lib.mf_reconstruct, t, gyr, acc, mag, filter, mode, frame, declination, parameters, outputs)


# ---- Traces -----------------------------------------------------------------------------------

_CONTENTS = {"gyr": 1, "acc": 2, "mag": 4, "gt": 8, "moving": 16}


def load(path: PathLike, format: str | None = None) -> dict[str, np.ndarray]:
    """Reads a trace in any supported format (a native CSV, any delimited file with named columns,
    EuRoC, xio Fusion, x-IMU3, phyphox, Sensor Logger; a file, a recording folder or a .zip),
    detected from its contents unless ``format`` names it.

    Returns a dict of float64 arrays: ``t`` (N,) s, and where the recording has them ``gyr``,
    ``acc``, ``mag`` (N, 3) in rad/s, m/s², µT, ``gt`` (N, 4) ground truth w, x, y, z (ENU from
    sensor), with NaN rows where a sample has no value, and ``moving`` (N,) bool when the trace
    marks the scored phase. Values the reader repaired (NaN axes, values beyond any sensor's range)
    are NaN, and each repair or unit guess is reported as a :class:`MotionFusionWarning`. Raises
    :class:`MotionFusionError` with ``file:line:column`` for a malformed trace.
    """
    handle = ctypes.c_void_p()
    err = error_buffer()
    check(lib.mf_trace_load(encode(path), _option(format), ctypes.byref(handle), err, len(err)), err)
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


class Filter:
    """One attitude filter updated a sample at a time (live data, or code that needs the state
    between samples). For whole recordings :func:`replay` is much faster.

    ``Filter("ekf", mode="9d", gyroscopeNoise=0.003)``: parameters by name in SI units (the
    command line's ``--param``; a nested name such as ``rest.minimumDuration`` may be written
    ``rest__minimumDuration``). Filters pickle with their state.
    """

    def __init__(self, kind: str = "ekf", mode: str | None = None, **parameters: float):
        self._handle = ctypes.c_void_p()
        err = error_buffer()
        check(lib.mf_filter_create(_option(kind), _option(mode), _parameters(parameters),
                                   ctypes.byref(self._handle), err, len(err)), err)
        self.kind = kind.lower()
        # The mode run: the one asked for, or the filter's own default (read off its state's header).
        self.mode = mode.lower() if isinstance(mode, str) else json.loads(self.state)["mode"]
        self._parameters = dict(parameters)
        self._q = np.empty(4)
        self._bias = np.empty(3)
        self._sigma = np.empty(2)
        self._flags = ctypes.c_uint32()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
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

    def update(self, gyr: Any, acc: Any, mag: Any, dt: float) -> np.ndarray:
        """Processes one sample: ``gyr`` rad/s, ``acc`` m/s², ``mag`` µT (3 values each, or None when
        that sensor has no new value; NaN values count as none) and ``dt``, the seconds since the
        previous sample. Returns the attitude after it (as :attr:`quaternion`)."""
        err = error_buffer()
        check(lib.mf_filter_update(self._live(), _vector(gyr, "gyr"), _vector(acc, "acc"), _vector(mag, "mag"),
                                   float(dt), err, len(err)), err)
        return self.quaternion

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
        """The evolving state as JSON, exact to the bit, headed by the filter's kind, mode and
        parameters. Assign it to a filter of the same kind, mode and parameters to continue exactly
        where this one is; any other filter raises :class:`MotionFusionError` naming what the state
        belongs to."""
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
    """Runs ``motionfusion ARGUMENTS`` in this process (the bundled command line) and returns its
    exit status (0, 1 for bad input, 2 for a usage error) and what it printed on standard output
    (estimates written to ``--output -`` first) and standard error."""
    return _native.run_cli(arguments)


__all__ = [
    "FILTERS", "OUTPUTS", "Filter", "FolderPlan", "MotionFusionError", "MotionFusionWarning", "evaluate", "folder_plan",
    "load", "reconstruct", "replay", "run_cli", "version",
]
