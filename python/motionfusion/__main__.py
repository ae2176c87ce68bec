"""The ``motionfusion`` command line: the Swift executable bundled with the package, run in place
of this process (subcommands, options, outputs, signals and exit statuses are its own). Also
``python -m motionfusion``.
"""
from __future__ import annotations

import os
import sys

from . import _native


def main(argv: list[str] | None = None) -> int:
    """Replaces this process with ``motionfusion ARGV`` (default: this process's arguments); its
    exit status is the process's. Returns only when the executable cannot be started (status 1,
    with the reason on standard error)."""
    arguments = sys.argv[1:] if argv is None else argv
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        exe = _native.executable()
        os.execv(exe, [exe, *arguments])  # returns only by raising
    except OSError as e:
        print(f"motionfusion: error: {e}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
