"""Runs VQF (vqf from PyPI, default parameters) on every `NAME.in.f64` in a folder and writes its
9D and 6D attitudes as `NAME.vqf9.f64` / `NAME.vqf6.f64` (float64, n x 4, w x y z) for the accuracy
matrix to score with MotionFusion's own metric.

Input rows are t, gyr xyz (rad/s), acc xyz (m/s^2), mag xyz (any unit), NaN where a sensor has no
value. VQF assumes one sampling time: it gets the median step, as a user would give it. Missing
values are held from the previous sample (VQF has no 'no value' input)."""
import glob, os, sys
import numpy as np
import vqf

folder = sys.argv[1]
for path in sorted(glob.glob(os.path.join(folder, '*.in.f64'))):
    d = np.fromfile(path, dtype='<f8').reshape(-1, 10)
    t = d[:, 0]
    ts = float(np.median(np.diff(t)))
    cols = d[:, 1:].copy()
    # Hold the last finite value of each column (and back-fill the start).
    for c in range(cols.shape[1]):
        x = cols[:, c]
        ok = np.isfinite(x)
        if not ok.any():
            continue
        idx = np.where(ok, np.arange(len(x)), 0)
        np.maximum.accumulate(idx, out=idx)
        first = np.argmax(ok)
        idx[:first] = first
        cols[:, c] = x[idx]
    gyr = np.ascontiguousarray(cols[:, 0:3])
    acc = np.ascontiguousarray(cols[:, 3:6])
    mag = np.ascontiguousarray(cols[:, 6:9])
    stem = path[:-len('.in.f64')]
    out6 = vqf.VQF(ts).updateBatch(gyr, acc)['quat6D']
    np.ascontiguousarray(out6, dtype='<f8').tofile(stem + '.vqf6.f64')
    if np.isfinite(mag).all():
        out9 = vqf.VQF(ts).updateBatch(gyr, acc, mag)['quat9D']
        np.ascontiguousarray(out9, dtype='<f8').tofile(stem + '.vqf9.f64')
