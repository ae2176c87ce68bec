"""Per-sample calls from Python, same run: MotionFusion's `Filter.update(t, gyr, acc, mag)` against
VQF's `update(gyr, acc, mag)` + `getQuat9D()` (what a live loop calls to get each attitude), for
Benchmarks/peers.sh and on its own:

    Benchmarks/.venv/bin/python Benchmarks/per_sample.py [TRACE] [SAMPLES] [ROUNDS]

Both filters run 9D over the same SAMPLES rows (default 20000) of TRACE, whose rows are split into
per-sample arrays beforehand (as a live loop receives them), so each loop times the calls and the
loop itself. Rounds alternate between the two and each keeps its best (least disturbed) round;
the ratio is that of the best rounds, and the median of the rounds' own ratios is printed with
it. An empty loop over the same rows is timed too, to show what the loop alone costs.
Prints a table and one JSON line ({"benchmark": "per_sample", ...}).
"""
import json
import os
import sys
import time

import numpy as np


def load(trace, samples):
    d = np.genfromtxt(trace, delimiter=',', names=True, max_rows=samples)
    stack = lambda k: np.ascontiguousarray(np.stack([d[f'{k}_x'], d[f'{k}_y'], d[f'{k}_z']], 1))
    return np.ascontiguousarray(d['t']), stack('gyr'), stack('acc'), stack('mag')


def measure(t, gyr, acc, mag, rounds=15):
    """Per-call seconds of each loop: {"motionfusion": best, "vqf": best, "empty": best,
    "ratio": best / best, "ratio_median": median of the rounds' ratios}."""
    import motionfusion
    import vqf

    ts = float(np.median(np.diff(t)))
    n = len(t)
    # What a live loop gets: a time and three 3-value arrays per sample.
    rows = list(zip(list(t), list(gyr), list(acc), list(mag)))

    def run_motionfusion():
        update = motionfusion.Filter('ekf', '9d').update
        t0 = time.perf_counter()
        for ti, g, a, m in rows:
            update(ti, g, a, m)
        return time.perf_counter() - t0

    def run_vqf():
        v = vqf.VQF(ts)
        update, quat = v.update, v.getQuat9D
        t0 = time.perf_counter()
        for ti, g, a, m in rows:
            update(g, a, m)
            quat()
        return time.perf_counter() - t0

    def run_empty():
        t0 = time.perf_counter()
        for ti, g, a, m in rows:
            pass
        return time.perf_counter() - t0

    times = {'motionfusion': [], 'vqf': [], 'empty': []}
    for _ in range(rounds):
        times['motionfusion'].append(run_motionfusion() / n)
        times['vqf'].append(run_vqf() / n)
        times['empty'].append(run_empty() / n)
    best = {k: min(v) for k, v in times.items()}
    ratios = [a / b for a, b in zip(times['motionfusion'], times['vqf'])]
    return {**best, 'ratio': best['motionfusion'] / best['vqf'], 'ratio_median': float(np.median(ratios)),
            'samples': n, 'rounds': rounds}


def report(r, trace):
    print(f'Per-sample calls from Python, 9D, {r["samples"]} samples of {os.path.basename(trace)}, '
          f'best of {r["rounds"]} alternated rounds (same run):')
    print(f'{"Filter.update(t, gyr, acc, mag)":40} {r["motionfusion"] * 1e6:6.3f} µs a call')
    print(f'{"vqf: update(gyr, acc, mag) + getQuat9D()":40} {r["vqf"] * 1e6:6.3f} µs a call')
    print(f'{"(the loop alone)":40} {r["empty"] * 1e6:6.3f} µs a sample')
    print(f'{"Filter.update / vqf update + getQuat9D":40} {r["ratio"]:6.2f}   (median of the rounds\' ratios '
          f'{r["ratio_median"]:.2f}; target <= 1.0)')
    print(json.dumps({'benchmark': 'per_sample', 'trace': trace, **r}))


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    trace = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, '..', '..', 'shared', 'data', 'broad', '21_undisturbed_fast_combined.csv')
    if not os.path.exists(trace):
        trace = os.path.join(here, '..', 'data', 'sim_mixed_100hz.csv')
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    report(measure(*load(trace, samples), rounds=rounds), trace)
