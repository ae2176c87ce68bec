"""The per-sample filter: :class:`Filter`, one attitude filter updated a sample at a time, on the
library's run path (its C fast path is the extension ``motionfusion._step``)."""
from __future__ import annotations

import ctypes
import functools
import json
import math
import numbers
import struct
import warnings
from typing import Any

import numpy as np

from . import _native
from ._arrays import _address, _array, _array_fix, _check_time_precision, _option, _parameters, _real
from ._native import MotionFusionError, MotionFusionWarning, _step, check, error_buffer, lib, take_string


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
    ``rest__minimumDuration``). Filters pickle with their state. One filter must not be used by two
    threads at once (different filters may run concurrently).
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
