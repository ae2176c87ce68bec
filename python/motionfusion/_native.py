"""ctypes declarations of the C ABI (motionfusion.h), the error type, the C extension
``motionfusion._step`` (Filter.update's per-sample call) bound to the same library, and the
``motionfusion`` command line.

The library is the one bundled in ``motionfusion/_lib`` (with the Swift runtime it needs beside
it), or the file named by the environment variable ``MOTIONFUSION_LIBRARY`` (for development
against a fresh ``swift build``). The command line is the Swift executable bundled beside it
(``motionfusion/_lib/motionfusion``), or the file named by ``MOTIONFUSION_EXECUTABLE``, else, with
``MOTIONFUSION_LIBRARY`` set, the ``motionfusion`` that ``swift build`` put beside that library.
"""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from ctypes import POINTER, c_char_p, c_double, c_int32, c_size_t, c_uint32, c_void_p
from pathlib import Path
from typing import Sequence

LIBRARY_PATH = os.environ.get("MOTIONFUSION_LIBRARY") or str(Path(__file__).parent / "_lib" / "libMotionFusionC.so")
EXECUTABLE_PATH = os.environ.get("MOTIONFUSION_EXECUTABLE") or str(Path(LIBRARY_PATH).parent / "motionfusion")

#: Status codes of the C ABI (and exit statuses of the command line).
OK, ERROR_INPUT, ERROR_USAGE = 0, 1, 2

ERROR_CAPACITY = 16384


class MotionFusionError(ValueError):
    """An error reported by MotionFusion: bad input (``code`` 1, e.g. a malformed trace, with the
    message naming ``file:line:column``) or a bad argument (``code`` 2, e.g. an unknown filter)."""

    def __init__(self, message: str, code: int = ERROR_INPUT):
        super().__init__(message)
        #: The message, exactly as the command line prints it after ``error:``.
        self.message = message
        #: 1 for bad input or a failure, 2 for a usage mistake (the command line's exit status).
        self.code = code


class SolveError(MotionFusionError):
    """:func:`~motionfusion.reconstruct` could not solve the normal equations of some windows: a
    LAPACK routine failed. ``routine`` and ``info`` are LAPACK's (e.g. ``"dpbtrs"`` and its info
    code, or the order of a minor that is not positive definite), ``failed_windows`` of ``windows`` failed, and ``result``
    holds the outputs, those windows' samples at the initialising smoother's attitude."""

    def __init__(self, message: str, code: int = ERROR_INPUT):
        super().__init__(message, code)
        m = re.search(r"normal equations of (\d+) of (\d+) windows", message)
        #: Windows that failed, and windows solved in all.
        self.failed_windows, self.windows = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        #: LAPACK's routine (None where the message does not name it) and info code of the first failure:
        #: for a matrix that is not positive definite, the order of the failing minor.
        self.routine, self.info = None, None
        m = re.search(r"(\w+): [^()]*\(info = (-?\d+)\)", message)
        if m:
            self.routine, self.info = m.group(1), int(m.group(2))
        elif m := re.search(r"leading minor of order (\d+)", message):
            self.info = int(m.group(1))
        #: The outputs as computed (dict of arrays), set by reconstruct.
        self.result = None


class MotionFusionWarning(UserWarning):
    """A problem that did not stop reading (a unit guess, a repaired value), with its location."""


if not os.path.exists(LIBRARY_PATH):
    raise ImportError(
        f"{LIBRARY_PATH} is missing: this motionfusion is the source tree, not an installed package; "
        "install it (pip install ./python) and import it from elsewhere, or set MOTIONFUSION_LIBRARY to a "
        "libMotionFusionC.so built with `swift build -c release --product MotionFusionC`")
lib = ctypes.CDLL(LIBRARY_PATH)

_p = c_void_p  # pointers to arrays are passed as addresses (numpy's .ctypes.data) or None
_batch = [c_char_p, c_char_p, c_char_p, c_char_p, c_double, c_size_t, _p, _p, _p, _p,
          _p, _p, _p, _p, _p, _p, _p, c_char_p, c_size_t]
_signatures = {
    "mf_version": (c_char_p, []),
    "mf_filters": (c_char_p, []),
    "mf_string_free": (None, [c_void_p]),
    "mf_replay": (c_int32, _batch),
    "mf_reconstruct": (c_int32, _batch),
    "mf_replay_many": (c_int32, [c_char_p, c_char_p, c_char_p, c_char_p, c_double, c_size_t, _p, _p, _p, _p, _p, _p,
                                 c_size_t, c_char_p, c_size_t]),
    "mf_evaluate": (c_int32, [c_size_t, _p, c_char_p, _p, _p, c_char_p, _p, c_char_p, c_size_t]),
    "mf_trace_load": (c_int32, [c_char_p, c_char_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_trace_load_options": (c_int32, [c_char_p, c_char_p, c_char_p, c_char_p, c_double, POINTER(c_void_p),
                                        c_char_p, c_size_t]),
    "mf_trace_load_ex": (c_int32, [c_char_p, c_char_p, c_char_p, c_char_p, c_double, c_char_p, c_int32,
                                   POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_trace_count": (c_size_t, [c_void_p]),
    "mf_trace_contents": (c_uint32, [c_void_p]),
    "mf_trace_format": (c_void_p, [c_void_p]),
    "mf_trace_warnings": (c_void_p, [c_void_p]),
    "mf_trace_copy": (None, [c_void_p, _p, _p, _p, _p, _p, _p]),
    "mf_trace_free": (None, [c_void_p]),
    "mf_filter_create": (c_int32, [c_char_p, c_char_p, c_char_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_filter_update": (c_int32, [c_void_p, _p, _p, _p, c_double, c_char_p, c_size_t]),
    "mf_filter_step": (c_int32, [c_void_p, _p, _p]),
    "mf_filter_update_many": (c_int32, [c_void_p, c_size_t, _p, _p, _p, _p, _p, c_char_p, c_size_t]),
    "mf_filter_warnings": (c_void_p, [c_void_p]),
    "mf_check_arrays": (c_int32, [c_size_t, _p, _p, _p, _p, _p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_filter_read": (None, [c_void_p, _p, _p, _p, _p]),
    "mf_filter_parameters": (c_int32, [c_void_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_filter_save_state": (c_int32, [c_void_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_filter_restore_state": (c_int32, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "mf_filter_free": (None, [c_void_p]),
    "mf_run_warnings": (c_void_p, []),
    "mf_use_lapack": (c_int32, [c_char_p, c_char_p, c_size_t]),
    "mf_lapack_library": (c_void_p, []),
    "mf_folder_plan": (c_int32, [c_char_p, c_char_p, c_char_p, POINTER(c_char_p), c_int32, POINTER(c_void_p),
                                 c_char_p, c_size_t]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes

# Filter.update's per-sample call runs in a small C extension (ctypes' own per-call cost was twice
# VQF's whole update), on mf_filter_step of the library loaded above. Without it the package is
# broken, and says so: there is no slower stand-in.
try:
    from . import _step
except ImportError as _e:
    raise ImportError(
        f"motionfusion._step, the C extension behind Filter.update, could not be loaded ({_e}): the package "
        "was installed without it or for another Python version; reinstall it for this Python "
        "(pip install --force-reinstall ./python), or in the source tree build it with pip install -e ./python") from _e
_step.bind(ctypes.cast(lib.mf_filter_step, c_void_p).value)


def error_buffer() -> ctypes.Array:
    """A buffer for one call's error message."""
    return ctypes.create_string_buffer(ERROR_CAPACITY)


def check(status: int, buffer: ctypes.Array) -> None:
    """Raises :class:`MotionFusionError` with the message of a failed call."""
    if status != OK:
        raise MotionFusionError(buffer.value.decode("utf-8", "replace"), status)


def take_string(address: int | None) -> str:
    """The text of a string the library allocated, which is then freed."""
    if not address:
        return ""
    try:
        return ctypes.string_at(address).decode("utf-8", "replace")
    finally:
        lib.mf_string_free(address)


def encode(text: str | os.PathLike | None) -> bytes | None:
    """A C string argument (paths through the file-system encoding)."""
    if text is None:
        return None
    data = os.fsencode(text)
    if b"\0" in data:
        raise ValueError("embedded null byte")
    return data


def string_array(items: Sequence[str | os.PathLike]) -> ctypes.Array:
    return (c_char_p * max(1, len(items)))(*[encode(s) for s in items])


def executable() -> str:
    """The ``motionfusion`` executable; raises :class:`FileNotFoundError` naming the fix when it is
    missing."""
    if not os.access(EXECUTABLE_PATH, os.X_OK):
        raise FileNotFoundError(
            f"{EXECUTABLE_PATH} is missing or not executable: the motionfusion command line is bundled with the "
            "package (reinstall it: pip install --force-reinstall ./python), or set MOTIONFUSION_EXECUTABLE to a "
            "motionfusion built with `swift build -c release --product motionfusion`")
    return EXECUTABLE_PATH


def run_cli(arguments: Sequence[str | os.PathLike]) -> tuple[int, str, str]:
    """Runs the command line as a child process (standard input inherited); returns (status,
    stdout, stderr), the status 128 + n when signal n ended it."""
    r = subprocess.run([executable(), *map(os.fspath, arguments)], capture_output=True)
    status = r.returncode if r.returncode >= 0 else 128 - r.returncode
    return status, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def use_lapack(path: str | os.PathLike) -> None:
    """Loads BLAS/LAPACK from ``path`` (CBLAS and LAPACKE in one library, 32-bit integers, entry
    points plain or ``scipy_``-prefixed) when reconstruct first needs them, unless the environment
    variable ``MOTIONFUSION_LAPACK`` names one. Raises once LAPACK is in use from another file."""
    err = error_buffer()
    check(lib.mf_use_lapack(encode(path), err, len(err)), err)


def lapack_library() -> str:
    """Where BLAS/LAPACK were loaded from ("" until reconstruct or a calibration fit first used them)."""
    return take_string(lib.mf_lapack_library())


def bundled_lapack() -> str | None:
    """The libscipy_openblas.so of the scipy-openblas32 dependency, or None when it is not installed."""
    try:
        import scipy_openblas32
    except ImportError:
        return None
    return os.path.join(scipy_openblas32.get_lib_dir(), scipy_openblas32.get_library(fullname=True))


# BLAS/LAPACK come with the package (scipy-openblas32), so reconstruct does not depend on the system's;
# without it the library loads the system's (the same results, or an error naming the packages).
if not os.environ.get("MOTIONFUSION_LAPACK") and bundled_lapack() is not None:
    use_lapack(bundled_lapack())
