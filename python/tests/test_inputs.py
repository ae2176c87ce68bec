"""Inputs past CSV: load's reading options, tables (pyarrow, pandas) through from_table, ROS bags,
and the warning replay gives, as the command line does, for a magnetometer rejected most of the run."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf
from conftest import SIM

COLUMNS = ("t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z", "mag_x", "mag_y", "mag_z")


def write_csv(path: Path, trace: dict, header: str | None, preamble: str = "") -> None:
    rows = np.column_stack([trace["t"], trace["gyr"], trace["acc"], trace["mag"]])
    with open(path, "w") as f:
        f.write(preamble)
        if header is not None:
            f.write(header + "\n")
        np.savetxt(f, rows, delimiter=",", fmt="%.17g")


# ---- load: remap and header_rows -----------------------------------------------------------------

def test_load_remap_and_header_rows(tmp_path, sim):
    plain = tmp_path / "plain.csv"
    write_csv(plain, sim, ",".join(COLUMNS))
    # remap "y,-x,z": body x is the raw y axis, body y is minus the raw x axis.
    r = mf.load(plain, remap="y,-x,z")
    for key in ("gyr", "acc", "mag"):
        np.testing.assert_array_equal(r[key][:, 0], sim[key][:, 1])
        np.testing.assert_array_equal(r[key][:, 1], -sim[key][:, 0])
        np.testing.assert_array_equal(r[key][:, 2], sim[key][:, 2])
    # Per sensor: only the magnetometer remapped.
    m = mf.load(plain, remap="mag=y,-x,z")
    np.testing.assert_array_equal(m["mag"][:, 0], sim["mag"][:, 1])
    np.testing.assert_array_equal(m["mag"][:, 1], -sim["mag"][:, 0])
    np.testing.assert_array_equal(m["acc"], sim["acc"])
    np.testing.assert_array_equal(m["gyr"], sim["gyr"])
    # Two header rows (names, then units) and no header at all, read with columns.
    two = tmp_path / "two.csv"
    write_csv(two, sim, ",".join(COLUMNS) + "\n" + ",".join(["s"] + ["rad/s"] * 3 + ["m/s2"] * 3 + ["uT"] * 3))
    a = mf.load(two, header_rows=2)
    bare = tmp_path / "bare.csv"
    write_csv(bare, sim, None)
    b = mf.load(bare, header_rows=0, columns="t=1,gyr=2,acc=5,mag=8")
    for key in ("t", "gyr", "acc", "mag"):
        np.testing.assert_array_equal(a[key], sim[key])
        np.testing.assert_array_equal(b[key], sim[key])
    with pytest.raises(mf.MotionFusionError, match="is not a remap: expected three signed axes") as e:
        mf.load(plain, remap="x,x,z")
    assert e.value.code == 2
    with pytest.raises(mf.MotionFusionError, match=r"header_rows must be within 0\.\.\.1000"):
        mf.load(plain, header_rows=5000)
    with pytest.raises(TypeError):
        mf.load(plain, header_rows=1.5)
    with pytest.raises(ValueError, match="imu_topic and mag_topic are for ROS bags"):
        mf.load(plain, imu_topic="/imu")


# ---- from_table --------------------------------------------------------------------------------

def test_from_table_arrow_round_trip_zero_copy(sim):
    pa = pytest.importorskip("pyarrow")
    columns = {"t": sim["t"]}
    for key in ("gyr", "acc", "mag"):
        for i, axis in enumerate("xyz"):
            columns[f"{key}_{axis}"] = np.ascontiguousarray(sim[key][:, i])
    table = pa.table(columns)
    kw = mf.from_table(table)
    assert set(kw) == {"t", "gyr", "acc", "mag"}
    for key in ("t", "gyr", "acc", "mag"):
        np.testing.assert_array_equal(kw[key], sim[key])
    # t is a view of Arrow's buffer, not a copy.
    assert kw["t"].ctypes.data == table.column("t").chunk(0).buffers()[1].address
    expected = mf.replay(sim["t"], sim["gyr"], sim["acc"], sim["mag"], outputs=["quaternion"])["quaternion"]
    assert np.array_equal(mf.replay(**kw, outputs=["quaternion"])["quaternion"], expected)

    # A sensor as one column of 3-value lists: a view of its values buffer.
    values = pa.array(np.ascontiguousarray(sim["gyr"]).ravel())
    listed = table.drop_columns(["gyr_x", "gyr_y", "gyr_z"]).append_column(
        "gyr", pa.FixedSizeListArray.from_arrays(values, 3))
    kw = mf.from_table(listed)
    np.testing.assert_array_equal(kw["gyr"], sim["gyr"])
    assert kw["gyr"].ctypes.data == values.buffers()[1].address
    # Through a record batch, and several chunks (converted, same values).
    np.testing.assert_array_equal(mf.from_table(table.to_batches()[0])["acc"], sim["acc"])
    chunked = pa.concat_tables([table.slice(0, 100), table.slice(100)])
    np.testing.assert_array_equal(mf.from_table(chunked)["t"], sim["t"])

    # Nulls are "no value"; a missing sensor is None; missing time or a partial sensor is an error.
    holes = table.set_column(table.column_names.index("mag_x"), "mag_x",
                             pa.array([None] + list(sim["mag"][1:, 0]), type=pa.float64()))
    kw = mf.from_table(holes)
    assert np.isnan(kw["mag"][0, 0]) and kw["mag"][1, 0] == sim["mag"][1, 0]
    assert mf.from_table(table.drop_columns(["mag_x", "mag_y", "mag_z"]))["mag"] is None
    with pytest.raises(ValueError, match="no 't' column"):
        mf.from_table(table.drop_columns(["t"]))
    with pytest.raises(ValueError, match="mag_z missing"):
        mf.from_table(table.drop_columns(["mag_z"]))
    with pytest.raises(TypeError, match="from_table takes"):
        mf.from_table({"t": sim["t"]})


def test_from_table_pandas(sim):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.column_stack([sim["t"], sim["gyr"], sim["acc"], sim["mag"]]), columns=COLUMNS)
    kw = mf.from_table(frame)
    for key in ("t", "gyr", "acc", "mag"):
        np.testing.assert_array_equal(kw[key], sim[key])
    assert mf.from_table(frame.drop(columns=["gyr_x", "gyr_y", "gyr_z"]))["gyr"] is None


# ---- Magnetometer rejected most of the run -----------------------------------------------------

def inconsistent_magnetometer(sim: dict) -> dict:
    """`sim` with a field whose strength jumps between 5 and 500 µT from sample to sample: never consistent."""
    rng = np.random.default_rng(7)
    trace = dict(sim)
    direction = rng.normal(size=sim["mag"].shape)
    trace["mag"] = direction / np.linalg.norm(direction, axis=1)[:, None] * rng.uniform(5, 500, (len(sim["t"]), 1))
    return trace


FOR_ARRAYS = ("pass the magnetometer corrected by it, soft_iron × (mag − hard_iron) for each reading, with the "
              "file's 'hard_iron' and 'soft_iron'")


def printed_and_ours(tmp_path, cli, trace: dict, command: str, marker: str) -> tuple[list[str], list[str]]:
    """The command line's warnings containing `marker` for `trace` written as a file (after their
    'TRACE: warning: ' prefix), and those of the package's `command` on the arrays."""
    path = tmp_path / "bad_mag.csv"
    write_csv(path, trace, ",".join(COLUMNS))
    r = cli(command, path, "--mode", "9d", "--output", tmp_path / "e.csv")
    printed = [line.split(": warning: ", 1)[1] for line in r.stderr.splitlines() if marker in line]
    assert len(printed) == 1, r.stderr
    with pytest.warns(mf.MotionFusionWarning) as record:
        getattr(mf, command)(trace["t"], trace["gyr"], trace["acc"], trace["mag"], mode="9d")
    return printed, [str(w.message) for w in record if marker in str(w.message)]


def test_replay_warns_when_the_magnetometer_is_mostly_rejected(tmp_path, sim, cli):
    """The command line's warning, word for word after its 'TRACE: warning: ' prefix, but for the
    fix: arrays take no calibration file, so the array is corrected with it."""
    trace = inconsistent_magnetometer(sim)
    printed, ours = printed_and_ours(tmp_path, cli, trace, "replay", "magnetometer was rejected")
    assert ours == [line.replace("replay with '--calibration CAL.json'", FOR_ARRAYS) for line in printed]
    assert "--calibration" not in ours[0] and FOR_ARRAYS in ours[0]
    # Whatever the outputs asked for; and not for a magnetometer that fits, nor in 6D.
    with pytest.warns(mf.MotionFusionWarning, match="magnetometer was rejected"):
        mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], mode="9d", outputs=["quaternion"])
    for arrays, mode in ((sim, "9d"), (trace, "6d")):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            mf.replay(arrays["t"], arrays["gyr"], arrays["acc"], arrays["mag"], mode=mode)
        assert not [w for w in record if "rejected" in str(w.message)], mode


def test_replay_many_warns_per_trace_as_replay_does(sim):
    bad = inconsistent_magnetometer(sim)
    with pytest.warns(mf.MotionFusionWarning, match="magnetometer was rejected") as record:
        mf.replay(bad["t"], bad["gyr"], bad["acc"], bad["mag"], mode="9d")
    (line,) = [str(w.message) for w in record if "magnetometer was rejected" in str(w.message)]
    for workers in (1, 2):
        with pytest.warns(mf.MotionFusionWarning) as record:
            mf.replay_many([sim, bad, sim, bad], mode="9d", workers=workers)
        ours = [str(w.message) for w in record if "rejected" in str(w.message)]
        assert ours == [f"traces[1]: {line}", f"traces[3]: {line}"]
        assert all(w.filename == __file__ for w in record)
    # Not for a magnetometer that fits, nor in 6D, nor for a trace without one.
    for traces, mode in (([sim, sim], "9d"), ([bad], "6d"), ([{**bad, "mag": None}], None)):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            mf.replay_many(traces, mode=mode)
        assert not [w for w in record if "rejected" in str(w.message)], mode


def test_from_table_arrow_stream(sim):
    """Any object exporting an Arrow C stream (the PyCapsule interface)."""
    pa = pytest.importorskip("pyarrow")
    columns = {"t": sim["t"]}
    for key in ("gyr", "acc"):
        for i, axis in enumerate("xyz"):
            columns[f"{key}_{axis}"] = np.ascontiguousarray(sim[key][:, i])
    table = pa.table(columns)

    class Exporter:  # only the Arrow PyCapsule stream interface
        def __arrow_c_stream__(self, requested_schema=None):
            return table.__arrow_c_stream__(requested_schema)

    kw = mf.from_table(Exporter())
    assert kw["mag"] is None
    for key in ("t", "gyr", "acc"):
        np.testing.assert_array_equal(kw[key], sim[key])


def test_from_table_polars(sim):
    pl = pytest.importorskip("polars")  # not a dependency: skipped where Polars is not installed
    frame = pl.DataFrame({name: sim[key][:, i] if key != "t" else sim["t"]
                          for name in COLUMNS for key, i in [(name.split("_")[0], "xyz".find(name[-1]))]})
    kw = mf.from_table(frame)
    for key in ("t", "gyr", "acc", "mag"):
        np.testing.assert_array_equal(kw[key], sim[key])


def test_reconstruct_warns_when_the_magnetometer_is_mostly_down_weighted(tmp_path, sim, cli):
    """As the command line's `reconstruct` does, word for word after its 'TRACE: warning: ' prefix,
    but for the fix (arrays take no calibration file); not for a magnetometer that fits, nor in 6D."""
    trace = inconsistent_magnetometer(sim)
    printed, ours = printed_and_ours(tmp_path, cli, trace, "reconstruct", "robust fit weighted")
    assert "of the rejected samples, " in printed[0]
    assert ours == [line.replace("pass --calibration CAL.json", FOR_ARRAYS) for line in printed]
    for arrays, mode in ((sim, "9d"), (trace, "6d")):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            mf.reconstruct(arrays["t"], arrays["gyr"], arrays["acc"], arrays["mag"], mode=mode)
        assert not [w for w in record if "robust fit weighted" in str(w.message)], mode
