"""MotionFusion: attitude estimation from accelerometer, gyroscope and magnetometer recordings.

Python bindings to the MotionFusion Swift engine through its C ABI (the library and the Swift
runtime it needs are bundled in the package)::

    import motionfusion as mf
    trace = mf.load("walk.csv")                       # any supported format
    out = mf.replay(trace["t"], trace["gyr"], trace["acc"], trace["mag"], filter="ekf", mode="9d")
    out["quaternion"]                                 # (N, 4) w, x, y, z, ENU from sensor
    mf.evaluate(out["quaternion"], trace)             # BROAD metric against the trace's truth

Fleet runs over folders of traces on Dask: :mod:`motionfusion.dask` (``pip install "motionfusion[dask]"``).
"""
from ._core import (
    FILTERS,
    OUTPUTS,
    Filter,
    FolderPlan,
    MotionFusionError,
    MotionFusionWarning,
    SolveError,
    evaluate,
    folder_plan,
    info,
    load,
    reconstruct,
    replay,
    replay_many,
    run_cli,
    version,
)

from .tables import from_table

__version__ = version()

__all__ = [
    "FILTERS", "OUTPUTS", "Filter", "FolderPlan", "MotionFusionError", "MotionFusionWarning", "SolveError", "evaluate", "from_table", "folder_plan",
    "info", "load", "reconstruct", "replay", "replay_many", "run_cli", "version", "__version__",
]
