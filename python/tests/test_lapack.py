"""BLAS/LAPACK for reconstruct: the package's own (scipy-openblas32) whatever the system has, the
system's on request, and never a silent fallback: a missing or unusable library, or a failed
solve, raises with its cause."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf
from motionfusion import _native

from conftest import SIM, cli_executable

# One run in a fresh process (the library is chosen once per process): reconstruct of the simulated
# trace, printing where LAPACK came from and the quaternions, or the error raised.
SCRIPT = """
import json, sys, numpy as np, motionfusion as mf
from motionfusion import _native
trace = mf.load(sys.argv[1])
try:
    q = mf.reconstruct(trace["t"], trace["gyr"], trace["acc"], trace["mag"], mode="9d")["quaternion"]
except mf.SolveError as e:
    print(json.dumps({"solve_error": e.message, "routine": e.routine, "info": e.info,
                      "failed": e.failed_windows, "windows": e.windows, "has_result": e.result is not None}))
except mf.MotionFusionError as e:
    print(json.dumps({"error": e.message}))
else:
    np.save(sys.argv[2], q)
    print(json.dumps({"library": _native.lapack_library()}))
"""


def run(tmp_path: Path, **env: str) -> tuple[dict, np.ndarray | None]:
    out = tmp_path / f"q{len(list(tmp_path.glob('q*.npy')))}.npy"
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(SIM), str(out)], env=dict(os.environ, **env),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), (np.load(out) if out.exists() else None)


@pytest.fixture
def hidden_system(tmp_path) -> str:
    """A folder where another valid shared library (zlib) sits under OpenBLAS's and LAPACKE's names:
    first on LD_LIBRARY_PATH it hides the system's, as on a machine with a broken or foreign install."""
    zlib = next(
        p.resolve()
        for d in ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
        for p in (Path(d) / "libz.so.1", Path(d) / "x86_64-linux-gnu/libz.so.1", Path(d) / "aarch64-linux-gnu/libz.so.1")
        if p.exists()
    )
    folder = tmp_path / "impostors"
    folder.mkdir()
    for name in ("libopenblas.so.0", "libopenblas.so", "liblapacke.so.3", "liblapacke.so"):
        shutil.copyfile(zlib, folder / name)
    return str(folder)


def test_bundled_lapack_gives_the_system_result_with_the_system_hidden(tmp_path, hidden_system):
    bundled, q_bundled = run(tmp_path, LD_LIBRARY_PATH=hidden_system)
    assert bundled["library"] == _native.bundled_lapack() and "scipy_openblas" in bundled["library"], bundled
    system, q_system = run(tmp_path, MOTIONFUSION_LAPACK="system")
    assert system["library"].startswith("the system's OpenBLAS"), system
    assert q_bundled.shape == q_system.shape == (len(mf.load(SIM)["t"]), 4)
    np.testing.assert_allclose(q_bundled, q_system, rtol=0, atol=1e-9)


def test_without_any_lapack_reconstruct_raises_naming_the_fix(tmp_path, hidden_system):
    result, q = run(tmp_path, LD_LIBRARY_PATH=hidden_system, MOTIONFUSION_LAPACK="system")
    assert q is None
    assert "apt-get install libopenblas0 liblapacke" in result["error"], result
    assert "lacks" in result["error"] and "MOTIONFUSION_LAPACK" in result["error"], result


def test_a_named_library_that_cannot_be_used_raises_and_is_not_replaced(tmp_path):
    missing = tmp_path / "nowhere.so"
    result, q = run(tmp_path, MOTIONFUSION_LAPACK=str(missing))
    assert q is None and str(missing) in result["error"] and "could not be loaded" in result["error"], result
    # A library without LAPACKE (zlib), named explicitly.
    result, q = run(tmp_path, MOTIONFUSION_LAPACK=str(Path(np.__file__)))  # not a shared library at all
    assert q is None and "could not be loaded" in result["error"], result


FAKE_LAPACK = r"""
/* Every routine reports a failure: the band solve fails with dpbtrs's info 3. */
int scipy_cblas_dgemv() { return 0; }
int scipy_LAPACKE_dpotrf() { return 2; }
int scipy_LAPACKE_dpotrs() { return 2; }
int scipy_LAPACKE_dsyevd() { return 2; }
int scipy_LAPACKE_dgels() { return 2; }
int scipy_LAPACKE_dpbtrf() { return 0; }
int scipy_LAPACKE_dpbtrs() { return 3; }
int scipy_LAPACKE_dtbtrs() { return 3; }
int scipy_LAPACKE_dpbtrf_work() { return 0; }
int scipy_LAPACKE_dpbtrs_work() { return 3; }
"""


def test_a_failed_solve_raises_with_lapacks_routine_and_info(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to build the failing LAPACK")
    source = tmp_path / "fake.c"
    source.write_text(FAKE_LAPACK)
    library = tmp_path / "libfake_lapack.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    result, q = run(tmp_path, MOTIONFUSION_LAPACK=str(library))
    assert q is None and "solve_error" in result, result
    assert result["routine"] == "dpbtrs" and result["info"] == 3, result
    assert result["failed"] == result["windows"] >= 1 and result["has_result"], result
    assert "initialising smoother's attitude" in result["solve_error"] and str(library) in result["solve_error"]


def test_the_command_line_uses_the_named_library(tmp_path, cli, hidden_system):
    """MOTIONFUSION_LAPACK serves the command line too: with the system hidden, the bundled library
    gives the system's estimates; without it, the run fails naming the fix."""
    cli("reconstruct", SIM, "--output", tmp_path / "system.csv")
    env = dict(os.environ, LD_LIBRARY_PATH=hidden_system, MOTIONFUSION_LAPACK=_native.bundled_lapack())
    r = subprocess.run([cli_executable(), "reconstruct", str(SIM), "--output", str(tmp_path / "bundled.csv")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "bundled.csv").read_text() == (tmp_path / "system.csv").read_text()
    env["MOTIONFUSION_LAPACK"] = "system"
    r = subprocess.run([cli_executable(), "reconstruct", str(SIM), "--output", str(tmp_path / "none.csv")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "apt-get install libopenblas0 liblapacke" in r.stderr, r.stderr
    assert not (tmp_path / "none.csv").exists()


def test_use_lapack_is_fixed_once_loaded(sim):
    mf.reconstruct(sim["t"][:300], sim["gyr"][:300], sim["acc"][:300], sim["mag"][:300], mode="9d")
    in_use = _native.lapack_library()
    assert in_use
    with pytest.raises(mf.MotionFusionError, match="already in use"):
        _native.use_lapack("/elsewhere/libopenblas.so")
