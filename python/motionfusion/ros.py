"""ROS bags as traces: sensor_msgs/Imu and sensor_msgs/MagneticField messages read with the
``rosbags`` library (``pip install "motionfusion[ros]"``), ROS 1 (``.bag``) and ROS 2 (a bag
folder, or an ``.mcap`` or ``.db3`` file)."""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ._native import ERROR_INPUT, ERROR_USAGE, MotionFusionError, MotionFusionWarning

IMU = "sensor_msgs/msg/Imu"
MAGNETIC_FIELD = "sensor_msgs/msg/MagneticField"
#: Tesla to the package's µT.
MICROTESLA_PER_TESLA = 1e6


def is_bag(path: Any, format: str | None = None) -> bool:
    """Whether ``path`` is a ROS bag: a .bag, .mcap or .db3 file, or a folder with a ROS 2 bag's
    metadata.yaml."""
    if format is not None and str(format).lower() in ("rosbag", "ros"):
        return True
    if not isinstance(path, (str, os.PathLike)):
        return False
    p = Path(os.fsdecode(path))
    if p.suffix.lower() in (".bag", ".mcap", ".db3"):
        return True
    return p.is_dir() and (p / "metadata.yaml").is_file()


def _choose(topics: dict[str, str], msgtype: str, given: str | None, name: str, required: bool) -> str | None:
    """The topic of `msgtype`: `given` (checked), else the only one; an error lists the choices."""
    listing = ", ".join(f"{t} ({m})" for t, m in sorted(topics.items())) or "none"
    if given is not None:
        if given not in topics:
            raise MotionFusionError(f"{name}={given!r}: no such topic in the bag; its topics: {listing}", ERROR_USAGE)
        if topics[given] != msgtype:
            raise MotionFusionError(f"{name}={given!r} carries {topics[given]}, not {msgtype}", ERROR_USAGE)
        return given
    candidates = sorted(t for t, m in topics.items() if m == msgtype)
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise MotionFusionError(
            f"the bag has {len(candidates)} {msgtype} topics ({', '.join(candidates)}): choose one with {name}=",
            ERROR_USAGE)
    if required:
        raise MotionFusionError(f"the bag has no {msgtype} topic; its topics: {listing}", ERROR_INPUT)
    return None


def _stamp(msg: Any) -> float:
    s = msg.header.stamp
    return float(s.sec) + 1e-9 * float(s.nanosec)


def _vector(v: Any) -> tuple[float, float, float]:
    return (float(v.x), float(v.y), float(v.z))


def load_bag(path: Any, *, imu_topic: str | None = None, mag_topic: str | None = None) -> dict[str, np.ndarray]:
    """Reads a ROS bag's IMU (and magnetometer) messages as :func:`motionfusion.load` returns a
    trace: ``t`` (N,) seconds from the messages' header stamps, ``gyr`` (rad/s) and ``acc`` (m/s²)
    from sensor_msgs/Imu ``angular_velocity`` and ``linear_acceleration``, ``mag`` (µT) from
    sensor_msgs/MagneticField ``magnetic_field`` (tesla). The two topics are merged on time: one row
    per distinct stamp, NaN where a sensor has no value at it (as a trace file of sensors at
    different rates). A vector whose covariance starts with -1 ("not provided", REP 145) is NaN.

    ``imu_topic``/``mag_topic`` choose the topics; by default the bag's only topic of each type. An
    error lists the topics when there is none or more than one IMU topic, or more than one
    magnetometer topic; a bag without a magnetometer topic gives no ``mag``."""
    try:
        from rosbags.highlevel import AnyReader
        from rosbags.typesys import Stores, get_typestore
    except ImportError as e:
        raise ImportError(
            f"reading ROS bags needs the rosbags library: pip install \"motionfusion[ros]\" (or pip install rosbags) ({e})"
        ) from e
    p = Path(os.fsdecode(path))
    if not p.exists():
        raise MotionFusionError(f"{p}: no such file or folder", ERROR_INPUT)
    ros1 = p.suffix.lower() == ".bag"
    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    rows: dict[str, list] = {"imu": [], "mag": []}
    try:
        with AnyReader([p], default_typestore=store) as reader:
            topics = {c.topic: c.msgtype for c in reader.connections}
            imu = _choose(topics, IMU, imu_topic, "imu_topic", required=True)
            mag = _choose(topics, MAGNETIC_FIELD, mag_topic, "mag_topic", required=False)
            wanted = [c for c in reader.connections if c.topic in (imu, mag)]
            for connection, bag_time, raw in reader.messages(connections=wanted):
                msg = reader.deserialize(raw, connection.msgtype)
                if connection.topic == imu:
                    gyr = _vector(msg.angular_velocity)
                    acc = _vector(msg.linear_acceleration)
                    if msg.angular_velocity_covariance[0] == -1:
                        gyr = (np.nan,) * 3
                    if msg.linear_acceleration_covariance[0] == -1:
                        acc = (np.nan,) * 3
                    rows["imu"].append((_stamp(msg), bag_time * 1e-9, *gyr, *acc))
                else:
                    rows["mag"].append((_stamp(msg), bag_time * 1e-9, *_vector(msg.magnetic_field)))
    except MotionFusionError:
        raise
    except Exception as e:  # rosbags' errors: a damaged or unsupported bag
        raise MotionFusionError(f"{p}: not a readable ROS bag ({type(e).__name__}: {e})", ERROR_INPUT) from e
    if not rows["imu"]:
        raise MotionFusionError(f"{p}: topic {imu} has no messages", ERROR_INPUT)
    imu_rows = np.array(rows["imu"], dtype=np.float64)
    mag_rows = np.array(rows["mag"], dtype=np.float64).reshape(-1, 5)
    # Header stamps are the sensor's clock; a driver that leaves them at zero gets the bag's
    # receive times instead, with a warning (they carry the transport's jitter).
    for name, r in (("imu", imu_rows), ("mag", mag_rows)):
        if r.size and not np.any(r[:, 0]):
            warnings.warn(f"{p}: the {name} topic's header stamps are all zero: using the times the bag recorded "
                          "the messages (transport jitter included)", MotionFusionWarning, stacklevel=3)
            r[:, 0] = r[:, 1]
    t = np.unique(np.concatenate([imu_rows[:, 0], mag_rows[:, 0]]))
    out: dict[str, np.ndarray] = {"t": t}
    at = np.searchsorted(t, imu_rows[:, 0])
    for key, columns in (("gyr", slice(2, 5)), ("acc", slice(5, 8))):
        a = np.full((t.size, 3), np.nan)
        a[at] = imu_rows[:, columns]
        out[key] = a
    if mag is not None:
        a = np.full((t.size, 3), np.nan)
        a[np.searchsorted(t, mag_rows[:, 0])] = mag_rows[:, 2:5] * MICROTESLA_PER_TESLA
        out["mag"] = a
    return out
