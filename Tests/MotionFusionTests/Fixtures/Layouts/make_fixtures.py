"""Writes the layout fixtures of this folder (see README.md): one motion, written as each source
writes it. Run from this folder: python3 make_fixtures.py. Deterministic: no random numbers."""
import math

RATE = 25.0
ROWS = 75
G = 9.80665
DEG = 180 / math.pi
EPOCH = 1700000000.0  # 2023-11-14, s


def rates(t):
    """Piecewise constant body rate, rad/s: rest, 30° about x at 60°/s, rest, 32° about y at 80°/s, rest."""
    if 0.8 <= t < 1.3:
        return (math.radians(60), 0.0, 0.0)
    if 2.0 <= t < 2.4:
        return (0.0, math.radians(80), 0.0)
    return (0.0, 0.0, 0.0)


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def inverse_rotate(q, v):
    """v expressed in the body whose attitude is q (earth from body)."""
    w, x, y, z = q
    c = (w, -x, -y, -z)
    r = qmul(qmul(c, (0.0, *v)), q)
    return r[1:]


def noise(k, channel, size):
    return size * math.sin(12.9898 * k + 78.233 * channel) * math.cos(4.1414 * k * (channel + 1))


samples = []
attitudes = []  # earth from body, at each row
q = (1.0, 0.0, 0.0, 0.0)
for k in range(ROWS):
    attitudes.append(q)
    t = k / RATE
    w = rates(t)
    acc = inverse_rotate(q, (0.0, 0.0, G))
    mag = inverse_rotate(q, (0.0, 20.0, -40.0))
    gyr = tuple(w[i] + noise(k, i, 0.002) for i in range(3))
    acc = tuple(acc[i] + noise(k, 3 + i, 0.02) for i in range(3))
    mag = tuple(mag[i] + noise(k, 6 + i, 0.3) for i in range(3))
    samples.append((t, gyr, acc, mag))
    # The rate applies until the next row.
    angle = math.sqrt(sum(c * c for c in w)) / RATE
    if angle > 0:
        axis = [c / math.sqrt(sum(c * c for c in w)) for c in w]
        q = qmul(q, (math.cos(angle / 2), *[a * math.sin(angle / 2) for a in axis]))


def num(v):
    return '%.9g' % v


def write(name, header, rows, preamble='', sep=','):
    with open(name, 'w', newline='') as f:
        f.write(preamble)
        for h in header:
            f.write(sep.join(h) + '\n')
        for r in rows:
            f.write(sep.join(r) + '\n')


def ns(t):
    return str(int(round(EPOCH * 1e9)) + int(round(t * 1e9)))


def secs_nsecs(t):
    n = int(round(EPOCH * 1e9)) + int(round(t * 1e9))
    return [str(n // 10**9), str(n % 10**9)]


xyz = 'xyz'
cov = ['0'] * 9
write('reference.csv', [['t', 'gyr_x', 'gyr_y', 'gyr_z', 'acc_x', 'acc_y', 'acc_z', 'mag_x', 'mag_y', 'mag_z']],
      [[num(t)] + [num(v) for v in g + a + m] for t, g, a, m in samples])

# ROS 1, `rostopic echo -p /imu/data` (sensor_msgs/Imu): %time is when the message was recorded.
h = (['%time', 'field.header.seq', 'field.header.stamp', 'field.header.frame_id']
     + ['field.orientation.' + c for c in 'xyzw'] + ['field.orientation_covariance%d' % i for i in range(9)]
     + ['field.angular_velocity.' + c for c in xyz] + ['field.angular_velocity_covariance%d' % i for i in range(9)]
     + ['field.linear_acceleration.' + c for c in xyz]
     + ['field.linear_acceleration_covariance%d' % i for i in range(9)])
write('ros_rostopic_imu.csv', [h], [
    [str(int(ns(t)) + 1_730_000), str(k), ns(t), 'imu_link', '0', '0', '0', '1'] + cov + [num(v) for v in g] + cov
    + [num(v) for v in a] + cov for k, (t, g, a, m) in enumerate(samples)])
# ROS 1, `rostopic echo -p /imu/mag` (sensor_msgs/MagneticField, tesla).
h = (['%time', 'field.header.seq', 'field.header.stamp', 'field.header.frame_id']
     + ['field.magnetic_field.' + c for c in xyz] + ['field.magnetic_field_covariance%d' % i for i in range(9)])
write('ros_rostopic_mag.csv', [h], [
    [str(int(ns(t)) + 1_730_000), str(k), ns(t), 'imu_link'] + [num(v * 1e-6) for v in m] + cov
    for k, (t, g, a, m) in enumerate(samples)])
# A ROS bag flattened with message prefixes (imu., magnetic_field.), tesla, epoch seconds.
h = (['timestamp'] + ['imu.angular_velocity.' + c for c in xyz] + ['imu.linear_acceleration.' + c for c in xyz]
     + ['magnetic_field.' + c for c in xyz])
write('ros_prefixed.csv', [h], [
    ['%.6f' % (EPOCH + t)] + [num(v) for v in g + a] + [num(v * 1e-6) for v in m] for t, g, a, m in samples])
# bagpy's CSV of a ROS 1 bag: Time (recorded), header.stamp.secs/nsecs, covariances as quoted tuples.
c9 = '"(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)"'
h = (['Time', 'header.seq', 'header.stamp.secs', 'header.stamp.nsecs', 'header.frame_id']
     + ['orientation.' + c for c in 'xyzw'] + ['orientation_covariance'] + ['angular_velocity.' + c for c in xyz]
     + ['angular_velocity_covariance'] + ['linear_acceleration.' + c for c in xyz] + ['linear_acceleration_covariance'])
write('ros_bagpy_imu.csv', [h], [
    ['%.9f' % (EPOCH + t + 0.00173), str(k)] + secs_nsecs(t) + ['imu_link', '0', '0', '0', '1', c9]
    + [num(v) for v in g] + [c9] + [num(v) for v in a] + [c9] for k, (t, g, a, m) in enumerate(samples)])
# ROS 2 (header.stamp.sec/nanosec), as rosbags-dataframe writes it.
h = (['header.stamp.sec', 'header.stamp.nanosec', 'header.frame_id'] + ['angular_velocity.' + c for c in xyz]
     + ['linear_acceleration.' + c for c in xyz])
write('ros2_imu.csv', [h], [secs_nsecs(t) + ['imu_link'] + [num(v) for v in g + a] for t, g, a, m in samples])
# VectorNav Control Center export: TimeStartup (ns), compensated MagX (gauss), AccelX, GyroX.
h = ['TimeStartup', 'MagX', 'MagY', 'MagZ', 'AccelX', 'AccelY', 'AccelZ', 'GyroX', 'GyroY', 'GyroZ', 'Temp', 'Pres']
write('vectornav.csv', [h], [
    [str(int(round((81.25 + t) * 1e9)))] + [num(v / 100) for v in m] + [num(v) for v in a + g] + ['24.8', '101.32']
    for t, g, a, m in samples])
# A VectorNav log with snake-case names (gauss).
h = ['time_s', 'gyro_x', 'gyro_y', 'gyro_z', 'accel_x', 'accel_y', 'accel_z', 'mag_x', 'mag_y', 'mag_z']
write('vectornav_snake.csv', [h], [
    [num(t)] + [num(v) for v in g + a] + [num(v / 100) for v in m] for t, g, a, m in samples])
# Xsens MT Manager export (MTi): metadata, tab-separated, SampleTimeFine in 10 kHz ticks wrapping
# at 2^32 within the file, magnetometer in arbitrary units (1 = the field where it was calibrated).
pre = ('// Start Time: Unknown\n// Update Rate: 25.0Hz\n// Filter Profile: human (46.1)\n'
       '// Option Flags: AHS Disabled ICC Disabled\n// Firmware Version: 4.0.2\n')
h = ['PacketCounter', 'SampleTimeFine', 'Acc_X', 'Acc_Y', 'Acc_Z', 'Gyr_X', 'Gyr_Y', 'Gyr_Z', 'Mag_X', 'Mag_Y', 'Mag_Z']
write('xsens_mtmanager.txt', [h], [
    ['%05d' % (65530 + k & 0xFFFF), str((4294960000 + int(round(t * 1e4))) % 2**32)]
    + [num(v) for v in a + g] + [num(v / 44.7) for v in m] for k, (t, g, a, m) in enumerate(samples)],
    preamble=pre, sep='\t')
# Xsens DOT export: SampleTimeFine in µs (wrapping at 2^32), gyroscope in deg/s without a unit.
h = ['PacketCounter', 'SampleTimeFine', 'Quat_W', 'Quat_X', 'Quat_Y', 'Quat_Z', 'Acc_X', 'Acc_Y', 'Acc_Z',
     'Gyr_X', 'Gyr_Y', 'Gyr_Z', 'Mag_X', 'Mag_Y', 'Mag_Z']
write('xsens_dot.csv', [h], [
    [str(k), str((4293967296 + int(round(t * 1e6))) % 2**32), '1', '0', '0', '0'] + [num(v) for v in a]
    + [num(v * DEG) for v in g] + [num(v / 44.7) for v in m] for k, (t, g, a, m) in enumerate(samples)])
# x-IMU GUI (x-io's first x-IMU) CalInertialAndMag.csv: no clock, only the packet number.
h = ['Packet number', 'Gyroscope X (deg/s)', 'Gyroscope Y (deg/s)', 'Gyroscope Z (deg/s)', 'Accelerometer X (g)',
     'Accelerometer Y (g)', 'Accelerometer Z (g)', 'Magnetometer X (G)', 'Magnetometer Y (G)', 'Magnetometer Z (G)']
write('ximu_gui_calinertialandmag.csv', [h], [
    [str(2 * k + 3)] + [num(v * DEG) for v in g] + [num(v / G) for v in a] + [num(v / 100) for v in m]
    for k, (t, g, a, m) in enumerate(samples)])
# Flight logs: body rates p, q, r.
write('pqr.csv', [['time', 'p', 'q', 'r', 'ax', 'ay', 'az']], [
    [num(t)] + [num(v) for v in g + a] for t, g, a, m in samples])
# GNSS/INS logs: GPS seconds of week, gyroscope in deg/s.
write('gpst.csv', [['GPST', 'Gx', 'Gy', 'Gz', 'Ax', 'Ay', 'Az']], [
    ['%.3f' % (345600 + t)] + [num(v * DEG) for v in g] + [num(v) for v in a] for t, g, a, m in samples])
# An Arduino sketch's Serial log: accelerometer in g, gyroscope in deg/s.
write('arduino_ax_gz.csv', [['Time', 'Ax', 'Ay', 'Az', 'Gx', 'Gy', 'Gz']], [
    [num(t)] + [num(v / G) for v in a] + [num(v * DEG) for v in g] for t, g, a, m in samples])
# An Arduino Nano 33 BLE sketch's Serial log: millis() since boot (whole ms, no unit in the name),
# accelerometer in g, gyroscope in deg/s.
write('arduino_millis.csv', [['Timestamp', 'AccX', 'AccY', 'AccZ', 'GyroX', 'GyroY', 'GyroZ']], [
    [str(15234 + int(round(t * 1000)))] + [num(v / G) for v in a] + [num(v * DEG) for v in g]
    for t, g, a, m in samples])
# Epoch ms, accelerometer in mg, magnetometer in nT.
write('epoch_ms_mg_nt.csv', [['timestamp', 'ax', 'ay', 'az', 'gx', 'gy', 'gz', 'mx', 'my', 'mz']], [
    [str(int(round((EPOCH + t) * 1000)))] + [num(v / G * 1000) for v in a] + [num(v) for v in g]
    + [num(v * 1000) for v in m] for t, g, a, m in samples])
# Sensor headings over bare axes (spreadsheet exports).
write('sensor_headings.csv', [
    ['Time', 'Accelerometer', '', '', 'Gyroscope', '', '', 'Magnetometer', '', ''],
    ['(s)', 'X', 'Y', 'Z', 'X', 'Y', 'Z', 'X', 'Y', 'Z']], [
    [num(t)] + [num(v) for v in a + g + m] for t, g, a, m in samples])
# A units row under the names.
write('units_row.csv', [['Time', 'AccX', 'AccY', 'AccZ', 'GyroX', 'GyroY', 'GyroZ'], ['s', 'g', 'g', 'g', 'dps', 'dps', 'dps']], [
    [num(t)] + [num(v / G) for v in a] + [num(v * DEG) for v in g] for t, g, a, m in samples])
# A BNO055 read raw: gyroscope counts of 1/16 deg/s.
write('bno055_raw.csv', [['t', 'gx', 'gy', 'gz', 'ax', 'ay', 'az']], [
    [num(t)] + [str(int(round(v * DEG * 16))) for v in g] + [num(v) for v in a] for t, g, a, m in samples])
# SensorLog (iOS): Core Motion's raw accelerometer in g with iOS's sign (-1 g along z face up), each
# sensor's time since boot beside the row's wall clock, and the device-motion values beside the raw
# ones (rotation rate, user acceleration without gravity, gravity, quaternion, calibrated field).
h = (['loggingTime(txt)', 'loggingSample(N)', 'accelerometerTimestamp_sinceReboot(s)']
     + ['accelerometerAcceleration%s(G)' % c for c in 'XYZ'] + ['gyroTimestamp_sinceReboot(s)']
     + ['gyroRotation%s(rad/s)' % c for c in 'XYZ'] + ['magnetometerTimestamp_sinceReboot(s)']
     + ['magnetometer%s(\u00b5T)' % c for c in 'XYZ'] + ['motionTimestamp_sinceReboot(s)', 'motionYaw(rad)',
     'motionRoll(rad)', 'motionPitch(rad)'] + ['motionRotationRate%s(rad/s)' % c for c in 'XYZ']
     + ['motionUserAcceleration%s(G)' % c for c in 'XYZ'] + ['motionQuaternion%s(R)' % c for c in 'XYZW']
     + ['motionGravity%s(G)' % c for c in 'XYZ'] + ['motionMagneticField%s(\u00b5T)' % c for c in 'XYZ'])
write('sensorlog_ios.csv', [h], [
    ['2023-11-14 23:13:%06.3f +0100' % (20 + t + 0.0043 * (k % 3)), str(k), '%.6f' % (5120.25 + t)]
    + [num(-v / G) for v in a] + ['%.6f' % (5120.25 + t)] + [num(v) for v in g] + ['%.6f' % (5120.25 + t)]
    + [num(v) for v in m] + ['%.6f' % (5120.25 + t), '0', '0', '0'] + [num(v) for v in g] + ['0', '0', '0']
    + ['0', '0', '0', '1'] + [num(-v / G) for v in a] + [num(v) for v in m] for k, (t, g, a, m) in enumerate(samples)])
# Physics Toolbox Sensor Suite (Android): a blank line, g-force gFx (gravity included, in g), the
# linear acceleration ax (gravity removed, m/s2), the rates wx in rad/s, and a trailing separator.
write('physics_toolbox.csv', [['time', 'gFx', 'gFy', 'gFz', 'ax', 'ay', 'az', 'wx', 'wy', 'wz', '']], [
    ['%.6f' % (0.031856 + t)] + [num(v / G) for v in a] + ['0', '0', '0'] + [num(v) for v in g] + ['']
    for t, g, a, m in samples], preamble='\n')

# HyperIMU (Android) without its timestamp: two '@' lines, the second stating the sampling period,
# a blank line, then the sensors' values (MPL_ names, m/s2 and rad/s).
write('hyperimu_no_time.csv', [['MPL_Gyroscope.' + c for c in xyz] + ['MPL_Accelerometer.' + c for c in xyz]], [
    [num(v) for v in g + a] for t, g, a, m in samples],
    preamble='@ HyperIMU - ianovir - 2017\n@ Date: Tue Nov 14 21:35:26 GMT+01:00 2017, Sampling Time: 40ms\n\n')

# AndroSensor (Android): raw accelerometer beside gravity and linear acceleration, the orientation,
# the time since start in ms named in words, and a date-time column of its own format.
h = (['ACCELEROMETER %s (m/s\u00b2)' % c for c in 'XYZ'] + ['GRAVITY %s (m/s\u00b2)' % c for c in 'XYZ']
     + ['LINEAR ACCELERATION %s (m/s\u00b2)' % c for c in 'XYZ'] + ['GYROSCOPE %s (rad/s)' % c for c in 'XYZ']
     + ['MAGNETIC FIELD %s (\u03bcT)' % c for c in 'XYZ']
     + ['ORIENTATION Z (azimuth \u00b0)', 'ORIENTATION X (pitch \u00b0)', 'ORIENTATION Y (roll \u00b0)',
        'Time since start in ms ', 'YYYY-MO-DD HH-MI-SS_SSS'])
write('androsensor.csv', [h], [
    [num(v) for v in a] + [num(v) for v in a] + ['0', '0', '0'] + [num(v) for v in g] + [num(v) for v in m]
    + ['0', '0', '0', str(int(round(t * 1000)) + 8), '2020-06-18 18:38:44:%03d' % (int(round(t * 1000)) % 1000)]
    for t, g, a, m in samples])

# MotionSense (iOS Core Motion device motion, as its dataset's CSVs): a nameless index column, the
# attitude, gravity (a unit vector in g, -1 g along z face up), the rotation rate (rad/s) and the
# user acceleration (g, gravity removed, Core Motion's sign); no clock (50 Hz in the dataset), no
# raw accelerometer. Here gravity + userAcceleration = -(specific force) / g exactly.
h = ([''] + ['attitude.' + c for c in ('roll', 'pitch', 'yaw')] + ['gravity.' + c for c in xyz]
     + ['rotationRate.' + c for c in xyz] + ['userAcceleration.' + c for c in xyz])
rows = []
for k, (t, g, a, m) in enumerate(samples):
    norm = math.sqrt(sum(v * v for v in a))
    gravity = [-v / norm for v in a]
    user = [-v / G - gv for v, gv in zip(a, gravity)]
    rows.append([str(k), '0', '0', '0'] + [num(v) for v in gravity] + [num(v) for v in g] + [num(v) for v in user])
write('motionsense.csv', [h], rows)

# FIRM (a rocket flight computer) packets as a table: the time in s, temperature and pressure,
# snake-case names ending in their unit (raw accelerometer in g, raw gyroscope in deg/s, field in
# uT), then the board's own estimates (position, velocity, acceleration, rates, quaternion).
h = (['timestamp_seconds', 'temperature_celsius', 'pressure_pascals']
     + ['raw_acceleration_%s_gs' % c for c in xyz] + ['raw_angular_rate_%s_deg_per_s' % c for c in xyz]
     + ['magnetic_field_%s_microteslas' % c for c in xyz] + ['est_position_%s_meters' % c for c in xyz]
     + ['est_velocity_%s_meters_per_s' % c for c in xyz] + ['est_acceleration_%s_gs' % c for c in xyz]
     + ['est_angular_rate_%s_rad_per_s' % c for c in xyz] + ['est_quaternion_%s' % c for c in 'wxyz'])
write('firm.csv', [h], [
    ['%.6f' % (12.5 + t), '%.2f' % (21.5 + 0.01 * k), '%.1f' % (101325 - k)] + [num(v / G) for v in a]
    + [num(v * DEG) for v in g] + [num(v) for v in m] + ['0'] * 6 + [num(v / G) for v in a] + [num(v) for v in g]
    + ['1', '0', '0', '0'] for k, (t, g, a, m) in enumerate(samples)])

# Names nothing here knows, and no header at all.
write('unknown_names.csv', [['Zeit', 'Drehrate X', 'Drehrate Y', 'Drehrate Z', 'Beschl X', 'Beschl Y', 'Beschl Z']], [
    [num(t)] + [num(v) for v in g + a] for t, g, a, m in samples])
write('headerless.txt', [], [[num(t)] + [num(v) for v in g + a] for t, g, a, m in samples], sep=' ')
# ImuCollector (Android): each row holds a gyroscope reading and the accelerometer's latest, each
# with its own clock (ns since boot, no unit in the names). Here the accelerometer runs at half the
# rate, 5 rows behind: its reading repeats on two rows, the first rows have none, and the last rows
# have no gyroscope reading, as at the end of an ImuCollector session.
BOOT_NS = 141746359051845
h = ['Record Id', 'Session Id', 'Acc Timestamp', 'AccX', 'AccY', 'AccZ', 'Gyro Timestamp', 'GyroX', 'GyroY', 'GyroZ']


def boot_ns(t):
    return str(BOOT_NS + int(round(t * 1e9)))


rows = []
for k in range(ROWS + 6):
    j = k - 5 - (k - 5) % 2
    acc = ['', '', '', ''] if j < 0 else [boot_ns(samples[j][0])] + [num(v) for v in samples[j][2]]
    gyr = ['', '', '', ''] if k >= ROWS else [boot_ns(samples[k][0])] + [num(v) for v in samples[k][1]]
    rows.append(['15', '88'] + acc + gyr)
write('imucollector.csv', [h], rows)
# MicroStrain SensorConnect CSV of a 3DM-GX5 (constructed: the channel names and their
# `inertial-<model>.<serial>:` prefix are those public code reads from such exports, and the
# `DATA_START` line before the header; the Time column's form, ns since the epoch, is assumed).
# IMU rows (scaledAccel in g, scaledGyro in rad/s, scaledMag in gauss) interleave with the
# estimation filter's rows, each with its own time (at or 2 ms before the IMU's), whose IMU
# columns are empty.
node = 'inertial-6253.76535:'
h = (['Time'] + [node + 'scaled%s%s' % (s, c) for s in ['Accel', 'Gyro', 'Mag'] for c in 'XYZ']
     + [node + n for n in ['estFilterGpsTimeTow', 'estFilterGpsTimeWeekNum', 'estRoll', 'estPitch', 'estYaw']]
     + [node + 'estAngularRate' + c for c in 'XYZ'] + [node + 'estCompensatedAccel' + c for c in 'XYZ'])
rows = []
for k, (t, g, a, m) in enumerate(samples):
    rows.append([ns(t)] + [num(v / G) for v in a] + [num(v) for v in g] + [num(v / 100) for v in m] + [''] * 11)
    rows.append([ns(t - 0.002 * (k % 2))] + [''] * 9 + ['%.3f' % (302400.0 + t), '2290', '0', '0', '0'] + ['0'] * 6)
write('microstrain_sensorconnect.csv', [h], rows, preamble='DATA_START\n')
# PX4's sensor_combined topic as ulog2csv (pyulog) writes it: arrays as `name[i]`, the gyroscope in
# rad/s and the accelerometer in m/s2 (units in the field names), `timestamp` in us since boot
# (integers), and PX4's body frame, forward-right-down: the reference's y and z negated.
h = (['timestamp'] + ['gyro_rad[%d]' % i for i in range(3)] + ['gyro_integral_dt', 'accelerometer_timestamp_relative']
     + ['accelerometer_m_s2[%d]' % i for i in range(3)] + ['accelerometer_integral_dt'])
frd = (1, -1, -1)
write('px4_sensor_combined.csv', [h], [
    [str(717093622 + int(round(t * 1e6)))] + [num(s * v) for s, v in zip(frd, g)] + ['40000', '0']
    + [num(s * v) for s, v in zip(frd, a)] + ['40000'] for t, g, a, m in samples])

# Shimmer3's Consensys export, as in devicely's (MIT) test file: a `"sep=;"` line, the signal names
# (`Shimmer_<id>_Timestamp_Unix_CAL`, the low-noise accelerometer `Accel_LN_X_CAL`, `Gyro_X_CAL`,
# `Mag_X_CAL`, battery and temperature), a units row (`ms`, `m/(s^2)`, `deg/s`, `local_flux`), a
# separator ending every line, and the epoch in ms written in Java's E notation (`1.7000000004E12`).
p = 'Shimmer_40AC_'


def java_ms(t):
    return ('%.12f' % ((EPOCH + t) / 1e9)).rstrip('0').rstrip('.') + 'E12'


h = ([p + 'Timestamp_Unix_CAL'] + [p + 'Accel_LN_%s_CAL' % c for c in 'XYZ'] + [p + 'Battery_CAL']
     + [p + 'Gyro_%s_CAL' % c for c in 'XYZ'] + [p + 'Mag_%s_CAL' % c for c in 'XYZ'] + [p + 'Temperature_BMP280_CAL', ''])
u = ['ms'] + ['m/(s^2)'] * 3 + ['mV'] + ['deg/s'] * 3 + ['local_flux'] * 3 + ['Degrees Celsius', '']
write('shimmer_consensys.csv', [h, u], [
    [java_ms(t)] + [num(v) for v in a] + ['4139.19'] + [num(v * DEG) for v in g]
    + [num(v / 50) for v in m] + ['33.37', ''] for t, g, a, m in samples], preamble='"sep=;"\n', sep=';')
# The same device with its wide-range accelerometer beside the low-noise one: two accelerometers.
h2 = h[:4] + [p + 'Accel_WR_%s_CAL' % c for c in 'XYZ'] + h[4:]
u2 = u[:4] + ['m/(s^2)'] * 3 + u[4:]
write('shimmer_ln_wr.csv', [h2, u2], [
    [java_ms(t)] + [num(v) for v in a] + [num(v) for v in a] + ['4139.19']
    + [num(v * DEG) for v in g] + [num(v / 50) for v in m] + ['33.37', ''] for t, g, a, m in samples],
    preamble='"sep=;"\n', sep=';')

# WitMotion's PC software (WT901 and its Bluetooth kin): `Time` (the time of day the computer got
# the row, with a leading space), `Device name`, `Chip Time()` (the sensor's own date-time),
# `Acceleration X(g)`, `Angular velocity X(°/s)`, shift and speed, `Angle X(°)` (the sensor's own
# attitude), `Magnetic field X(ʯt)` (µT, the µ lost to a code page), the temperature and the
# sensor's quaternion, as column lists in public projects that read these files give them.
h = (['Time', 'Device name', 'Chip Time()'] + ['Acceleration %s(g)' % c for c in 'XYZ']
     + ['Angular velocity %s(°/s)' % c for c in 'XYZ'] + ['Shift%s(mm)' % c for c in 'XYZ']
     + ['Speed%s(mm/s)' % c for c in 'XYZ'] + ['Angle %s(°)' % c for c in 'XYZ']
     + ['Magnetic field %s(ʯt)' % c for c in 'XYZ'] + ['Temperature(℃)'] + ['Quaternions %d()' % k for k in range(4)])


def clock(t, date=True):
    s = EPOCH + t
    whole = int(s)
    hms = '%02d:%02d:%02d.%03d' % (whole // 3600 % 24, whole // 60 % 60, whole % 60, round((s - whole) * 1000))
    return '2023-11-14 ' + hms if date else ' ' + hms


write('witmotion.csv', [h], [
    [clock(t + 0.0123, date=False), 'WT901BLE67(e0:1d:2b:3c:4d:5e)', clock(t)] + [num(v / G) for v in a]
    + [num(v * DEG) for v in g] + ['0'] * 6 + ['0.5', '1.1', '42.0'] + [num(v) for v in m] + ['25.3', '1', '0', '0', '0']
    for t, g, a, m in samples])

# ST SensorTile's SD log: `T [ms]` since power-up, the
# accelerometer in whole mg and the gyroscope in millidegrees per second (`[mdps]`, whole tens),
# each field after a comma and a space, as in the public SensorTile_Log_N000.csv of
# MarquetteGabriel/IA_Balancement.
write('st_sensortile.csv', [['T [ms]', 'AccX [mg]', 'AccY [mg]', 'AccZ [mg]', 'GyroX [mdps]', 'GyroY [mdps]',
                             'GyroZ [mdps]']], [
    [str(9807 + int(round(t * 1000)))] + [' %d' % round(v / G * 1000) for v in a]
    + [' %d' % (10 * round(v * DEG * 100)) for v in g] for t, g, a, m in samples])


def euler(q):
    """Roll, pitch, yaw (deg; z-y-x) of an attitude, earth from body."""
    w, x, y, z = q
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return [math.degrees(v) for v in (roll, pitch, yaw)]


# LP-Research LPMS (OpenMAT / LpmsControl CSV, an LPMS-B2 as in the public in/hachi-0.csv of
# dragoon8192/LPMS-self-localization): `SensorId, TimeStamp (s), FrameNumber`, the accelerometer in
# g written with gravity's sign (-1 g along z lying level: here the specific force negated), the
# gyroscope in deg/s, the field in uT, the sensor's own Euler angles and quaternion, its linear
# acceleration (gravity removed, the same sign), pressure, altitude, temperature and heave (zero);
# each field after a comma and a space, eight decimals.
h = (['SensorId', 'TimeStamp (s)', 'FrameNumber'] + ['Acc%s (g)' % c for c in 'XYZ']
     + ['Gyro%s (deg/s)' % c for c in 'XYZ'] + ['Mag%s (uT)' % c for c in 'XYZ']
     + ['Euler%s (deg)' % c for c in 'XYZ'] + ['QuatW', 'QuatX', 'QuatY', 'QuatZ']
     + ['LinAcc%s (g)' % c for c in 'XYZ'] + ['Pressure (kPa)', 'Altitude (m)', 'Temperature (degC)', 'HeaveMotion (m)'])
rows = []
for k, (t, g, a, m) in enumerate(samples):
    q = attitudes[k]
    gravity = inverse_rotate(q, (0.0, 0.0, G))
    rows.append(['1', '%.4f' % t, str(k)] + ['%.8f' % (-v / G) for v in a] + ['%.8f' % (v * DEG) for v in g]
                + ['%.8f' % v for v in m] + ['%.8f' % v for v in euler(q)] + ['%.8f' % v for v in q]
                + ['%.8f' % (-(v - gv) / G) for v, gv in zip(a, gravity)] + ['%.8f' % 0] * 4)
write('lpms_b2.csv', [h], rows, sep=', ')


# Arduino Nano 33 BLE's IMU_Capture.ino (Arduino's TinyML tutorial) printing a gesture at the
# LSM9DS1's 119 Hz: `aX,aY,aZ,gX,gY,gZ`, no clock, the accelerometer in g and the gyroscope in
# deg/s, three decimals, as in the public punch.csv of spaziochirale/TinyML. A motion of its own
# (the reference rests): 3 s of swinging that never rests, rates up to about 250 deg/s, and a
# hand's acceleration of up to 0.15 g on top of gravity.
GESTURE_RATE = 119.0
gesture = []
q = (1.0, 0.0, 0.0, 0.0)
for k in range(357):
    t = k / GESTURE_RATE
    w = (math.radians(200) * math.sin(2 * math.pi * 1.5 * t), math.radians(120) * math.cos(2 * math.pi * t),
         math.radians(60) * math.sin(2 * math.pi * 0.7 * t + 1))
    hand = (0.15 * G * math.sin(2 * math.pi * 2 * t), 0.1 * G * math.cos(2 * math.pi * 3 * t), 0.0)
    acc = tuple(f + h for f, h in zip(inverse_rotate(q, (0.0, 0.0, G)), hand))
    gesture.append((t, w, acc))
    angle = math.sqrt(sum(c * c for c in w)) / GESTURE_RATE
    axis = [c / math.sqrt(sum(c * c for c in w)) for c in w]
    q = qmul(q, (math.cos(angle / 2), *[a * math.sin(angle / 2) for a in axis]))
write('arduino_imu_capture.csv', [['aX', 'aY', 'aZ', 'gX', 'gY', 'gZ']], [
    ['%.3f' % (v / G) for v in a] + ['%.3f' % (v * DEG) for v in w] for t, w, a in gesture])


# ActiGraph Link IMU exported by ActiLife (the layout a public AGread-based converter writes, and
# the column order a public converter checks): ActiLife's ten lines before the header, the first
# stating the rate ("at 25 Hz" here; ActiGraph's IMU samples at 100 Hz) and the date format, then
# `Accelerometer X,…,Temperature,Gyroscope X,…,Magnetometer Z` without units (g, deg/s, uT), with
# or without a first `Timestamp` column of month-first date-times.
def actigraph_preamble(rate):
    return ('------------ Data File Created By ActiGraph Link IMU 9DOF Sensor ActiLife v6.13.4 Firmware v1.7.2 '
            'date format M/d/yyyy at %d Hz  -----------\n' % rate
            + 'Serial Number: TAS1E00000000\nStart Time 22:13:20\nStart Date 11/14/2023\n'
            'Epoch Period (hh:mm:ss) 00:00:00\nDownload Time 09:00:00\nDownload Date 11/15/2023\n'
            'Current Memory Address: 0\nCurrent Battery Voltage: 4.12     Mode = 12\n'
            + '-' * 50 + '\n')


def actigraph_timestamp(t):
    whole = int(EPOCH + t)
    ms = int(round((EPOCH + t - whole) * 1000))
    day = whole // 86400  # 2023-11-14 is day 19675 since 1970-01-01
    assert day == 19675
    s = whole % 86400
    return '11/14/2023 %02d:%02d:%02d.%03d' % (s // 3600, s // 60 % 60, s % 60, ms)


ACTIGRAPH = (['Accelerometer X', 'Accelerometer Y', 'Accelerometer Z', 'Temperature', 'Gyroscope X',
              'Gyroscope Y', 'Gyroscope Z', 'Magnetometer X', 'Magnetometer Y', 'Magnetometer Z'])


def actigraph_row(g, a, m):
    return (['%.6f' % (v / G) for v in a] + ['26.5'] + ['%.6f' % (v * DEG) for v in g]
            + ['%.6f' % v for v in m])


write('actigraph_imu.csv', [ACTIGRAPH], [actigraph_row(g, a, m) for t, g, a, m in samples],
      preamble=actigraph_preamble(RATE))
write('actigraph_imu_timestamp.csv', [['Timestamp'] + ACTIGRAPH],
      [[actigraph_timestamp(t)] + actigraph_row(g, a, m) for t, g, a, m in samples],
      preamble=actigraph_preamble(RATE))
