"""ROS bags through load(): ROS 1 .bag, ROS 2 bag folders (SQLite and MCAP), written here with
rosbags' own writers from synthetic messages of known values."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import motionfusion as mf

rosbags = pytest.importorskip("rosbags")
from rosbags.rosbag1 import Writer as Writer1  # noqa: E402
from rosbags.rosbag2 import StoragePlugin, Writer as Writer2  # noqa: E402
from rosbags.typesys import Stores, get_typestore  # noqa: E402

# 100 Hz IMU and 25 Hz magnetometer, stamps from t0 on the recording's clock.
T0 = 1_700_000_000.0
N_IMU, N_MAG = 200, 50


def imu_values(k: int) -> tuple[np.ndarray, np.ndarray]:
    return np.array([0.01 * k, -0.002 * k, 0.1]), np.array([0.1, -0.2, 9.81 + 0.001 * k])


def mag_values(k: int) -> np.ndarray:  # tesla
    return np.array([20e-6, 1e-7 * k, -40e-6])


def messages(store, ros1: bool):
    """(topic, msgtype, stamp ns, message) in time order."""
    T = store.types
    Time = T["builtin_interfaces/msg/Time"]
    Header = T["std_msgs/msg/Header"]
    Vector3 = T["geometry_msgs/msg/Vector3"]
    Quaternion = T["geometry_msgs/msg/Quaternion"]

    def header(ns: int):
        stamp = Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)
        return Header(seq=0, stamp=stamp, frame_id="imu") if ros1 else Header(stamp=stamp, frame_id="imu")

    def v(a):
        return Vector3(x=float(a[0]), y=float(a[1]), z=float(a[2]))

    cov = np.zeros(9)
    out = []
    for k in range(N_IMU):
        ns = int(T0 * 1e9) + k * 10_000_000
        g, a = imu_values(k)
        msg = T["sensor_msgs/msg/Imu"](
            header=header(ns), orientation=Quaternion(x=0.0, y=0.0, z=0.0, w=1.0),
            orientation_covariance=np.array([-1.0] + [0.0] * 8), angular_velocity=v(g),
            angular_velocity_covariance=cov, linear_acceleration=v(a), linear_acceleration_covariance=cov)
        out.append(("/imu/data", "sensor_msgs/msg/Imu", ns, msg))
    for k in range(N_MAG):
        ns = int(T0 * 1e9) + k * 40_000_000 + 5_000_000  # between IMU samples
        msg = T["sensor_msgs/msg/MagneticField"](header=header(ns), magnetic_field=v(mag_values(k)),
                                                 magnetic_field_covariance=cov)
        out.append(("/imu/mag", "sensor_msgs/msg/MagneticField", ns, msg))
    return sorted(out, key=lambda m: m[2])


def write_bag(path: Path, kind: str, extra_imu_topic: bool = False) -> Path:
    ros1 = kind == "ros1"
    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    items = messages(store, ros1)
    if extra_imu_topic:
        items += [("/imu/raw", t, ns, m) for topic, t, ns, m in items if topic == "/imu/data"]
    if ros1:
        writer = Writer1(path)
    else:
        writer = Writer2(path, version=9, storage_plugin=StoragePlugin.MCAP if kind == "mcap" else StoragePlugin.SQLITE3)
    with writer:
        connections = {}
        for topic, msgtype, ns, msg in items:
            if topic not in connections:
                connections[topic] = writer.add_connection(topic, msgtype, typestore=store)
            data = store.serialize_ros1(msg, msgtype) if ros1 else store.serialize_cdr(msg, msgtype)
            writer.write(connections[topic], ns, data)
    return path


@pytest.mark.parametrize("kind", ["ros1", "sqlite", "mcap"])
def test_load_bag(tmp_path, kind):
    bag = write_bag(tmp_path / ("x.bag" if kind == "ros1" else "x"), kind)
    trace = mf.load(bag)
    imu_t = T0 + np.arange(N_IMU) * 0.01
    mag_t = T0 + np.arange(N_MAG) * 0.04 + 0.005
    np.testing.assert_allclose(trace["t"], np.sort(np.concatenate([imu_t, mag_t])), rtol=0, atol=1e-6)
    assert len(trace["t"]) == N_IMU + N_MAG
    at_imu = np.isfinite(trace["gyr"][:, 0])
    assert at_imu.sum() == N_IMU and np.isfinite(trace["mag"][:, 0]).sum() == N_MAG
    assert not np.any(at_imu & np.isfinite(trace["mag"][:, 0]))  # merged on time: one row per stamp
    for k in (0, 57, N_IMU - 1):
        g, a = imu_values(k)
        row = np.flatnonzero(at_imu)[k]
        np.testing.assert_allclose(trace["gyr"][row], g, rtol=0, atol=1e-12)
        np.testing.assert_allclose(trace["acc"][row], a, rtol=0, atol=1e-12)
    rows = np.flatnonzero(np.isfinite(trace["mag"][:, 0]))
    for k in (0, 31):
        np.testing.assert_allclose(trace["mag"][rows[k]], mag_values(k) * 1e6, rtol=1e-12)  # µT
    # Named topics give the same; the replay runs on it.
    named = mf.load(bag, imu_topic="/imu/data", mag_topic="/imu/mag")
    for key in ("t", "gyr", "acc", "mag"):
        np.testing.assert_array_equal(named[key], trace[key])
    q = mf.replay(trace["t"] - trace["t"][0], trace["gyr"], trace["acc"], trace["mag"], mode="9d")["quaternion"]
    assert np.all(np.isfinite(q))


def test_bag_topics_chosen_or_listed(tmp_path):
    bag = write_bag(tmp_path / "two.bag", "ros1", extra_imu_topic=True)
    with pytest.raises(mf.MotionFusionError, match=r"2 sensor_msgs/msg/Imu topics \(/imu/data, /imu/raw\): choose one "
                                                   r"with imu_topic="):
        mf.load(bag)
    trace = mf.load(bag, imu_topic="/imu/raw")
    assert np.isfinite(trace["gyr"][:, 0]).sum() == N_IMU
    with pytest.raises(mf.MotionFusionError, match=r"imu_topic='/nope': no such topic.*/imu/data \(sensor_msgs/msg/Imu\)"):
        mf.load(bag, imu_topic="/nope")
    with pytest.raises(mf.MotionFusionError, match="carries sensor_msgs/msg/Imu, not sensor_msgs/msg/MagneticField"):
        mf.load(bag, imu_topic="/imu/raw", mag_topic="/imu/data")
    with pytest.raises(ValueError, match="columns: not options of a ROS bag"):
        mf.load(bag, columns="t=1", imu_topic="/imu/raw")
