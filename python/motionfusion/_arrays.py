"""Arrays on their way to the C ABI: shape and type checks, the parameters' text, and screening
arrays as the library screens a file (units, value faults), with the fixes written for arrays."""
from __future__ import annotations

import ctypes
import json
import re
import warnings
from typing import Any, Mapping

import numpy as np

from . import _native
from ._native import MotionFusionError, MotionFusionWarning, check, error_buffer, lib, take_string

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
