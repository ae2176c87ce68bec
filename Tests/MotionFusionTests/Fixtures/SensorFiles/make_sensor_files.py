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
