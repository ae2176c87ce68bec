"""Writes the per-sensor folder fixtures of this folder (see README.md) from the motion of
../Layouts/reference.csv (SI, 25 Hz). Run from this folder: python3 make_sensor_files.py."""
import csv
import datetime
import math
import os

G = 9.80665
DEG = 180 / math.pi
EPOCH = 1700000000.0  # 2023-11-14T22:13:20Z

with open('../Layouts/reference.csv') as f:
    rows = [[float(v) for v in r] for r in list(csv.reader(f))[1:]]


def num(v):
    return '%.9g' % v


def iso(t, sep='T', zone='Z'):
    d = datetime.datetime.fromtimestamp(EPOCH + t, datetime.timezone.utc)
    return d.strftime('%Y-%m-%d' + sep + '%H:%M:%S') + '.%03d' % round((EPOCH + t) % 1 * 1000) + zone


def write(folder, name, header, lines, sep=','):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), 'w', newline='') as f:
        f.write(sep.join(header) + '\n')
        for line in lines:
            f.write(sep.join(line) + '\n')


# An app writing one file per sensor, ISO-8601 times in UTC, SI units: the accelerometer and the
# gyroscope at 25 Hz, the compass at 5 Hz, each with its own name.
write('iso', 'Accelerometer.csv', ['timestamp', 'x', 'y', 'z'],
      [[iso(r[0])] + [num(v) for v in r[4:7]] for r in rows])
write('iso', 'Gyroscope.csv', ['timestamp', 'x', 'y', 'z'],
      [[iso(r[0])] + [num(v) for v in r[1:4]] for r in rows])
write('iso', 'Compass.csv', ['timestamp', 'x', 'y', 'z'],
      [[iso(r[0])] + [num(v) for v in r[7:10]] for r in rows[::5]])
write('iso', 'Orientation.csv', ['timestamp', 'qw', 'qx', 'qy', 'qz'],
      [[iso(r[0]), '1', '0', '0', '0'] for r in rows[::5]])

# A logger's short names: accel.csv in g with a seconds clock, gyro.txt space-separated in °/s,
# mag.csv with spreadsheet date-times (a space, an offset of +01:00) in µT at 5 Hz.
write('short', 'accel.csv', ['time_s', 'accel_x', 'accel_y', 'accel_z'],
      [['%.3f' % (EPOCH + r[0])] + [num(v / G) for v in r[4:7]] for r in rows])
write('short', 'gyro.txt', ['t', 'x', 'y', 'z'],
      [['%.3f' % (EPOCH + r[0])] + [num(v * DEG) for v in r[1:4]] for r in rows], sep=' ')
write('short', 'mag.csv', ['date time', 'mx', 'my', 'mz'],
      [[iso(r[0] + 3600, sep=' ', zone='+01:00')] + [num(v) for v in r[7:10]] for r in rows[::5]])

# MetaWear's MetaBase app: one file per sensor named for the device, the time and the sensor,
# each `epoch (ms),time (-07:00),elapsed (s),x-axis (UNIT),…` (the local wall clock's UTC offset
# where a unit would be); the accelerometer in g, the gyroscope in deg/s, the magnetometer in T at
# 5 Hz.
def local(t):
    d = datetime.datetime.fromtimestamp(EPOCH + t, datetime.timezone(datetime.timedelta(hours=-7)))
    return d.strftime('%Y-%m-%dT%H.%M.%S') + '.%03d' % round((EPOCH + t) % 1 * 1000)


def metabase(sensor, unit, columns, scale, every=1):
    name = 'MetaWear_2023-11-14T15.13.20.000_C8D2F1A1B2C3_%s_1.4.5.csv' % sensor
    header = ['epoch (ms)', 'time (-07:00)', 'elapsed (s)'] + ['%s-axis (%s)' % (c, unit) for c in 'xyz']
    write('metabase', name, header, [
        ['%d' % round((EPOCH + r[0]) * 1000), local(r[0]), '%.3f' % r[0]] + [num(v * scale) for v in r[columns]]
        for r in rows[::every]])


metabase('Accelerometer', 'g', slice(4, 7), 1 / G)
metabase('Gyroscope', 'deg/s', slice(1, 4), DEG)
metabase('Magnetometer', 'T', slice(7, 10), 1e-6, every=5)


# An Android logger of the RoNIN kind (Sensors-Data-Logger, MIT): one headerless file per sensor
# stream, a `# Created at …` line, then `timestamp x y z ` (a trailing space) with the event time
# in ns since boot; the calibrated streams beside the uncalibrated ones, the bias estimates, the
# accelerometer's calibration parameters and the phone's own rotation vectors (none of them read).
BOOT_NS = 4240911748748


def android(name, lines):
    os.makedirs('android', exist_ok=True)
    with open(os.path.join('android', name), 'w', newline='') as f:
        f.write('# Created at Mon Nov 14 14:13:20 PST 2023 in Burnaby Canada \n')
        for line in lines:
            f.write(' '.join(line) + ' \n')


def stream(columns, scale=1.0, offset=(0.0, 0.0, 0.0), every=1):
    return [['%d' % (BOOT_NS + round(r[0] * 1e9))] + ['%.6f' % (v * scale + o) for v, o in zip(r[columns], offset)]
            for r in rows[::every]]


android('acce.txt', stream(slice(4, 7)))
android('acce_uncalib.txt', stream(slice(4, 7), offset=(0.05, -0.02, 0.1)))
android('gyro.txt', stream(slice(1, 4)))
android('gyro_uncalib.txt', stream(slice(1, 4), offset=(0.02, -0.01, 0.005)))
android('gyro_bias.txt', [line[:1] + ['0.020000', '-0.010000', '0.005000'] for line in stream(slice(1, 4))])
android('magnet.txt', stream(slice(7, 10), every=5))
android('magnet_uncalib.txt', stream(slice(7, 10), offset=(190.0, 200.0, -220.0), every=5))
android('linacce.txt', [line[:1] + ['0.000000'] * 3 for line in stream(slice(4, 7))])
android('gravity.txt', stream(slice(4, 7)))
android('rv.txt', [line[:1] + ['0.000000', '0.000000', '0.000000', '1.000000'] for line in stream(slice(1, 4))])
android('game_rv.txt', [line[:1] + ['0.000000', '0.000000', '0.000000', '1.000000'] for line in stream(slice(1, 4))])
android('magnetic_rv.txt', [line[:1] + ['0.000000', '0.000000', '0.000000', '1.000000'] for line in stream(slice(1, 4))])
with open('android/acce_calib.txt', 'w', newline='') as f:
    f.write('# Created at 11/14/23 for phone\n0.04 0.18 -0.2\n0.99 0.998 1.0\n')


# Polar Sensor Logger (Android app for Polar H10 / Verity Sense): one semicolon-separated file per
# sensor, `Polar_<device>_<id>_<date>_<time>_ACC.txt`, `…_GYRO.txt`, `…_MAGN.txt`, each `Phone
# timestamp;sensor timestamp [ns];X [UNIT];Y [UNIT];Z [UNIT]`: the phone's local date-time when a
# batch arrived (every row of a batch alike; batches of 5 rows, 65 ms late) and the sensor's own
# clock in ns since 2000-01-01; the accelerometer in mg, the gyroscope in dps, the magnetometer in
# gauss at 5 Hz.
POLAR_NS = round((EPOCH - 946684800) * 1e9)


def polar(suffix, unit, columns, scale, every=1):
    picked = rows[::every]
    lines = []
    for k, r in enumerate(picked):
        last = picked[min(len(picked) - 1, k // 5 * 5 + 4)][0]
        phone = iso(last + 0.065, zone='').replace('Z', '')
        lines.append([phone, '%d' % (POLAR_NS + round(r[0] * 1e9))] + ['%.4f' % (v * scale) for v in r[columns]])
    write('polar', 'Polar_Sense_B36B5B2A_20231114_221320_%s.txt' % suffix, [
        'Phone timestamp', 'sensor timestamp [ns]', 'X [%s]' % unit, 'Y [%s]' % unit, 'Z [%s]' % unit], lines, sep=';')


polar('ACC', 'mg', slice(4, 7), 1000 / G)
polar('GYRO', 'dps', slice(1, 4), DEG)
polar('MAGN', 'G', slice(7, 10), 0.01, every=5)
