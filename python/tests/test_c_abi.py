"""The C ABI from C (the header and library the wheel ships), and the wheel's bundled runtime."""
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
from conftest import SIM
from motionfusion import _native

LIB = Path(os.environ.get("MOTIONFUSION_LIBRARY") or Path(mf.__file__).parent / "_lib" / "libMotionFusionC.so")
HEADER = Path(__file__).resolve().parents[2] / "Sources" / "MotionFusionC" / "include" / "motionfusion.h"


def test_a_c_program_uses_the_header_and_library(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "abi_smoke"
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-I", str(HEADER.parent), str(Path(__file__).with_name("abi_smoke.c")),
                    "-L", str(LIB.parent), "-l:" + LIB.name, f"-Wl,-rpath,{LIB.parent}", "-lm", "-o", str(exe)],
                   check=True)
    r = subprocess.run([str(exe), str(SIM)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in r.stdout.splitlines()}
    assert lines["version"] == mf.version()
    assert tuple(lines["filters"].split(",")) == mf.FILTERS
    assert lines["trace"] == "6001 31 native"  # gyroscope, accelerometer, magnetometer, truth, moving
    trace = mf.load(SIM)
    q = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"])["quaternion"][-1]
    assert np.array_equal(np.array(lines["replay"].split(), dtype=float), q)
    assert np.array_equal(np.array(lines["filter"].split()[:4], dtype=float), q)
    assert lines["step_is_read"] == "1"
    many = [float(x) for x in lines["many"].split()]
    madgwick = mf.replay_many([trace, {"t": trace["t"][-(len(trace["t"]) // 2):],
                                       "gyr": trace["gyr"][-(len(trace["t"]) // 2):],
                                       "acc": trace["acc"][-(len(trace["t"]) // 2):]}], filter="madgwick")
    assert many[:4] == list(madgwick[0][-1]) and many[4] == madgwick[1][-1][0]
    assert int(lines["state"]) > 100
    assert lines["negative_dt"] == "2"
    assert lines["unknown_filter"].startswith("2 filter must be one of ekf")
    status, length = lines["short_buffer"].split()
    assert status == "1" and length == "7"  # the message cut to the 8-byte buffer
    assert lines["unused"] == "[] []"
    assert lines["use_lapack_without_path"] == "2" and lines["bad_remap"] == "2"


@pytest.mark.skipif("MOTIONFUSION_LIBRARY" in os.environ, reason="testing a development library")
def test_the_swift_runtime_is_loaded_from_the_package():
    maps = Path("/proc/self/maps").read_text()
    loaded = {line.split()[-1] for line in maps.splitlines() if "libswiftCore" in line or "libFoundation.so" in line}
    assert loaded and all(Path(p).parent == LIB.parent for p in loaded), loaded
    readelf = shutil.which("readelf")
    if readelf:
        dynamic = subprocess.run([readelf, "-d", str(LIB)], capture_output=True, text=True, check=True).stdout
        assert "[$ORIGIN]" in dynamic and "/opt/swift" not in dynamic


def test_the_library_needs_no_foundation_or_icu():
    """The library is on FoundationEssentials (issue #26): Foundation, its internationalization
    layer and ICU are neither linked, loaded after a run, nor bundled; nor does the bundled
    executable link them."""
    trace = mf.load(SIM)
    mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"])
    heavy = ("libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so")
    loaded = {Path(line.split()[-1]).name for line in Path("/proc/self/maps").read_text().splitlines()}
    assert not loaded & set(heavy), loaded & set(heavy)
    assert not [name for name in heavy if (LIB.parent / name).exists()]
    readelf = shutil.which("readelf")
    if readelf:
        dynamic = subprocess.run([readelf, "-d", str(LIB)], capture_output=True, text=True, check=True).stdout
        assert "libFoundationEssentials.so" in dynamic and not any(f"[{name}]" in dynamic for name in heavy)
        exe = subprocess.run([readelf, "-d", _native.executable()], capture_output=True, text=True, check=True).stdout
        assert not any(f"[{name}]" in exe for name in heavy)


@pytest.mark.skipif("MOTIONFUSION_LIBRARY" in os.environ, reason="testing a development library")
def test_the_package_runs_without_the_toolchain():
    """With the toolchain's folder hidden (a private mount namespace, as root), the package still
    loads and runs: it needs only what it bundles and the system's C libraries."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("needs unshare and root")
    hide = "/opt/swift"
    if not os.path.isdir(hide):
        pytest.skip("no toolchain at /opt/swift to hide")
    script = ("import motionfusion as mf; t = mf.load(%r); "
              "assert mf.run_cli(['--version'])[0] == 0, 'the bundled executable'; "
              "print(mf.replay(t['t'], t['gyr'], t['acc'], t['mag'])['quaternion'][-1].tolist())") % str(SIM)
    r = subprocess.run([unshare, "-m", "sh", "-c", f'mount -t tmpfs none {hide} && exec "$0" -c "$1"',
                        sys.executable, script], capture_output=True, text=True)
    if r.returncode != 0 and "mount" in r.stderr and "permission" in r.stderr.lower():
        pytest.skip(f"cannot mount here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    trace = mf.load(SIM)
    q = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"])["quaternion"][-1]
    assert np.array_equal(np.array(json.loads(r.stdout)), q)


def test_the_console_script_is_the_command_line(tmp_path, cli):
    script = shutil.which("motionfusion", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the package's console script is not installed here")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    r = subprocess.run([script, "replay", str(SIM), "--output", str(a)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cli("replay", SIM, "--output", b)
    assert a.read_bytes() == b.read_bytes()
    r = subprocess.run([script, "replay", str(SIM), "--mode", "3d"], capture_output=True, text=True)
    assert r.returncode == 2 and "--mode must be one of 6d, 9d" in r.stderr
