"""Folder runs on Dask against the command line's own folder run: same names, same bytes, same
refusals."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf
from conftest import DATA

distributed = pytest.importorskip("dask.distributed")
from motionfusion.dask import _batches, reconstruct_folder, replay_folder  # noqa: E402
from motionfusion.plan import batches, task_count  # noqa: E402


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
    # The command line's notices, in its order: entries skipped, then outputs renamed.
    assert plan.notes == (f"note: skipping {traces}/old: a folder that holds no recording",
                          f"{traces}/walk.txt -> walk-2.csv (another trace has the same name)")
    assert (tmp_path / "dst").is_dir()
    r = cli("replay", traces, "--output", tmp_path / "cli", check=False)
    assert tuple(r.stderr.splitlines()[:2]) == plan.notes
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


# ---- Batches: several traces per task --------------------------------------------------------------

@pytest.fixture
def many(tmp_path) -> Path:
    """Seven traces of different sizes (two share a name), for batches of several traces."""
    src = tmp_path / "many"
    src.mkdir()
    sims = ["sim_mixed_100hz.csv", "sim_magnetic_disturbance_50hz.csv", "sim_translation_ideal_100hz.csv"]
    for k, name in enumerate(["a.csv", "b.csv", "c.csv", "d.csv", "e.csv", "f.csv", "f.txt"]):
        shutil.copy(DATA / sims[k % 3], src / name)
    return src


def test_batches_cover_every_index_once_in_order():
    for weights in ([1.0] * 14, [5, 1, 1, 1, 1, 1, 1, 9], [0, 0, 0], [100, 1, 1], list(range(1, 30)), [3.0]):
        for count in range(1, len(weights) + 3):
            groups = batches(weights, count)
            assert [k for g in groups for k in g] == list(range(len(weights)))
            assert all(groups) and len(groups) == min(count, len(weights))
    assert batches([], 3) == []
    # Equal weights: equal groups; a weight larger than a share keeps a group of its own, and the
    # groups after it share the rest.
    assert [len(g) for g in batches([1.0] * 14, 2)] == [7, 7]
    assert [len(g) for g in batches([1.0] * 14, 7)] == [2] * 7
    assert batches([100, 1, 1], 2) == [[0], [1, 2]]
    assert batches([100, 1, 1], 3) == [[0], [1], [2]]
    assert batches([1, 1, 100, 1, 1], 3) == [[0, 1], [2], [3, 4]]
    # Tasks of about the given work, at least one per worker, a multiple of the workers.
    assert task_count(1.8, 14, 1.0, 2) == 2
    assert task_count(5.5, 14, 1.0, 2) == 6
    assert task_count(0.1, 14, 1.0, 4) == 4
    assert task_count(100.0, 3, 1.0, 2) == 3
    assert task_count(0.0, 0, 1.0, 2) == 0


def test_batched_runs_write_the_command_lines_files(many, tmp_path, cli, client):
    """Whatever the batches (one task per trace, a few traces per task, every trace in one task per
    worker), the files are the command line's folder run's, byte for byte, and each trace has its
    own result, in the plan's order."""
    cli("replay", many, "--output", tmp_path / "cli")
    plan = mf.folder_plan(many, tmp_path / "plan")
    assert len(_batches("replay", plan.inputs, 2, None)) == 7
    assert len(_batches("replay", plan.inputs, 2, 1e9)) == 2
    assert len(_batches("replay", plan.inputs, 3, 1e-9)) == 7
    for k, seconds in enumerate((None, 1e-9, 0.02, 1e9)):
        results = replay_folder(many, tmp_path / f"dask{k}", client=client, batch_seconds=seconds, progress=False)
        assert [r["input"] for r in results] == list(plan.inputs)
        assert [Path(r["output"]).name for r in results] == [Path(o).name for o in plan.outputs]
        assert all(r["status"] == 0 and r["seconds"] >= 0 for r in results)
        assert files(tmp_path / f"dask{k}") == files(tmp_path / "cli")
    reconstruct_folder(many, tmp_path / "dask-r", client=client, batch_seconds=1e9, progress=False)
    cli("reconstruct", many, "--output", tmp_path / "cli-r")
    assert files(tmp_path / "dask-r") == files(tmp_path / "cli-r")
    with pytest.raises(ValueError, match="batch_seconds"):
        replay_folder(many, tmp_path / "never", client=client, batch_seconds=-1)


def test_failing_traces_in_a_batch_do_not_hide_the_others(many, tmp_path, cli, client):
    """Two broken traces in batches with good ones (every trace in one task per worker): each
    trace's result and message is its own, the good traces' files are written."""
    bad = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.81\n0.01,0,0,x,0,0,1\n"
    (many / "b.csv").write_text(bad)
    (many / "e.csv").write_text("not a trace\n")
    r = cli("replay", many, "--output", tmp_path / "cli", check=False)
    assert r.returncode == 1
    with pytest.raises(mf.MotionFusionError, match="2 of 7 traces failed") as e:
        replay_folder(many, tmp_path / "dask", client=client, batch_seconds=1e9, progress=False)
    status = {Path(x["input"]).name: x for x in e.value.results}
    assert list(status) == ["a.csv", "b.csv", "c.csv", "d.csv", "e.csv", "f.csv", "f.txt"]
    assert [n for n, x in status.items() if x["status"] != 0] == ["b.csv", "e.csv"]
    assert f"{many}/b.csv:3:" in status["b.csv"]["messages"]
    assert f"{many}/e.csv" in status["e.csv"]["messages"] and "b.csv" not in status["e.csv"]["messages"]
    assert all(x["messages"] == "" for n, x in status.items() if n not in ("b.csv", "e.csv"))
    assert f"{many}/b.csv:3:" in str(e.value) and f"{many}/e.csv" in str(e.value)
    assert files(tmp_path / "dask") == files(tmp_path / "cli")


def plan_lines(*args: object) -> list[list[str]]:
    out = subprocess.run([sys.executable, "-m", "motionfusion.plan", *map(str, args)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def test_the_plans_batches_cover_every_trace_once(many, tmp_path):
    plan = mf.folder_plan(many, tmp_path / "dst")
    pairs = [[i, o] for i, o in zip(plan.inputs, plan.outputs)]
    assert plan_lines(many, tmp_path / "dst") == pairs
    for option in (["--batches", "1"], ["--batches", "3"], ["--batches", "7"], ["--batches", "50"],
                   ["--task-seconds", "1e-9"], ["--task-seconds", "1000"]):
        lines = plan_lines(many, tmp_path / "dst", *option)
        assert [line[1:] for line in lines] == pairs  # every trace once, in the plan's order
        tasks = [int(line[0]) for line in lines]
        assert tasks == sorted(tasks) and sorted(set(tasks)) == list(range(tasks[-1] + 1))  # 0..k-1, no gap
        if option[0] == "--batches":
            assert tasks[-1] + 1 == min(int(option[1]), 7)
    assert [int(line[0]) for line in plan_lines(many, tmp_path / "dst", "--task-seconds", "1000")] == [0] * 7
    r = subprocess.run([sys.executable, "-m", "motionfusion.plan", str(many), str(tmp_path / "dst"), "--batches", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--batches" in r.stderr


def test_the_batch_schedulers_loop_writes_the_command_lines_files(many, tmp_path, cli):
    """The loop of docs/Distributed.md's Slurm and Kubernetes recipes, run for every task of a
    batched plan (the command line named by MOTIONFUSION_CLI or built here): the files of the
    command line's folder run; a task with a failing trace runs its other traces and exits 1."""
    from conftest import cli_executable

    (many / "c.csv").write_text("not a trace\n")
    cli("replay", many, "--output", tmp_path / "cli", check=False)
    plan = tmp_path / "plan.tsv"
    plan.write_text("".join("\t".join(line) + "\n" for line in plan_lines(many, tmp_path / "dst", "--batches", "3")))
    script = (
        'status=0\n'
        'while IFS="$(printf \'\\t\')" read -r task input output; do\n'
        '  [ "$task" = "$TASK" ] || continue\n'
        '  "$MF" replay "$input" --output "$output" || status=$?\n'
        'done < "$PLAN"\n'
        'exit "$status"\n')
    statuses = []
    for task in range(3):
        env = {"PATH": os.environ["PATH"], "MF": cli_executable(), "PLAN": str(plan), "TASK": str(task)}
        statuses.append(subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True).returncode)
    assert sorted(statuses) == [0, 0, 1]
    assert files(tmp_path / "dst") == files(tmp_path / "cli")
