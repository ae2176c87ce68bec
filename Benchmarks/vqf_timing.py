"""Times vqf's C++ batch loop on a native trace, for Benchmarks/run.sh: prints one JSON line per
mode with ns per sample (median of repeated runs), so the EKF / vqf ratio is measured in the same run."""
import json, sys, time
import numpy as np
import vqf

trace, repeats = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
d = np.genfromtxt(trace, delimiter=',', names=True)
gyr = np.ascontiguousarray(np.stack([d['gyr_x'], d['gyr_y'], d['gyr_z']], 1))
acc = np.ascontiguousarray(np.stack([d['acc_x'], d['acc_y'], d['acc_z']], 1))
mag = np.ascontiguousarray(np.stack([d['mag_x'], d['mag_y'], d['mag_z']], 1))
ts = float(np.median(np.diff(d['t'])))
n = len(gyr)
for mode in ['9d', '6d']:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        if mode == '9d':
            vqf.VQF(ts).updateBatch(gyr, acc, mag)
        else:
            vqf.VQF(ts).updateBatch(gyr, acc)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"benchmark": "peer", "peer": "vqf", "mode": mode, "samples": n,
                      "ns_per_sample": float(np.median(times)) / n * 1e9}))
