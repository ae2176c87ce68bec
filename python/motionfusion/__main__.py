"""The ``motionfusion`` command line, run in process from the bundled library: the same program
as the Swift executable (subcommands, options, outputs, exit statuses). Also ``python -m motionfusion``.
"""
from __future__ import annotations

import sys

from . import _native


def main(argv: list[str] | None = None) -> int:
    """Runs the command line with ``argv`` (default: this process's arguments) and returns its exit
    status; as a console script, exits with it."""
    arguments = sys.argv[1:] if argv is None else argv
    sys.stdout.flush()
    sys.stderr.flush()
    # This process is the command line: an interrupted run removes its half-written outputs.
    _native.lib.mf_install_signal_handlers()
    status, _, _ = _native.run_cli(arguments, capture=False)
    return status


if __name__ == "__main__":
    sys.exit(main())
