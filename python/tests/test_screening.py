"""The per-sample Filter on replay's run path, arrays screened as files are, load's reading options
and info."""
from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest

import motionfusion as mf
from conftest import SIM


def half_rate_gyroscope(trace: dict) -> dict:
    """The trace with the gyroscope at half rate: NaN on every other row."""
    out = dict(trace)
    out["gyr"] = trace["gyr"].copy()
    out["gyr"][1::2] = np.nan
    return out


def per_sample(f: mf.Filter, trace: dict, lo: int = 0, hi: int | None = None) -> np.ndarray:
    hi = len(trace["t"]) if hi is None else hi
    t, g, a, m = trace["t"], trace["gyr"], trace["acc"], trace["mag"]
    return np.array([f.update(t[i], g[i], a[i], m[i]) for i in range(lo, hi)])


def quiet():
    """A context in which any MotionFusionWarning fails the test."""
    c = warnings.catch_warnings()
    c.__enter__()
    warnings.simplefilter("error", mf.MotionFusionWarning)
    return c


@pytest.mark.parametrize("half_rate", [False, True])
def test_filter_updates_are_replay_on_a_broad_trial(broad_trial, half_rate):
    trace = mf.load(broad_trial)
    if half_rate:
        trace = half_rate_gyroscope(trace)
    ref = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], mode="9d")["quaternion"]
    c = quiet()
    try:
        q = per_sample(mf.Filter("ekf", "9d"), trace)
        many = mf.Filter("ekf", "9d").update_many(trace["t"], trace["gyr"], trace["acc"], trace["mag"])
    finally:
        c.__exit__(None, None, None)
    assert np.abs(q - ref).max() <= 1e-12
    assert np.abs(many - ref).max() <= 1e-12


@pytest.mark.parametrize("kind", ["ekf", "complementary", "mahony", "madgwick"])
def test_filter_with_nan_gyroscope_rows_is_replay(sim, kind):
    trace = half_rate_gyroscope(sim)
    ref = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], filter=kind, mode="9d")
    f = mf.Filter(kind, "9d")
    assert np.abs(per_sample(f, trace) - ref["quaternion"]).max() <= 1e-12
    assert np.abs(f.gyro_bias - ref["gyro_bias"][-1]).max() <= 1e-12
    # A gap of more than 1 s re-initialises, as in replay.
    gap = dict(sim)
    gap["t"] = sim["t"] + np.where(np.arange(len(sim["t"])) >= 3000, 5.0, 0.0)
    ref = mf.replay(gap["t"], gap["gyr"], gap["acc"], gap["mag"], filter=kind, mode="9d")["quaternion"]
    assert np.abs(mf.Filter(kind, "9d").update_many(gap["t"], gap["gyr"], gap["acc"], gap["mag"]) - ref).max() <= 1e-12


def test_update_many_continues_in_blocks_and_mixes_with_update(sim):
    whole = mf.Filter().update_many(sim["t"], sim["gyr"], sim["acc"], sim["mag"])
    f = mf.Filter()
    a = f.update_many(sim["t"][:1000], sim["gyr"][:1000], sim["acc"][:1000], sim["mag"][:1000])
    b = per_sample(f, sim, 1000, 1200)
    c = f.update_many(sim["t"][1200:], sim["gyr"][1200:], sim["acc"][1200:], sim["mag"][1200:])
    assert np.array_equal(np.concatenate([a, b, c]), whole)
    assert mf.Filter().update_many(np.empty(0), None, np.empty((0, 3))).shape == (0, 4)
    with pytest.raises(ValueError, match="rows"):
        f.update_many(sim["t"][:5], sim["gyr"][:4], sim["acc"][:5])


def test_state_carries_the_held_gyroscope(sim):
    trace = half_rate_gyroscope(sim)
    whole = per_sample(mf.Filter("mahony"), trace)
    first = mf.Filter("mahony")
    per_sample(first, trace, 0, 301)  # the last row has a gyroscope value the next one holds
    state = first.state
    assert '"runner":{' in state
    second = mf.Filter("mahony")
    second.state = state
    assert np.array_equal(per_sample(second, trace, 301), whole[301:])
    copied = pickle.loads(pickle.dumps(first))
    assert np.array_equal(per_sample(copied, trace, 301), whole[301:])


def test_the_dt_form_runs_on_the_filters_clock(sim):
    n = 500
    t = sim["t"][:n] - sim["t"][0]
    steps = np.diff(t, prepend=0.0)
    f = mf.Filter()
    q = np.array([f.update(gyr=sim["gyr"][i], acc=sim["acc"][i], mag=sim["mag"][i], dt=steps[i]) for i in range(n)])
    ref = mf.replay(np.cumsum(steps), sim["gyr"][:n], sim["acc"][:n], sim["mag"][:n])["quaternion"]
    assert np.abs(q - ref).max() < 1e-9
    old = mf.Filter()
    with pytest.warns(DeprecationWarning, match=r"update\(t, gyr, acc, mag\)"):
        legacy = [old.update(sim["gyr"][i], sim["acc"][i], sim["mag"][i], steps[i]) for i in range(n)]
    assert np.array_equal(np.array(legacy), q)


def test_update_takes_lists_tuples_none_and_numpy_scalars(sim):
    g, a, m = sim["gyr"][0], sim["acc"][0], sim["mag"][0]
    q = mf.Filter().update(sim["t"][0], g, a, m)
    assert np.array_equal(mf.Filter().update(float(sim["t"][0]), list(g), tuple(a), m.tolist()), q)
    assert np.array_equal(mf.Filter().update(np.float32(0), None, a.astype(np.float32), None),
                          mf.Filter().update(0.0, [np.nan] * 3, a.astype(np.float32).astype(float), None))
    r = mf.Filter().update(0.0, None, a, None)
    assert r.shape == (4,) and r.dtype == np.float64
    r[0] = 5  # a copy: the filter's own buffer is not handed out
    assert mf.Filter().update(0.0, None, a, None)[0] != 5


def test_every_form_of_a_sample_gives_the_same_update(sim):
    """The extension's fast path (floats, lists, tuples, float64 arrays) and the general path (other
    dtypes, strides, byte orders, sequences) give the same attitudes and the same errors."""
    n = 300
    ref = mf.Filter().update_many(sim["t"][:n], sim["gyr"][:n], sim["acc"][:n], sim["mag"][:n])
    strided = np.asfortranarray(sim["gyr"][:n])  # rows are not contiguous
    swapped = sim["acc"][:n].astype(">f8")
    forms = [
        lambda i: (sim["t"][i], sim["gyr"][i], sim["acc"][i], sim["mag"][i]),
        lambda i: (float(sim["t"][i]), sim["gyr"][i].tolist(), tuple(sim["acc"][i]), list(sim["mag"][i])),
        lambda i: (np.array(sim["t"][i]), strided[i], swapped[i], iter(sim["mag"][i].tolist())),
        lambda i: (sim["t"][i], sim["gyr"][i].astype(np.longdouble), sim["acc"][i], sim["mag"][i][None][0]),
    ]
    for form in forms:
        f = mf.Filter()
        assert np.array_equal(np.array([f.update(*form(i)) for i in range(n)]), ref)
    f = mf.Filter()
    for bad, error, match in (
        ((0.0, [0, 0], None, None), ValueError, "3 values"),
        ((0.0, np.zeros((1, 3)), None, None), ValueError, "3 values"),
        ((0.0, [0, 0, 1j], None, None), TypeError, "real numbers"),
        ((0.0, None, np.zeros(3, complex), None), TypeError, "real numbers"),
        (("0", None, [0, 0, 9.8], None), TypeError, "t must be the sample's time"),
        ((None, None, [0, 0, 9.8], None), TypeError, "or dt="),
        ((0.0, None, ["a", 0, 9.8], None), ValueError, "could not convert"),
    ):
        with pytest.raises(error, match=match):
            f.update(*bad)
    assert np.array_equal(f.quaternion, mf.Filter().quaternion)  # none of them updated the filter


def test_update_warnings_point_at_the_caller(sim):
    for gyr in ([200.0, 0, 0], np.array([200.0, 0, 0]), np.array([200, 0, 0], np.float32)):
        with pytest.warns(mf.MotionFusionWarning, match="beyond any sensor's range") as record:
            mf.Filter().update(0.0, gyr, sim["acc"][0], None)
        assert {w.filename for w in record} == {__file__}


def test_without_its_extension_the_package_refuses_to_import_and_names_the_fix():
    import subprocess
    import sys

    code = ("import sys; sys.modules['motionfusion._step'] = None\n"
            "try:\n    import motionfusion\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "motionfusion._step, the C extension behind Filter.update, could not be loaded" in out
    assert "pip install --force-reinstall ./python" in out


# ---- Arrays screened as files are ---------------------------------------------------------------

def test_clean_arrays_pass_without_a_word(sim):
    c = quiet()
    try:
        mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"])
        mf.replay_many([sim, sim])
        per_sample(mf.Filter(), sim, 0, 400)
    finally:
        c.__exit__(None, None, None)


def test_gyroscope_in_degrees_is_named_with_the_fix_for_arrays(sim):
    deg = np.degrees(sim["gyr"])
    with pytest.warns(mf.MotionFusionWarning, match=r"looks like deg/s: pass gyr in rad/s: np\.radians\(gyr\)"):
        mf.replay(sim["t"], deg, sim["acc"], sim["mag"])
    with pytest.warns(mf.MotionFusionWarning, match=r"traces\[1\]: gyroscope peaks .* np\.radians"):
        mf.replay_many([sim, {**sim, "gyr": deg}])
    # Rates over 100 "rad/s" are beyond any gyroscope: no value, as in a file, and said so with the fix.
    with pytest.warns(mf.MotionFusionWarning, match=r"Filter.update: sample 0: value beyond any sensor's range once, "
                                                     r"first: gyroscope .* pass gyr in rad/s: np\.radians\(gyr\)"):
        per_sample(mf.Filter(), {**sim, "gyr": deg}, 2000, 2400)


def test_times_in_milliseconds_or_sample_indices_are_named(sim):
    with pytest.warns(mf.MotionFusionWarning, match=r"pass t in seconds: t / 1e3"):
        mf.replay(sim["t"] * 1000, sim["gyr"], sim["acc"], sim["mag"])
    index = np.arange(len(sim["t"]), dtype=float)
    with pytest.warns(mf.MotionFusionWarning, match="look like sample indices"):
        mf.reconstruct(index[:2000], sim["gyr"][:2000], sim["acc"][:2000], sim["mag"][:2000])
    with pytest.warns(mf.MotionFusionWarning, match="look like sample indices"):
        mf.Filter().update_many(index, sim["gyr"], sim["acc"], sim["mag"])


def test_float32_epoch_times_are_refused_naming_float64(sim):
    epoch = (1.7e9 + sim["t"]).astype(np.float32)
    with pytest.raises(mf.MotionFusionError, match=r"t is float32.*collapse to \d+ distinct values.*float64"):
        mf.replay(epoch, sim["gyr"], sim["acc"], sim["mag"])
    with pytest.raises(mf.MotionFusionError, match="float64"):
        mf.Filter().update_many(epoch, sim["gyr"], sim["acc"], sim["mag"])
    # float32 times that keep their steps (relative times) are fine.
    mf.replay(sim["t"].astype(np.float32), sim["gyr"], sim["acc"], sim["mag"])


def test_a_huge_spike_is_no_value_and_said_so(sim):
    spiked = sim["gyr"].copy()
    spiked[1234] = [1e6, 0, 0]
    gap = sim["gyr"].copy()
    gap[1234] = np.nan
    with pytest.warns(mf.MotionFusionWarning, match=r"row 1234: value beyond any sensor's range once, first: "
                                                     r"gyroscope magnitude 1000000.0 beyond 100.0"):
        out = mf.replay(sim["t"], spiked, sim["acc"], sim["mag"])
    assert np.array_equal(out["quaternion"], mf.replay(sim["t"], gap, sim["acc"], sim["mag"])["quaternion"])
    assert spiked[1234, 0] == 1e6  # the caller's array is left alone
    f = mf.Filter()
    with pytest.warns(mf.MotionFusionWarning, match=r"Filter.update: sample 1234: value beyond"):
        q = per_sample(f, {**sim, "gyr": spiked})
    assert np.abs(q - out["quaternion"]).max() <= 1e-12


def test_all_nan_inputs_raise_instead_of_identity(sim):
    nan = np.full_like(sim["acc"], np.nan)
    with pytest.raises(mf.MotionFusionError, match="acc has no usable value"):
        mf.replay(sim["t"], sim["gyr"], nan, sim["mag"])
    with pytest.raises(mf.MotionFusionError, match="traces\\[0\\]: acc has no usable value"):
        mf.replay_many([{**sim, "acc": nan}])
    with pytest.raises(mf.MotionFusionError, match="t has no finite value"):
        mf.reconstruct(np.full(len(sim["t"]), np.nan), sim["gyr"], sim["acc"], sim["mag"])
    with pytest.warns(mf.MotionFusionWarning, match="gyr has no usable value"):
        mf.replay(sim["t"], nan, sim["acc"], sim["mag"])


# ---- load's reading options and info -------------------------------------------------------------

@pytest.fixture
def foreign(tmp_path, sim):
    """A delimited file with odd column names, the gyroscope in deg/s and time in milliseconds."""
    path = tmp_path / "log.csv"
    n = 1500
    rows = np.column_stack([sim["t"][:n] * 1000, sim["acc"][:n], np.degrees(sim["gyr"][:n])])
    np.savetxt(path, rows, delimiter=",", header="stamp,ax,ay,az,wx,wy,wz", comments="", fmt="%.17g")
    return path


def test_load_with_columns_and_units(foreign, sim):
    a = mf.load(foreign, columns={"t": "stamp", "acc": "ax", "gyr": "wx"}, units={"gyr": "deg/s", "t": "ms"})
    b = mf.load(foreign, columns="t=1,acc=2,gyr=5", units="gyr=deg/s,t=ms")
    for key in ("t", "gyr", "acc"):
        assert np.array_equal(a[key], b[key])
    assert np.allclose(a["t"], sim["t"][:1500], atol=1e-12)
    assert np.allclose(a["gyr"], sim["gyr"][:1500], atol=1e-12)
    assert "mag" not in a
    with pytest.raises(mf.MotionFusionError) as e:
        mf.load(foreign, columns="t=1,acc=2,gyr=5", units="gyr=furlongs")
    assert e.value.code == 2 and "furlongs" in e.value.message
    with pytest.raises(TypeError, match="columns must be"):
        mf.load(foreign, columns=5)


def test_info_is_info_json(cli, foreign):
    expected = json.loads(cli("info", "--json", SIM).stdout)
    assert mf.info(SIM) == expected
    r = cli("info", "--json", foreign, "--columns", "t=1,acc=2,gyr=5", "--units", "gyr=deg/s,t=ms")
    assert mf.info(foreign, columns={"t": 1, "acc": 2, "gyr": 5}, units={"gyr": "deg/s", "t": "ms"}) == json.loads(
        r.stdout)
    with pytest.raises(mf.MotionFusionError) as e:
        mf.info(SIM.parent / "missing.csv")
    assert e.value.code == 1 and "missing.csv" in e.value.message
