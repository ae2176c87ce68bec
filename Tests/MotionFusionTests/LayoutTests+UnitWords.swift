import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionIO

/// Names read word by word: a temperature's word beside a sensor's (a temperature-compensated
/// gyroscope), units spelled out after the axis, and columns that look like a sensor's axes but
/// are not read, named in a note.
extension LayoutTests {
    /// The reference motion as a table: `time` (s), then each column a name and the value it
    /// writes of a sample (nil: empty).
    func referenceTable(_ columns: [(name: String, value: (SensorSample) -> Double?)]) -> String {
        let rows = Self.reference.samples.map { s in
            (["\(s.t)"] + columns.map { $0.value(s).map { "\($0)" } ?? "" }).joined(separator: ",")
        }
        return (["time," + columns.map(\.name).joined(separator: ",")] + rows).joined(separator: "\n") + "\n"
    }

    /// Reads a table written to a temporary file.
    func read(table: String) throws -> Read {
        let reader = try TraceFormat.open(path: TestData.writeTemporary(table), options: .init())
        let base = try XCTUnwrap((reader as? UnitCheckingReader)?.base as? DelimitedTraceReader)
        return Read(trace: try reader.readTrace(), layout: base.layout, names: base.rows.columnNames)
    }

    /// `gyro_temp_comp_x_dps` is a gyroscope (compensated for temperature) in deg/s, beside a
    /// temperature that stays no sensor; `raw_acceleration_x_meters_per_s_squared` is an
    /// accelerometer in m/s² (it was silently absent).
    func testTemperatureCompensatedGyroscopeAndMetresPerSecondSquared() throws {
        var columns: [(name: String, value: (SensorSample) -> Double?)] = [
            ("temperature_celsius", { _ in 21.5 }), ("pressure_pascals", { _ in 101_325 }),
        ]
        for (k, axis) in ["x", "y", "z"].enumerated() {
            columns.append(("gyro_temp_comp_\(axis)_dps", { $0.gyroscope.map { $0[k] * 180 / .pi } }))
        }
        for (k, axis) in ["x", "y", "z"].enumerated() {
            columns.append(("raw_acceleration_\(axis)_meters_per_s_squared", { $0.accelerometer.map { $0[k] } }))
        }
        let r = try read(table: referenceTable(columns))
        assertChosen(
            r, time: "time", gyr: "gyro_temp_comp_x_dps", acc: "raw_acceleration_x_meters_per_s_squared", mag: nil)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        XCTAssertEqual(r.layout.units.accelerometer, 1)
        // Read face up: acc z +9.81 within 0.05.
        XCTAssertEqual(try XCTUnwrap(r.trace.samples[0].accelerometer).z, 9.81, accuracy: 0.05)
        assertReference(r, sensors: [.gyroscope, .accelerometer], tolerance: 1e-5)
        XCTAssertFalse(r.notes.contains { $0.contains("ignoring") }, "\(r.notes)")
        for name in [
            "acc_x_m_per_s2", "acc_x_mps2", "acc_x_m_per_s_squared", "acc_x_meters_per_s_squared",
            "accel_x_metres_per_second_squared",
        ] {
            XCTAssertEqual(ColumnLayout.match(name)?.unit, "m/s2", name)
        }
        // Without a sensor's word a temperature, pressure or altitude is still no axis.
        for name in ["temp_x", "temperature_x", "altitude_z", "pressure_y_pascals"] {
            XCTAssertNil(ColumnLayout.match(name), name)
        }
    }

    /// A column that looks like a sensor's axis but that no rule reads (a unit not known) is named
    /// in a note in any delimited file, not only a native one; estimates and columns without an
    /// axis are not.
    func testUnreadSensorLikeColumnsAreNamedInANote() throws {
        var columns: [(name: String, value: (SensorSample) -> Double?)] = []
        for (k, axis) in ["x", "y", "z"].enumerated() {
            columns.append(("gyro_\(axis)_dps", { $0.gyroscope.map { $0[k] * 180 / .pi } }))
        }
        for (k, axis) in ["x", "y", "z"].enumerated() {
            columns.append(("acc_\(axis)_furlongs", { $0.accelerometer.map { $0[k] } }))
        }
        columns += [("est_acceleration_x_gs", { _ in 0 }), ("gyro_integral_dt", { _ in 0.04 })]
        let r = try read(table: referenceTable(columns))
        assertChosen(r, time: "time", gyr: "gyro_x_dps", acc: nil, mag: nil)
        let note = try XCTUnwrap(r.notes.first { $0.hasPrefix("ignoring unknown column(s)") }, "\(r.notes)")
        XCTAssert(note.contains("'acc_x_furlongs', 'acc_y_furlongs', 'acc_z_furlongs'; "), note)
        XCTAssert(note.contains("--columns"), note)
        XCTAssertFalse(note.contains("est_acceleration") || note.contains("integral"), note)
    }

    /// Axes numbered instead of lettered (MATLAB's `writetable` `acc_1`, R's `acc.1`, one-based
    /// `acc[1]` and `acc(1)`, bare `gyro1`, zero-based `acc_0`) read as x, y, z, with a unit after
    /// the number; a name numbered 1 and 2 only (two boards) is no sensor's axes.
    func testNumberedAxesReadAsXYZ() throws {
        let forms: [(acc: (Int) -> String, gyr: (Int) -> String, base: Int)] = [
            ({ "acc_\($0)" }, { "gyr_\($0)" }, 1), ({ "acc.\($0)" }, { "gyro.\($0)" }, 1),
            ({ "acc[\($0)]" }, { "gyr[\($0)]" }, 1), ({ "acc(\($0))" }, { "gyr(\($0))" }, 1),
            ({ "Accelerometer_\($0) (m/s^2)" }, { "Gyroscope_\($0) (rad/s)" }, 1),
            ({ "acc\($0)" }, { "gyro\($0)" }, 1), ({ "acc_\($0)" }, { "gyro_\($0)" }, 0),
            ({ "acc_\($0)(m/s^2)" }, { "gyro[\($0)][rad/s]" }, 1),
        ]
        for form in forms {
            var columns: [(name: String, value: (SensorSample) -> Double?)] = []
            for k in 0..<3 { columns.append((form.gyr(k + form.base), { $0.gyroscope.map { $0[k] } })) }
            for k in 0..<3 { columns.append((form.acc(k + form.base), { $0.accelerometer.map { $0[k] } })) }
            let r = try read(table: referenceTable(columns))
            assertChosen(r, time: "time", gyr: form.gyr(form.base), acc: form.acc(form.base), mag: nil)
            assertReference(r, sensors: [.gyroscope, .accelerometer], tolerance: 1e-9)
            XCTAssert(r.notes.contains { $0.contains("as the accelerometer's x, y, z (axes numbered") }, "\(r.notes)")
        }
        // Columns numbered 1 and 2 (two boards' accelerometers) are no axes.
        XCTAssertEqual(ColumnLayout.numberedAxisNames(["time", "acc1", "acc2", "gx", "gy", "gz"]), [:])
        XCTAssertEqual(ColumnLayout.numberedAxisNames(["acc_1", "acc_2", "acc_3", "acc_4"]), [:])
        // Numbers without a sensor's name stay unread.
        XCTAssertEqual(ColumnLayout.numberedAxisNames(["q1", "q2", "q3", "temp_1", "temp_2", "temp_3"]), [:])
        // One axis of three IMUs, pandas' and R's renaming of a repeated name (`gyro.1` is the
        // second `gyro`), and numbers beside the same sensor's lettered axes are no axes.
        for names in [
            ["gyro_z_1", "gyro_z_2", "gyro_z_3"], ["gyroZ1", "gyroZ2", "gyroZ3"],
            ["gyro", "gyro.1", "gyro.2", "gyro.3"], ["acc_x", "acc_y", "acc_z", "acc_1", "acc_2", "acc_3"],
        ] {
            XCTAssertEqual(ColumnLayout.numberedAxisNames(names), [:], "\(names)")
        }
        // PX4's zero-based arrays keep their own rule.
        XCTAssertEqual(ColumnLayout.numberedAxisNames(["gyro_rad[0]", "gyro_rad[1]", "gyro_rad[2]"]), [:])
    }
}
