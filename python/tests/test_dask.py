"""Folder runs on Dask against the command line's own folder run: same names, same bytes, same
refusals."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf
from conftest import DATA

distributed = pytest.importorskip("dask.distributed")
from motionfusion.dask import reconstruct_folder, replay_folder  # noqa: E402


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def traces(tmp_path) -> Path:
    """A folder of traces: three simulated ones, two of which share a name (the command line then
    renames the second output), a file to ignore, and a sub-folder that is not a recording."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(DATA / "sim_magnetic_disturbance_50hz.csv", src / "walk.csv")
    shutil.copy(DATA / "sim_translation_ideal_100hz.csv", src / "walk.txt")
    shutil.copy(DATA / "sim_mixed_100hz.csv", src / "mixed.csv")
    (src / "notes.md").write_text("not a trace\n")
    (src / "old").mkdir()
    return src


@pytest.fixture(scope="module")
def client():
    """One in-process cluster for the tests that pass their own client."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as c:
        yield c


def test_folder_plan_is_the_command_lines(traces, tmp_path, cli):
    plan = mf.folder_plan(traces, tmp_path / "dst")
    assert [Path(p).name for p in plan.inputs] == ["mixed.csv", "walk.csv", "walk.txt"]
    assert [Path(p).name for p in plan.outputs] == ["mixed.csv", "walk.csv", "walk-2.csv"]
    assert plan.notes == (f"{traces}/walk.txt -> walk-2.csv (another trace has the same name)",)
    assert (tmp_path / "dst").is_dir()
    r = cli("replay", traces, "--output", tmp_path / "cli", check=False)
    assert plan.notes[0] in r.stderr
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == sorted(Path(p).name for p in plan.outputs)
    # The plan module prints it for job arrays.
    out = subprocess.run([sys.executable, "-m", "motionfusion.plan", str(traces), str(tmp_path / "dst")],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"{i}\t{o}" for i, o in zip(plan.inputs, plan.outputs)]


def test_replay_folder_on_a_local_cluster_writes_the_command_lines_files(traces, tmp_path, cli):
    cli("replay", traces, "--output", tmp_path / "cli")
    results = replay_folder(traces, tmp_path / "dask", n_workers=2, progress=False)
    assert [Path(r["output"]).name for r in results] == ["mixed.csv", "walk.csv", "walk-2.csv"]
    assert all(r["status"] == 0 for r in results)
    assert files(tmp_path / "dask") == files(tmp_path / "cli")


def test_options_and_an_existing_client(traces, tmp_path, cli, client):
    options = ["--frame", "ned", "--param", "gyroscopeNoise=0.003"]
    cli("replay", traces, "--output", tmp_path / "cli", "--filter", "ekf", "--mode", "6d", *options)
    replay_folder(traces, tmp_path / "dask", client=client, mode="6d", options=options, progress=True)
    assert files(tmp_path / "dask") == files(tmp_path / "cli")
    cli("reconstruct", traces, "--output", tmp_path / "cli-r")
    reconstruct_folder(traces, tmp_path / "dask-r", client=client, progress=False)
    assert files(tmp_path / "dask-r") == files(tmp_path / "cli-r")
    with pytest.raises(mf.MotionFusionError, match="pass mode as the keyword argument"):
        replay_folder(traces, tmp_path / "x", client=client, options=["--mode", "6d"])


def test_a_failing_trace_does_not_stop_the_others(traces, tmp_path, cli, client):
    (traces / "broken.csv").write_text("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.81\n0.01,0,0,x,0,0,1\n")
    r = cli("replay", traces, "--output", tmp_path / "cli", check=False)
    assert r.returncode == 1
    with pytest.raises(mf.MotionFusionError, match="1 of 4 traces failed") as e:
        replay_folder(traces, tmp_path / "dask", client=client, progress=False)
    failed = [x for x in e.value.results if x["status"] != 0]
    assert [Path(x["input"]).name for x in failed] == ["broken.csv"]
    assert f"{traces}/broken.csv:3:" in failed[0]["messages"]
    assert files(tmp_path / "dask") == files(tmp_path / "cli")


def test_outputs_onto_inputs_are_refused_before_anything_runs(traces, tmp_path, cli):
    before = files(traces)
    r = cli("replay", traces, "--output", traces, check=False)
    assert r.returncode == 2 and "is an input of this run" in r.stderr
    with pytest.raises(mf.MotionFusionError) as e:
        replay_folder(traces, traces, n_workers=1, progress=False)
    assert e.value.code == 2 and e.value.message in r.stderr
    assert files(traces) == before
    with pytest.raises(mf.MotionFusionError, match="is one trace, not a folder"):
        mf.folder_plan(traces / "walk.csv", tmp_path / "dst")
    # An unknown filter fails once, before any cluster starts, with the command line's message.
    unknown = cli("replay", traces / "walk.csv", "--filter", "nope", check=False)
    with pytest.raises(mf.MotionFusionError, match="nope") as e:
        replay_folder(traces, tmp_path / "never", filter="nope", progress=False)
    assert unknown.returncode == 2 and e.value.code == 2
    assert not (tmp_path / "never").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(mf.MotionFusionError, match="is a file; a folder of traces needs --output FOLDER"):
        mf.folder_plan(traces, tmp_path / "file")


def test_broad_trials_on_a_local_cluster(tmp_path, cli):
    """Held-out BROAD trials (from ../shared/data, linked into a folder): the same files as the
    command line's folder run."""
    from conftest import SHARED

    trials = sorted((SHARED / "broad").glob("*.csv"))[:3]
    if len(trials) < 3:
        pytest.skip(f"{SHARED / 'broad'} is absent (shared BROAD data)")
    src = tmp_path / "broad"
    src.mkdir()
    for trial in trials:
        (src / trial.name).symlink_to(trial)
    cli("replay", src, "--output", tmp_path / "cli")
    results = replay_folder(src, tmp_path / "dask", n_workers=2, progress=False)
    assert [Path(r["output"]).name for r in results] == [t.name for t in trials]
    assert files(tmp_path / "dask") == files(tmp_path / "cli")


def test_a_bad_option_fails_once_before_any_task(traces, tmp_path, cli):
    r = cli("replay", traces, "--output", tmp_path / "cli", "--frame", "nope", check=False)
    with pytest.raises(mf.MotionFusionError) as e:
        replay_folder(traces, tmp_path / "never", options=["--frame", "nope"], progress=False)
    assert r.returncode == e.value.code == 2 and e.value.message in r.stderr
    assert "USAGE" not in e.value.message and "\n" not in e.value.message
    with pytest.raises(mf.MotionFusionError, match="missing.json") as e:
        reconstruct_folder(traces, tmp_path / "never", options=["--calibration", str(tmp_path / "missing.json")])
    assert e.value.code == 1
    assert not (tmp_path / "never").exists()
    with pytest.raises(ValueError, match="n_workers"):
        replay_folder(traces, tmp_path / "never", n_workers=0)


def run_script(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(body)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path)


def test_a_script_without_a_main_guard(traces, tmp_path):
    """Threads by default: no guard needed, and nothing but the results printed (no traceback at
    shutdown); worker processes without the guard: one clear error before any process starts."""
    body = ("from motionfusion.dask import replay_folder\n"
            f"r = replay_folder({str(traces)!r}, {str(tmp_path / 'out')!r}, n_workers=2, progress=False, PROCESSES)\n"
            "print('done', len(r))\n")
    r = run_script(tmp_path, body.replace("PROCESSES", "processes=False"))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done 3\n"
    assert "Traceback" not in r.stderr and "CancelledError" not in r.stderr
    r = run_script(tmp_path, body.replace("PROCESSES", "processes=True"))
    assert r.returncode == 1
    assert f"{tmp_path / 'script.py'}:2: processes=True starts worker processes" in r.stderr
    assert 'if __name__ == "__main__":' in r.stderr and len(r.stderr.splitlines()) < 12


def test_replay_parquet_writes_replays_estimates(tmp_path, client):
    """A Parquet dataset (one trace per file, one of them in a partition folder) replayed into Parquet:
    each table holds replay's outputs for its trace; options are checked once; inputs are protected."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from motionfusion.dask import replay_parquet

    src = tmp_path / "dataset"
    (src / "day=2").mkdir(parents=True)
    traces = {"a.parquet": DATA / "sim_mixed_100hz.csv", "day=2/b.parquet": DATA / "sim_magnetic_disturbance_50hz.csv"}
    loaded = {}
    for name, path in traces.items():
        trace = mf.load(path)
        columns = {"t": trace["t"]}
        for key in ("gyr", "acc", "mag"):
            for i, axis in enumerate("xyz"):
                columns[f"{key}_{axis}"] = trace[key][:, i]
        pq.write_table(pa.table(columns), src / name)
        loaded[name] = trace
    dst = tmp_path / "out"
    results = replay_parquet(src, dst, client=client, filter="mahony", mode="9d", frame="ned",
                             parameters={"kp": 0.4}, progress=False)
    assert [Path(r["output"]).relative_to(dst).as_posix() for r in results] == list(traces)
    assert all(r["status"] == 0 for r in results)
    for name, trace in loaded.items():
        table = pq.read_table(dst / name)
        expected = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], filter="mahony", mode="9d",
                             frame="ned", parameters={"kp": 0.4})
        assert table.column_names[:5] == ["t", "qw", "qx", "qy", "qz"]
        q = np.column_stack([table.column(c).to_numpy() for c in ("qw", "qx", "qy", "qz")])
        assert np.array_equal(q, expected["quaternion"])
        assert np.array_equal(table.column("heading").to_numpy(), expected["heading_deg"])
        assert np.array_equal(table.column("t").to_numpy(), trace["t"])

    # reconstruct=True runs the reconstruction; a single file goes to dst/<its name>.
    one = replay_parquet(src / "a.parquet", tmp_path / "rec", client=client, reconstruct=True, progress=False)
    rec = pq.read_table(one[0]["output"])
    trace = loaded["a.parquet"]
    expected = mf.reconstruct(trace["t"], trace["gyr"], trace["acc"], trace["mag"])["quaternion"]
    assert np.array_equal(np.column_stack([rec.column(c).to_numpy() for c in ("qw", "qx", "qy", "qz")]), expected)

    # A bad option fails once, before any task; an output onto an input is refused; nothing written.
    with pytest.raises(mf.MotionFusionError, match="filter"):
        replay_parquet(src, tmp_path / "never", client=client, filter="nonsense", progress=False)
    with pytest.raises(mf.MotionFusionError, match="overwrite an input"):
        replay_parquet(src, src, client=client, progress=False)
    assert not (tmp_path / "never").exists()
    # A table that is not a trace fails its own task only.
    pq.write_table(pa.table({"time": [0.0, 1.0]}), src / "c.parquet")
    with pytest.raises(mf.MotionFusionError, match="1 of 3 traces failed") as e:
        replay_parquet(src, tmp_path / "again", client=client, progress=False)
    status = {Path(r["input"]).name: r for r in e.value.results}
    assert [status[n]["status"] for n in ("a.parquet", "b.parquet", "c.parquet")] == [0, 0, 1]
    assert "no 't' column" in status["c.parquet"]["messages"]
