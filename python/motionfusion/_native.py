"""ctypes declarations of the C ABI (motionfusion.h) and the error type.

The library is the one bundled in ``motionfusion/_lib`` (with the Swift runtime it needs beside
it), or the file named by the environment variable ``MOTIONFUSION_LIBRARY`` (for development
against a fresh ``swift build``).
"""
from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_char_p, c_double, c_int32, c_size_t, c_uint32, c_void_p
from pathlib import Path
from typing import Sequence

LIBRARY_PATH = os.environ.get("MOTIONFUSION_LIBRARY") or str(Path(__file__).parent / "_lib" / "libMotionFusionC.so")

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
    "mf_string_free": (None, [c_void_p]),
    "mf_replay": (c_int32, _batch),
    "mf_reconstruct": (c_int32, _batch),
    "mf_replay_many": (c_int32, [c_char_p, c_char_p, c_char_p, c_char_p, c_double, c_size_t, _p, _p, _p, _p, _p, _p,
                                 c_size_t, c_char_p, c_size_t]),
    "mf_evaluate": (c_int32, [c_size_t, _p, c_char_p, _p, _p, c_char_p, _p, c_char_p, c_size_t]),
    "mf_trace_load": (c_int32, [c_char_p, c_char_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "mf_trace_load_options": (c_int32, [c_char_p, c_char_p, c_char_p, c_char_p, c_double, POINTER(c_void_p),
                                        c_char_p, c_size_t]),
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
    "mf_cli_run": (c_int32, [c_int32, POINTER(c_char_p), c_int32, POINTER(c_void_p), POINTER(c_void_p)]),
    "mf_install_signal_handlers": (None, []),
    "mf_folder_plan": (c_int32, [c_char_p, c_char_p, c_char_p, POINTER(c_char_p), c_int32, POINTER(c_void_p),
                                 c_char_p, c_size_t]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes


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


def run_cli(arguments: Sequence[str | os.PathLike], capture: bool = True) -> tuple[int, str, str]:
    """Runs the command line in this process; returns (status, stdout, stderr) (empty texts
    without capture)."""
    argv = string_array(arguments)
    out, err = c_void_p(), c_void_p()
    status = lib.mf_cli_run(len(arguments), argv, 1 if capture else 0, ctypes.byref(out), ctypes.byref(err))
    return status, take_string(out.value), take_string(err.value)
