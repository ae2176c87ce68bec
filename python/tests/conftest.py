"""Shared fixtures: the repository's data, the shared BROAD trials (tests skip without them), and
the command line the bindings are compared with.

The command line is the Swift executable named by MOTIONFUSION_CLI, else .build/release/motionfusion
of this repository, else the ``motionfusion`` script the package installs (the same code, from the
bundled library).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
SHARED = REPO.parent / "shared" / "data"
SIM = DATA / "sim_mixed_100hz.csv"


def cli_executable() -> str:
    given = os.environ.get("MOTIONFUSION_CLI")
    if given:
        return given
    built = REPO / ".build" / "release" / "motionfusion"
    if built.exists():
        return str(built)
    script = shutil.which("motionfusion", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no motionfusion command line (set MOTIONFUSION_CLI)")
    return script


@pytest.fixture(scope="session")
def cli():
    """Runs the command line: ``cli("replay", path, "--output", out)`` -> CompletedProcess."""
    exe = cli_executable()

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"motionfusion {' '.join(map(str, args))} exited {r.returncode}:\n{r.stderr}")
        return r

    return run


def read_estimates(path: Path) -> dict[str, np.ndarray]:
    """The columns of an estimate file written by the command line."""
    with open(path) as f:
        names = f.readline().strip().split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: values[:, i] for i, name in enumerate(names)}


def angle_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rotation angle between unit quaternions, degrees, per row."""
    dot = np.abs(np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))
    return np.degrees(2 * np.arccos(np.clip(dot, -1, 1)))


@pytest.fixture
def broad_trial() -> Path:
    """A held-out BROAD trial (55k samples, 285.7 Hz) from ../shared/data; skips without it."""
    path = SHARED / "broad" / "21_undisturbed_fast_combined.csv"
    if not path.exists():
        pytest.skip(f"{path} is absent (shared BROAD data)")
    return path


@pytest.fixture(scope="session")
def sim() -> dict:
    """The simulated trace data/sim_mixed_100hz.csv, loaded."""
    import motionfusion as mf

    return mf.load(SIM)
