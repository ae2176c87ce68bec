"""The Python API against the command line: same estimates, same figures, same messages."""
from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf
from conftest import DATA, REPO, SIM, angle_deg, read_estimates

FILTER_MODES = [("ekf", "9d"), ("ekf", "6d"), ("complementary", "9d"), ("complementary", "6d"), ("mahony", "9d"),
                ("mahony", "6d"), ("madgwick", "9d"), ("madgwick", "6d"), ("ecompass", "9d"), ("tilt", "6d")]


def assert_matches_estimate_file(out: dict, est: dict, uncertainty: bool) -> None:
    """Every column of the command line's estimate file, to the decimals it writes."""
    q = np.stack([est[c] for c in ("qw", "qx", "qy", "qz")], axis=1)
    assert out["quaternion"].shape == q.shape
    assert np.abs(out["quaternion"] - q).max() <= 5.01e-10
    assert angle_deg(out["quaternion"], q).max() < 1e-5
    euler = np.stack([est["roll"], est["pitch"], est["yaw"]], axis=1)
    assert np.abs(out["euler_deg"] - euler).max() <= 5.01e-6
    dh = (out["heading_deg"] - est["heading"] + 180) % 360 - 180
    assert np.abs(dh).max() <= 5.01e-6
    assert np.array_equal(out["used"], est["used"] == 1)
    bias = np.stack([est["bias_x"], est["bias_y"], est["bias_z"]], axis=1)
    assert np.abs(out["gyro_bias"] - bias).max() <= 5.01e-9
    if uncertainty:
        assert np.abs(out["sigma_attitude_deg"] - est["sigma_attitude_deg"]).max() <= 5.01e-5
        assert np.abs(out["sigma_heading_deg"] - est["sigma_heading_deg"]).max() <= 5.01e-5
    else:
        assert "sigma_attitude_deg" not in est
        assert np.isnan(out["sigma_attitude_deg"]).all() and np.isnan(out["sigma_heading_deg"]).all()


# ---- The package itself -------------------------------------------------------------------------

def test_version_is_the_libraries(cli):
    text = (REPO / "Sources/MotionFusionEstimation/Version.swift").read_text()
    expected = re.search(r'motionFusionVersion = "([^"]+)"', text).group(1)
    assert mf.version() == mf.__version__ == expected
    assert cli("--version").stdout.strip() == f"motionfusion {expected}"


@pytest.mark.skipif("MOTIONFUSION_LIBRARY" in os.environ, reason="testing a development library")
def test_the_installed_wheel_is_tested():
    """The tests import an installed package: a wheel, or an editable install of this checkout
    (`pip install -e ./python`, which builds the library into python/motionfusion/_lib)."""
    import importlib.metadata
    import json

    package = Path(mf.__file__).resolve().parent
    if package == REPO / "python" / "motionfusion":
        direct = importlib.metadata.distribution("motionfusion").read_text("direct_url.json") or "{}"
        assert json.loads(direct).get("dir_info", {}).get("editable"), "tests must import the installed package"
    assert (package / "_lib" / "libMotionFusionC.so").exists()
    assert os.access(package / "_lib" / "motionfusion", os.X_OK)  # the command line, for the console script
    assert (package / "_lib" / "motionfusion.h").exists()
    assert (package / "py.typed").exists()


def test_run_cli_runs_the_bundled_command_line():
    status, out, err = mf.run_cli(["--version"])
    assert (status, out, err) == (0, f"motionfusion {mf.version()}\n", "")
    status, out, err = mf.run_cli(["replay", "--nope"])
    assert status == 2 and "unknown option --nope" in err and out == ""


def test_the_library_holds_no_command_line():
    """The C ABI is the library's (issue #27): no command-line entry points or signal handlers are
    exported, and none of the command line's code is linked in."""
    from motionfusion import _native

    for name in ("mf_cli_run", "mf_install_signal_handlers"):
        assert not hasattr(_native.lib, name), name
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils)")
    symbols = subprocess.run([nm, "-D", "--defined-only", _native.LIBRARY_PATH], capture_output=True, text=True,
                             check=True).stdout
    assert "mf_folder_plan" in symbols and "MotionFusionCommandLine" not in symbols


def test_a_failed_write_fails_its_run():
    # python -m motionfusion is the executable: --version onto a full standard output exits 1 and
    # says why; onto a working one, 0.
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "motionfusion", "--version"], stdout=full, stderr=subprocess.PIPE,
                           text=True, cwd="/")
    assert r.returncode == 1 and "write failed" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-m", "motionfusion", "--version"], capture_output=True, text=True, cwd="/")
    assert (r.returncode, r.stdout) == (0, f"motionfusion {mf.version()}\n")


def test_a_missing_executable_is_named_with_the_fix():
    env = dict(os.environ, MOTIONFUSION_EXECUTABLE="/nonexistent/motionfusion")
    r = subprocess.run([sys.executable, "-m", "motionfusion", "--version"], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "/nonexistent/motionfusion is missing" in r.stderr
    assert "MOTIONFUSION_EXECUTABLE" in r.stderr and "reinstall" in r.stderr


def test_the_console_script_is_the_executable_and_its_signal_handling(tmp_path):
    """``python -m motionfusion`` (as the console script) becomes the bundled executable: a SIGTERM
    during a run removes the half-written output and exits 143, as the command line does."""
    from motionfusion import _native

    out = tmp_path / "e.csv"
    child = subprocess.Popen([sys.executable, "-m", "motionfusion", "replay", "-", "--output", str(out)],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        header, first = SIM.read_text().splitlines()[:2]
        child.stdin.write(f"{header}\n{first}\n".encode())
        child.stdin.flush()
        # The temporary output appears once the executable runs (bounded: at most 60 s of polling).
        for _ in range(1200):
            if os.path.realpath(f"/proc/{child.pid}/exe") == os.path.realpath(_native.EXECUTABLE_PATH) and any(
                    p.name.startswith(".e.csv.") for p in tmp_path.iterdir()):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run's temporary output never appeared")
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=60)
    assert child.returncode == 143, (child.returncode, err)  # the command line's handler, not the default action
    assert list(tmp_path.iterdir()) == []


# ---- load ---------------------------------------------------------------------------------------

def test_load_shapes_and_dtypes(sim):
    n = 6001
    assert set(sim) == {"t", "gyr", "acc", "mag", "gt", "moving"}
    for key, shape in {"t": (n,), "gyr": (n, 3), "acc": (n, 3), "mag": (n, 3), "gt": (n, 4)}.items():
        assert sim[key].shape == shape and sim[key].dtype == np.float64 and sim[key].flags.c_contiguous
    assert sim["moving"].dtype == np.bool_ and sim["moving"].shape == (n,)
    raw = np.loadtxt(SIM, delimiter=",", skiprows=1)
    assert np.array_equal(sim["t"], raw[:, 0])
    assert np.array_equal(sim["gyr"], raw[:, 1:4]) and np.array_equal(sim["mag"], raw[:, 7:10])


def test_load_only_what_the_recording_has(tmp_path):
    path = tmp_path / "six.csv"
    path.write_text("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.81\n0.01,0,0,0.1,nan,0,9.81\n")
    with pytest.warns(mf.MotionFusionWarning):  # the NaN axis is repaired (reported) as "no value"
        trace = mf.load(path)
    assert set(trace) == {"t", "gyr", "acc"}
    assert np.isnan(trace["acc"][1]).all() and not np.isnan(trace["acc"][0]).any()


def test_load_other_formats(tmp_path):
    path = tmp_path / "xio.csv"
    path.write_text("Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),"
                    "Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n"
                    "0,0,0,180,0,0,1\n0.01,0,0,180,0,0,1\n")
    trace = mf.load(path)
    assert np.allclose(trace["gyr"][0], [0, 0, np.pi])
    assert np.allclose(trace["acc"][0], [0, 0, 9.80665])
    with pytest.raises(mf.MotionFusionError) as e:
        mf.load(path, format="nope")
    assert e.value.code == 2 and "format must be one of" in e.value.message


def test_load_errors_carry_the_command_lines_message(tmp_path, cli):
    path = tmp_path / "bad.csv"
    path.write_text("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.81\n0.01,0,0,x,0,0,9.81\n")
    with pytest.raises(mf.MotionFusionError) as e:
        mf.load(path)
    assert isinstance(e.value, ValueError) and e.value.code == 1
    assert re.match(rf"{re.escape(str(path))}:3:\d+: ", str(e.value)), str(e.value)
    r = cli("info", path, check=False)
    assert r.returncode == 1 and f"error: {e.value.message}" in r.stderr
    with pytest.raises(mf.MotionFusionError, match="no such file"):
        mf.load(tmp_path / "missing.csv")


# ---- replay and reconstruct against the command line --------------------------------------------

@pytest.mark.parametrize("filter,mode", FILTER_MODES)
def test_replay_matches_the_command_line(sim, cli, tmp_path, filter, mode):
    out = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], filter=filter, mode=mode)
    cli("replay", SIM, "--filter", filter, "--mode", mode, "--output", tmp_path / "e.csv")
    assert_matches_estimate_file(out, read_estimates(tmp_path / "e.csv"), uncertainty=filter == "ekf")
    # The attitude alone takes a shorter path to the same numbers.
    alone = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], filter=filter, mode=mode, outputs=["quaternion"])
    assert list(alone) == ["quaternion"] and np.array_equal(alone["quaternion"], out["quaternion"])


def test_replay_frame_declination_and_parameters_match(sim, cli, tmp_path):
    out = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], frame="ned", declination=-7.5,
                    parameters={"gyroscopeNoise": 0.003, "rest__minimumDuration": 2})
    cli("replay", SIM, "--frame", "ned", "--declination", "-7.5", "--param",
        "gyroscopeNoise=0.003,rest.minimumDuration=2", "--output", tmp_path / "e.csv")
    assert_matches_estimate_file(out, read_estimates(tmp_path / "e.csv"), uncertainty=True)
    alone = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], frame="ned", declination=-7.5,
                      parameters={"gyroscopeNoise": 0.003, "rest__minimumDuration": 2}, outputs=["quaternion"])
    assert np.array_equal(alone["quaternion"], out["quaternion"])


def test_replay_with_missing_values_matches(cli, tmp_path):
    """Dropouts (NaN rows), a repeated timestamp and a gap go through the same runner."""
    src = DATA / "sim_magnetic_disturbance_50hz.csv"
    lines = src.read_text().splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    for i in range(100, 140):
        rows[i][header.index("mag_x")] = "nan"
    for i in range(200, 205):
        for axis in "xyz":
            rows[i][header.index(f"gyr_{axis}")] = "nan"
    rows[300][0] = rows[299][0]
    for row in rows[400:]:
        row[0] = repr(float(row[0]) + 3.0)
    path = tmp_path / "faulty.csv"
    path.write_text("\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n")
    with pytest.warns(mf.MotionFusionWarning) as warned:
        trace = mf.load(path)
    messages = [str(w.message) for w in warned]
    assert any(m.startswith(f"{path}:102:81: warning: some axes missing 40 times") for m in messages), messages
    assert any(m.startswith(f"{path}:302:1: warning: duplicate timestamp") for m in messages), messages
    out = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"])
    cli("replay", path, "--output", tmp_path / "e.csv")
    assert_matches_estimate_file(out, read_estimates(tmp_path / "e.csv"), uncertainty=True)
    alone = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], outputs=["quaternion"])
    assert np.array_equal(alone["quaternion"], out["quaternion"])


@pytest.mark.parametrize("filter,mode", [("mahony", "9d"), ("madgwick", "6d"), ("ekf", "9d"), ("complementary", "9d")])
def test_replay_many_is_replay_on_each(sim, filter, mode):
    """Recordings of different lengths, rates and sensors in one call, on any number of threads: bit
    for bit what replay gives on each."""
    traces = []
    for k in range(6):
        start, step = 37 * k, 1 + k % 2  # different lengths, and half the rate every other one
        trace = {key: sim[key][start::step].copy() for key in ("t", "gyr", "acc", "mag")}
        if k == 2:
            trace["gyr"][50:60] = np.nan  # a dropout
        if k == 3:
            trace["mag"] = None  # no magnetometer: 9D runs 6D, as replay does
        traces.append(trace)
    traces.append({key: sim[key][:1].copy() for key in ("t", "gyr", "acc", "mag")})  # one sample
    alone = [mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], filter=filter, mode=mode, frame="ned",
                       outputs=["quaternion"])["quaternion"] for trace in traces]
    for workers in (None, 1, 2, 3, len(traces) + 5):
        many = mf.replay_many(traces, filter=filter, mode=mode, frame="ned", workers=workers)
        assert len(many) == len(traces)
        for trace, q, a in zip(traces, many, alone):
            assert q.shape == (len(trace["t"]), 4)
            assert np.array_equal(q, a), workers
    assert mf.replay_many([]) == []
    for workers in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="workers must be a positive integer"):
            mf.replay_many(traces, workers=workers)
    with pytest.raises(mf.MotionFusionError, match="filter"):
        mf.replay_many(traces, filter="nonsense")
    with pytest.raises(ValueError):
        mf.replay_many([{"t": sim["t"], "gyr": sim["gyr"][:10], "acc": sim["acc"]}])
    with pytest.raises(ValueError, match=r"traces\[1\] must be a mapping"):
        mf.replay_many([traces[0], sim["t"]])
    with pytest.raises(ValueError, match=r"traces\[0\] must be a mapping with 't'"):
        mf.replay_many([{"gyr": sim["gyr"], "acc": sim["acc"]}])


def test_reconstruct_matches_the_command_line(sim, cli, tmp_path):
    for mode in ("9d", "6d"):
        out = mf.reconstruct(sim["t"], sim["gyr"], sim["acc"], sim["mag"], mode=mode)
        cli("reconstruct", SIM, "--mode", mode, "--output", tmp_path / "e.csv")
        assert_matches_estimate_file(out, read_estimates(tmp_path / "e.csv"), uncertainty=True)


def test_9d_without_magnetometer_runs_6d_and_says_so(sim):
    with pytest.warns(mf.MotionFusionWarning, match="no magnetometer value: running 6D"):
        a = mf.replay(sim["t"], sim["gyr"], sim["acc"], None, mode="9d")
    b = mf.replay(sim["t"], sim["gyr"], sim["acc"], None, mode="6d")
    assert np.array_equal(a["quaternion"], b["quaternion"])
    with pytest.warns(mf.MotionFusionWarning, match=r"traces\[0\]: mode='9d'"):
        mf.replay_many([{"t": sim["t"], "gyr": sim["gyr"], "acc": sim["acc"]}], mode="9d")
    # The filter's own default (None) is silent, as the command line without --mode.
    import warnings as w
    with w.catch_warnings():
        w.simplefilter("error")
        c = mf.replay(sim["t"], sim["gyr"], sim["acc"], None)
    assert np.array_equal(c["quaternion"], b["quaternion"])


def test_mode_defaults_to_the_filters_own(sim, cli, tmp_path):
    """``filter="tilt"`` (6D only) runs without a mode, as ``motionfusion replay --filter tilt`` does."""
    out = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], filter="tilt")
    cli("replay", SIM, "--filter", "tilt", "--output", tmp_path / "e.csv")
    assert_matches_estimate_file(out, read_estimates(tmp_path / "e.csv"), uncertainty=False)
    f = mf.Filter("tilt")
    q = f.update(sim["t"][0], sim["gyr"][0], sim["acc"][0], None)
    assert np.all(np.isfinite(q))
    assert json.loads(mf.Filter("ekf").state)["setup"] | {"parameters": None} == {
        "kind": "ekf", "mode": "9d", "parameters": None}
    with pytest.raises(mf.MotionFusionError, match="e-compass needs one"):
        mf.replay(sim["t"], sim["gyr"], sim["acc"], None, filter="ecompass")


def test_replay_output_shapes_and_dtypes(sim):
    out = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"])
    n = len(sim["t"])
    shapes = {"quaternion": (n, 4), "euler_deg": (n, 3), "heading_deg": (n,), "used": (n,), "gyro_bias": (n, 3),
              "sigma_attitude_deg": (n,), "sigma_heading_deg": (n,)}
    assert {k: v.shape for k, v in out.items()} == shapes
    assert out["used"].dtype == np.bool_
    assert all(v.dtype == np.float64 for k, v in out.items() if k != "used")
    assert (out["quaternion"][:, 0] >= 0).all()
    assert np.allclose(np.linalg.norm(out["quaternion"], axis=1), 1)
    assert ((out["heading_deg"] >= 0) & (out["heading_deg"] < 360)).all()
    empty = mf.replay(np.empty(0), np.empty((0, 3)), np.empty((0, 3)))
    assert empty["quaternion"].shape == (0, 4)
    some = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], outputs=["quaternion", "used"])
    assert set(some) == {"quaternion", "used"}
    assert np.array_equal(some["quaternion"], out["quaternion"]) and np.array_equal(some["used"], out["used"])
    with pytest.raises(ValueError, match="outputs must name some of"):
        mf.replay(sim["t"], sim["gyr"], sim["acc"], outputs="quaternion")


def test_inputs_are_read_without_a_copy(sim):
    from motionfusion._core import _array

    for key, columns in (("t", None), ("gyr", 3), ("gt", 4)):
        a = sim[key]
        assert _array(a, key, columns, None) is a
    # What is not C-contiguous float64 is converted (a copy) and gives the same result.
    ref = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"])
    fortran = np.asfortranarray(sim["gyr"])
    assert not np.shares_memory(_array(fortran, "gyr", 3, None), fortran)
    strided = np.concatenate([sim["acc"], sim["acc"]], axis=1)[:, :3]
    out = mf.replay(sim["t"].tolist(), fortran, strided, sim["mag"].tolist())
    assert np.array_equal(out["quaternion"], ref["quaternion"])
    # Read-only arrays are fine: nothing is written to an input.
    for key in ("t", "gyr", "acc", "mag"):
        sim[key].flags.writeable = False
    try:
        assert np.array_equal(mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"])["quaternion"], ref["quaternion"])
    finally:
        for key in ("t", "gyr", "acc", "mag"):
            sim[key].flags.writeable = True


def test_wrong_shapes_raise_value_error(sim):
    with pytest.raises(ValueError, match=r"gyr must have shape \(N, 3\)"):
        mf.replay(sim["t"], sim["gyr"][:, :2], sim["acc"])
    with pytest.raises(ValueError, match="rows but t has"):
        mf.replay(sim["t"], sim["gyr"][:-1], sim["acc"])
    with pytest.raises(ValueError, match="one-dimensional"):
        mf.replay(sim["gyr"], sim["gyr"], sim["acc"])


def test_argument_errors_are_usage_errors(sim):
    args = (sim["t"], sim["gyr"], sim["acc"], sim["mag"])
    cases = [
        (dict(filter="kalman"), "filter must be one of ekf, complementary"),
        (dict(filter="tilt", mode="9d"), "filter tilt supports only mode 6d"),
        (dict(mode="3d"), "mode must be one of 6d, 9d"),
        (dict(frame="xyz"), "frame must be one of enu, ned, nwu"),
        (dict(parameters={"nope": 1}), "ekf has no parameter 'nope'"),
        (dict(declination=400), "declination must be within"),
    ]
    for kwargs, message in cases:
        with pytest.raises(mf.MotionFusionError) as e:
            mf.replay(*args, **kwargs)
        assert e.value.code == 2 and message in e.value.message, e.value.message
    with pytest.raises(mf.MotionFusionError, match="reconstruct runs the EKF"):
        mf.reconstruct(*args, filter="madgwick")


# ---- evaluate -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["9d", "6d"])
def test_evaluate_matches_evaluate_json(sim, cli, tmp_path, mode):
    import json

    out = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], mode=mode)
    cli("replay", SIM, "--mode", mode, "--output", tmp_path / "e.csv")
    expected = json.loads(cli("evaluate", tmp_path / "e.csv", "--truth", SIM, "--mode", mode, "--json").stdout)
    for truth in (SIM, sim):
        got = mf.evaluate(out["quaternion"], truth, mode)
        assert set(got) == set(expected)
        assert got["samples_used"] == expected["samples_used"] and got["mode"] == expected["mode"]
        for key in ("total_rmse_deg", "heading_rmse_deg", "inclination_rmse_deg", "heading_offset_deg"):
            assert abs(got[key] - expected[key]) < 1e-6, key


def test_evaluate_in_another_frame_and_errors(sim):
    enu = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"])
    ned = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], frame="ned")
    a = mf.evaluate(enu["quaternion"], sim)
    b = mf.evaluate(ned["quaternion"], sim, frame="ned")
    assert abs(a["total_rmse_deg"] - b["total_rmse_deg"]) < 1e-9
    with pytest.raises(mf.MotionFusionError, match="no samples with ground truth"):
        mf.evaluate(enu["quaternion"], {"gt": np.full((len(sim["t"]), 4), np.nan)})
    with pytest.raises(ValueError, match="rows"):
        mf.evaluate(enu["quaternion"][:10], sim)


# ---- Filter -------------------------------------------------------------------------------------

def test_filter_per_sample_equals_replay(sim):
    n = 800
    t = sim["t"][:n]
    ref = mf.replay(t, sim["gyr"][:n], sim["acc"][:n], sim["mag"][:n])
    f = mf.Filter("ekf", mode="9d")
    q = np.empty((n, 4))
    for i in range(n):
        q[i] = f.update(t[i], sim["gyr"][i], sim["acc"][i], sim["mag"][i])
    assert np.array_equal(q, ref["quaternion"])
    assert np.array_equal(f.gyro_bias, ref["gyro_bias"][-1])
    d = f.diagnostics
    assert d["initialising"] is False and abs(d["sigma_attitude_deg"] - ref["sigma_attitude_deg"][-1]) < 1e-12


def test_filter_state_restores_exactly(sim):
    def run(f, lo, hi):
        for i in range(lo, hi):
            f.update(sim["t"][i], sim["gyr"][i], sim["acc"][i], sim["mag"][i])
        return f.quaternion

    whole = run(mf.Filter("madgwick", beta=0.2), 0, 600)
    first = mf.Filter("madgwick", beta=0.2)
    run(first, 0, 300)
    second = mf.Filter("madgwick", beta=0.2)
    second.state = first.state
    assert np.array_equal(run(second, 300, 600), whole)
    copied = pickle.loads(pickle.dumps(first))
    assert repr(copied) == "Filter('madgwick', mode='9d', beta=0.2)"
    assert np.array_equal(run(copied, 300, 600), whole)


def test_filter_parameters_and_errors():
    f = mf.Filter("ekf", mode="6d", gyroscopeNoise=0.003, rest__minimumDuration=2.5)
    p = f.parameters
    assert p["gyroscopeNoise"] == 0.003 and p["rest.minimumDuration"] == 2.5 and np.isnan(p["expectedDip"])
    assert mf.Filter("mahony", kp=1.5, ki=1e-5).parameters == {
        "kp": 1.5, "ki": 1e-5,
        "integration.gapRatio": 2.0, "integration.stepAveragingTime": 1.0, "integration.rateChangeSteps": 3.0}
    with pytest.raises(mf.MotionFusionError, match=r"'kp' must be within \[0, 100\]; got inf"):
        mf.Filter("mahony", kp=float("inf"))
    assert f.update(0.0, None, [0, 0, 9.81], None).shape == (4,)
    with pytest.raises(mf.MotionFusionError) as e:
        f.update(gyr=None, dt=-0.01)
    assert e.value.code == 2 and "dt must be finite" in e.value.message
    with pytest.raises(ValueError, match="3 values"):
        f.update(0.01, [0, 0], None, None)
    with pytest.raises(TypeError, match="t must be the sample's time"):
        f.update("0.02", None, [0, 0, 9.81])
    with pytest.raises(ValueError, match="or dt .*, not both"):
        f.update(0.02, None, [0, 0, 9.81], dt=0.01)
    with pytest.raises(mf.MotionFusionError) as e:
        f.state = '{"nope": 1}'
    assert e.value.code == 1 and "not a saved state of this filter (ekf)" in e.value.message
    with pytest.raises(mf.MotionFusionError, match="madgwick has no parameter 'kp'"):
        mf.Filter("madgwick", kp=1)


def test_filters_are_the_librarys():
    """FILTERS is the library's list: every name makes a filter, and an unknown one is refused
    with exactly those names."""
    assert mf.FILTERS[0] == "ekf" and len(set(mf.FILTERS)) == len(mf.FILTERS) >= 6
    for kind in mf.FILTERS:
        assert mf.Filter(kind).kind == kind
    with pytest.raises(mf.MotionFusionError) as e:
        mf.Filter("kalman")
    assert e.value.code == 2 and e.value.message.endswith(f"must be one of {', '.join(mf.FILTERS)}; got 'kalman'")


# ---- A held-out BROAD trial (the acceptance check) --------------------------------------

def test_broad_trial_matches_the_command_line(broad_trial, cli, tmp_path):
    trace = mf.load(broad_trial)
    assert len(trace["t"]) > 50000 and {"gyr", "acc", "mag", "gt", "moving"} <= set(trace)
    out = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], filter="ekf", mode="9d")
    cli("replay", broad_trial, "--filter", "ekf", "--mode", "9d", "--output", tmp_path / "e.csv")
    est = read_estimates(tmp_path / "e.csv")
    q = np.stack([est[c] for c in ("qw", "qx", "qy", "qz")], axis=1)
    assert angle_deg(out["quaternion"], q).max() < 1e-5
    assert_matches_estimate_file(out, est, uncertainty=True)


# ---- Findings of a hostile pass over the Python API ---------------------------------------------

def test_freed_filter_raises_instead_of_crashing():
    f = mf.Filter("ekf")
    f.__del__()
    for touch in (lambda: f.quaternion, lambda: f.state, lambda: f.parameters,
                  lambda: f.update(0.0, [0, 0, 0], [0, 0, 9.8], None),
                  lambda: f.update_many([0.0], None, [[0, 0, 9.8]])):
        with pytest.raises(mf.MotionFusionError, match="has been freed"):
            touch()


def test_state_restores_only_into_the_same_filter(sim):
    a = mf.Filter("ekf")
    for i in range(50):
        a.update(sim["t"][i], sim["gyr"][i], sim["acc"][i], sim["mag"][i])
    state = a.state
    saved = json.loads(state)
    assert sorted(saved) == ["filter", "runner", "setup"] and saved["setup"]["kind"] == "ekf"
    assert sorted(saved["setup"]["parameters"]) == sorted(a.parameters)
    for other, belongs in ((mf.Filter("complementary"), "it belongs to a ekf 9d filter"),
                           (mf.Filter("ekf", "6d"), "it belongs to a ekf 9d filter"),
                           (mf.Filter("ekf", gyroscopeNoise=0.1), "with other parameters")):
        with pytest.raises(mf.MotionFusionError, match=belongs):
            other.state = state
    same = mf.Filter("ekf")
    same.state = state
    assert np.array_equal(same.quaternion, a.quaternion)
    with pytest.raises(TypeError):
        same.state = 5


def test_run_cli_captures_estimates_on_standard_output(sim):
    status, out, err = mf.run_cli(["replay", str(SIM), "--output", "-"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("t,qw,qx,qy,qz") and len(lines) == len(sim["t"]) + 1


def test_odd_arguments_are_refused_plainly(sim):
    with pytest.raises(ValueError, match="not a parameter name"):
        mf.Filter("mahony", **{"kp=5,ki": 0.1})
    with pytest.raises(TypeError, match="parameter names must be strings"):
        mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], filter="mahony", parameters={1: 2})
    with pytest.raises(TypeError, match="complex"):
        mf.replay(sim["t"].astype(complex), sim["gyr"], sim["acc"], sim["mag"])
    with pytest.raises(TypeError, match="complex"):
        mf.Filter("ekf").update(0.0, np.array([1j, 0, 0]), [0, 0, 9.8], None)
    with pytest.raises(ValueError, match="embedded null byte"):
        mf.load("/x/a\x00b.csv")
    q = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], outputs=["quaternion"])["quaternion"]
    with pytest.raises(ValueError, match="but the ground truth"):
        mf.evaluate(q[:-1], sim)
    with pytest.raises(TypeError, match="mode must be"):
        mf.evaluate(q, sim, mode=None)


#: A Mahony 9D filter's state saved by the C ABI before it saved the runner's format (main at
#: a78ac58): ``{"filter": KIND, "mode", "parameters", "runner", "state"}``.
EARLIER_STATE = (
    '{"filter":"mahony","mode":"9d","parameters":{"integration.gapRatio":2,"integration.rateChangeSteps":3,"integration.stepAveragingTime":1,"ki":0.0012,"kp":0.74},"runner":{"clipping":{"largest":{"x":0.009999232575641009,"y":0.02,"z":0.01},"range":{"x":0,"y":0,"z":0},"runX":0,"runY":40,"runZ":40},"lastAccelerometer":{"x":0.1,"y":-0.19634044059969083,"z":9.8},"lastGyroscope":{"x":-0.0037387666483023603,"y":0.02,"z":-0.01},"lastGyroscopeTime":0.59,"lastTime":0.59},"state":{"attitude":{"w":0.6341954842231705,"x":0.004411793697419927,"y":0.004877006457142294,"z":0.773144772132184},"headingReferenced":true,"initialised":true,"integral":{"x":-1.1944419872715222e-05,"y":-3.791699756333637e-06,"z":6.117999336366426e-07},"integrator":{"longSteps":0,"previousRate":{"x":-0.0037387666483023603,"y":0.02,"z":-0.01},"typicalStep":0.009999999999999998},"use":{"accelerometerRejected":false,"atRest":false,"centripetal":{"x":0,"y":0,"z":0},"magnetometerRejected":true}}}')


def test_a_state_in_the_earlier_format_still_restores():
    old = json.loads(EARLIER_STATE)
    f = mf.Filter("mahony")
    f.state = EARLIER_STATE
    saved = json.loads(f.state)
    # The runner's memory holds the magnetometer's clipping since that format: at its start.
    assert saved["runner"].pop("magnetometerClipping")["upper"]["x"] == "inf"
    # And the accelerometer's time and the sensors read at the latest time since the one after
    # it: none, so nothing is held and no repeated time is judged against them.
    assert saved["runner"].pop("lastAccelerometerTime") == "-inf"
    assert saved["runner"].pop("sensorsAtTime")["time"] == "-inf"
    assert "heldAccelerometer" not in saved["runner"]
    assert saved["filter"] == old["state"] and saved["runner"] == old["runner"]  # value for value
    assert saved["setup"] == {"kind": "mahony", "mode": "9d", "parameters": old["parameters"]}
    q = old["state"]["attitude"]
    assert np.array_equal(f.quaternion, [q["w"], q["x"], q["y"], q["z"]])
    # It goes on as the same state in the new format does.
    g = mf.Filter("mahony")
    g.state = f.state
    for h in (f, g):
        h.update(0.6, [0.01, 0.02, -0.01], [0.1, 0.2, 9.8], [20, -5, -40])
    assert f.state == g.state
    with pytest.raises(mf.MotionFusionError, match="it belongs to a mahony 9d filter"):
        mf.Filter("madgwick").state = EARLIER_STATE
