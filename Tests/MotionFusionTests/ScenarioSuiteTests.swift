import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Behaviour in time windows against the simulator's exact truth: steady turns, a car on a circle,
/// a known gyroscope bias and rest after fast motion (issue 23). Each assertion states the window,
/// the observed value and the tolerance.
final class ScenarioSuiteTests: XCTestCase {
    /// The filters that integrate a gyroscope.
    static let gyroscopeKinds = FilterKind.allCases.filter { $0 != .ecompass && $0 != .tilt }
    /// The filters that measure the gyroscope bias at rest and bound it (``RestBiasJudge``). Mahony
    /// learns a bias only through its slow integral term and Madgwick's basic filter none, by design:
    /// their rates are checked, not their bias.
    static let biasKinds: [FilterKind] = [.ekf, .complementary]

    /// A fixed gyroscope bias, °/s (0.73 °/s in size), so the truth is exact.
    static let bias = Vector3(0.4, -0.3, 0.5) * (.pi / 180)

    /// Calibrated consumer-grade errors with the bias fixed, no bias walk, and no scale error or
    /// misalignment: a 0.5 % scale error at 100 °/s is itself a 0.5 °/s rate error that a filter
    /// may rightly absorb into its bias, which would blur what the bias assertions test.
    static func errors(bias: Vector3 = ScenarioSuiteTests.bias) -> SensorErrorModel {
        var e = SensorErrorModel.calibrated
        e.fixedGyroscopeBias = bias
        e.gyroscopeBiasRandomWalk = 0
        e.scaleError = 0
        e.misalignment = 0
        return e
    }

    static func steadyTurn(
        rate: Double, axis: MotionSimulator.Axis = .z, rest: Double = 2, duration: Double = 30,
        errors: SensorErrorModel = errors()
    ) -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = .steadyTurn
        s.turn.rateDegrees = rate
        s.turn.axis = axis
        s.turn.rest = rest
        s.duration = duration
        s.rate = 50
        s.errors = errors
        s.seed = 23
        return MotionSimulator(settings: s).run()
    }

    /// The heading turned per second, °/s, from `start` to the end: the sum of the sample-to-sample
    /// changes (each under 180°), so whole turns count.
    static func headingRate(_ attitudes: [Quaternion], _ samples: [SensorSample], from start: Double) -> Double {
        let first = samples.firstIndex { $0.t >= start }!
        var turned = 0.0
        for k in (first + 1)..<samples.count {
            let step = attitudes[k].headingDegrees() - attitudes[k - 1].headingDegrees()
            turned += (step + 540).truncatingRemainder(dividingBy: 360) - 180
        }
        // Heading is clockwise from north; a turn about +z (up) is counter-clockwise.
        return -turned / (samples.last!.t - samples[first].t)
    }

    /// Angle between the estimated and the true vertical, degrees.
    static func tiltError(_ estimate: Quaternion, _ truth: Quaternion) -> Double {
        let e = (estimate * truth.conjugate).normalized
        return (2 * (e.w * e.w + e.z * e.z).squareRoot().acosClamped).degrees
    }

    /// A consumer-grade car on a circle (`MotionSimulator`'s vehicle scenario), 120 s.
    static func vehicle(
        speed: Double = 10, radius: Double = 50, rate: Double = 100, seed: UInt64 = 1, duration: Double = 120,
        errors: SensorErrorModel = SensorErrorModel()
    ) -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = .vehicle
        s.vehicle.speed = speed
        s.vehicle.radius = radius
        s.duration = duration
        s.rate = rate
        s.errors = errors
        s.seed = seed
        return MotionSimulator(settings: s).run()
    }

    /// Asserts that the EKF's median tilt error over the last minute of `trace` is under `bound`
    /// degrees in both modes.
    static func assertMedianTiltUnder(
        _ bound: Double, _ trace: Trace, _ label: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        let window = trace.samples.last!.t - 60
        for mode in [FusionMode.nineD, .sixD] {
            let attitudes = RunConfiguration(.ekf, mode: mode).attitudes(trace.samples)
            XCTAssertLessThan(
                medianTiltError(attitudes, trace.samples, from: window), bound,
                "\(label)\(mode.rawValue): median tilt error over the last minute, °", file: file, line: line)
        }
    }

    /// Median tilt error (degrees) of `attitudes` over the samples from `start` on.
    static func medianTiltError(_ attitudes: [Quaternion], _ samples: [SensorSample], from start: Double) -> Double {
        var tilts = zip(attitudes, samples).filter { $1.t >= start }.map { tiltError($0, $1.truth!) }
        tilts.sort()
        return tilts[tilts.count / 2]
    }

    /// Angle of the error rotation about the vertical (earth z), degrees, in [0, 180]: the heading
    /// error that stays defined when the device points up or down.
    static func verticalError(_ estimate: Quaternion, _ truth: Quaternion) -> Double {
        let e = (estimate * truth.conjugate).normalized
        let angle = abs(2 * atan2(e.z, e.w)).degrees
        return min(angle, 360 - angle)
    }

    /// RMS heading error (°) of `estimates` of `trace` over its samples from `from` to `to` s.
    static func rmsHeadingError(_ estimates: [MotionEstimate], _ trace: Trace, from: Double, to: Double) -> Double {
        var sum = 0.0
        var count = 0.0
        for (e, sample) in zip(estimates, trace.samples) where sample.t >= from && sample.t < to {
            let error = verticalError(e.attitude, sample.truth!)
            sum += error * error
            count += 1
        }
        return (sum / count).squareRoot()
    }

    /// The default filter's 6D heading turns at the true rate within `tolerance` °/s over the
    /// trace's last minute.
    static func assertSixDHeadingRate(
        _ trace: Trace, within tolerance: Double, _ label: String = "", line: UInt = #line
    ) {
        let window = trace.samples.last!.t - 60
        let trueRate = headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
        let q = RunConfiguration(.ekf, mode: .sixD).attitudes(trace.samples)
        XCTAssertEqual(
            headingRate(q, trace.samples, from: window), trueRate, accuracy: tolerance,
            label + "6D heading rate (°/s) over the last minute", line: line)
    }

    /// Signed heading error, degrees, in (-180, 180].
    static func headingError(_ estimate: Quaternion, _ truth: Quaternion) -> Double {
        let d = estimate.headingDegrees() - truth.headingDegrees()
        return (d + 540).truncatingRemainder(dividingBy: 360) - 180
    }

    /// Over the last 20 s of a turn about the vertical, the estimated heading rate is the true rate
    /// within 1 %, and the learnt bias stays within 0.5 °/s of the true bias.
    ///
    /// In 6D a bias about the vertical cannot be told from the turn once the device moves (only a
    /// rest reveals it), so there the rate may also be off by the true vertical bias (0.5 °/s) and
    /// only the horizontal bias components are checked.
    func checkTurnAboutVertical(rate: Double, rest: Double) {
        let trace = Self.steadyTurn(rate: rate, rest: rest)
        let truth = trace.samples.map { $0.truth! }
        let window = trace.samples.last!.t - 20
        let trueRate = Self.headingRate(truth, trace.samples, from: window)
        XCTAssertEqual(trueRate, rate, accuracy: 1e-6 * rate, "the simulated turn itself")
        for kind in Self.gyroscopeKinds {
            for mode in kind.modes {
                let estimates = RunConfiguration(kind, mode: mode).estimates(trace.samples)
                let observed = Self.headingRate(estimates.map(\.attitude), trace.samples, from: window)
                // 1 % of the rate for the default filter: with scale error off the gyroscope reads
                // the rate exactly plus a 0.73 °/s bias; at 10 °/s 1 % is 0.1 °/s, a seventh of that
                // bias. The others correct the heading through a fixed gain while their bias term
                // still moves (Mahony's integral, the complementary filter's 40 s one), which shifts
                // the rate by up to about 1 % more.
                let unobservable = mode == .sixD ? abs(Self.bias.z.degrees) : 0
                let share = kind == .ekf ? 0.01 : 0.02
                XCTAssertEqual(
                    observed, trueRate, accuracy: share * rate + unobservable,
                    "\(kind) \(mode.rawValue), \(rate) °/s, rest \(rest) s: heading rate over the last 20 s")
                // Without a rest only the EKF's covariance lets the field reveal the vertical bias
                // within the run; the complementary filter's 40 s integral needs longer.
                guard Self.biasKinds.contains(kind), rest > 0 || kind == .ekf else { continue }
                var worst = 0.0
                for (e, s) in zip(estimates, trace.samples) where s.t >= window {
                    var error = e.gyroscopeBias - Self.bias
                    if mode == .sixD { error.z = 0 }
                    worst = max(worst, error.norm.degrees)
                }
                XCTAssertLessThan(
                    worst, 0.5,
                    "\(kind) \(mode.rawValue), \(rate) °/s, rest \(rest) s: largest bias error (°/s) over the last 20 s"
                )
            }
        }
    }

    /// The simulator is exact: with ideal sensors a steady turn reads its rate after the spin-up,
    /// a car on a circle reads its yaw rate v/r and the centripetal v²/r along body +y, and fixed
    /// sensor errors are applied as given.
    func testScenariosAreExact() {
        var e = SensorErrorModel.ideal
        let turn = Self.steadyTurn(rate: 100, axis: .y, duration: 5, errors: e)
        for s in turn.samples where s.t >= 3.01 {
            assertClose(s.gyroscope!, Vector3(0, 100.0.radians, 0), tolerance: 1e-12)
        }
        for s in turn.samples where s.t <= 2 { XCTAssertEqual(s.gyroscope!, .zero) }
        e.fixedGyroscopeBias = Vector3(0, 0, 10.0.radians)
        e.fixedHardIron = Vector3(30, 40, 0)
        e.fixedSoftIron = Matrix3(Vector3(1.1, 0, 0), Vector3(0, 0.9, 0), Vector3(0, 0, 1))
        var s = MotionSimulator.Settings()
        s.scenario = .vehicle
        s.duration = 8
        s.rate = 25
        s.errors = e
        let simulator = MotionSimulator(settings: s)
        let car = simulator.run()
        let last = car.samples.last!
        assertClose(last.gyroscope!, Vector3(0, 0, 0.2 + 10.0.radians), tolerance: 1e-12)
        assertClose(last.accelerometer!, Vector3(0, 2, 9.81), tolerance: 1e-9)
        assertClose(
            last.magnetometer!, e.fixedSoftIron! * last.truth!.inverseRotate(simulator.earthField) + e.fixedHardIron!,
            tolerance: 1e-9)
        assertClose(car.samples.first!.accelerometer!, Vector3(0, 0, 9.81), tolerance: 1e-12)
    }

    func testSteadyTurnAboutVerticalAt10DegreesPerSecond() { checkTurnAboutVertical(rate: 10, rest: 2) }

    func testSteadyTurnAboutVerticalAt100DegreesPerSecond() { checkTurnAboutVertical(rate: 100, rest: 2) }

    /// The turn starts at the first sample: the filter never sees the device at rest.
    func testSteadyTurnFromTheFirstSample() { checkTurnAboutVertical(rate: 10, rest: 0) }

    /// In 6D a turn about the vertical from the first sample never shows the bias along the
    /// sensor's up axis (gravity stays on that axis), so the EKF learns none there: with calibrated
    /// consumer errors (misalignment, scale, accelerometer bias that turn with the sensor), the tilt
    /// corrections of a 20 °/s turn used to drive it to the 2 °/s bound within 40 s, and the
    /// heading then drifted at that rate (72° over 120 s, VQF 41°). Over the last minute the heading
    /// rate is the true rate within the vertical bias it cannot know plus 1 %.
    func testSteadyTurnLearnsNoVerticalBiasIn6D() {
        var errors = SensorErrorModel.calibrated
        errors.fixedGyroscopeBias = Self.bias
        errors.gyroscopeBiasRandomWalk = 0
        for rate in [5.0, 20] {
            let trace = Self.steadyTurn(rate: rate, rest: 0, duration: 120, errors: errors)
            let window = trace.samples.last!.t - 60
            let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
            let estimates = RunConfiguration(.ekf, mode: .sixD).estimates(trace.samples)
            let observed = Self.headingRate(estimates.map(\.attitude), trace.samples, from: window)
            XCTAssertEqual(
                observed, trueRate, accuracy: abs(Self.bias.z.degrees) + 0.01 * rate,
                "ekf 6d, \(rate) °/s from the first sample: heading rate over the last minute")
            let vertical = estimates.map { abs($0.gyroscopeBias.z) }.max()!
            XCTAssertLessThan(vertical.degrees, 0.3, "\(rate) °/s: largest bias learnt along the up axis, °/s")
        }
    }

    /// The same car sampled at 1000 Hz (seed 1): the accelerometer gate, judged with the noise of
    /// one sample, widened with the rate and never rejected the centripetal force, so the EKF took
    /// most of it for tilt (6D 28°, median tilt error 7.7°). The gate now assumes samples no closer
    /// than 10 ms; the median tilt error over the last minute is under 6° in both modes.
    func testVehicleAt1000HzIsNotTilt() {
        Self.assertMedianTiltUnder(6, Self.vehicle(rate: 1000))
    }

    /// A first rest of 2 s before a turn measures the bias: the rest judge says rest after 1.5 s,
    /// and the complementary filter, whose bias followed the rate with a 1 s time constant, had
    /// learnt under half of it by the turn (in 6D the rest then drifted with the heading: 8.8° over
    /// a minute at 5 °/s). Its bias is now the mean rate since the rest began; at the end of the
    /// rest it is within 0.1 °/s of the truth on every axis, as the EKF's is.
    func testFirstShortRestMeasuresTheBias() {
        let trace = Self.steadyTurn(rate: 10, rest: 2)
        let end = trace.samples.lastIndex { $0.t < 2 }!
        for kind in [FilterKind.ekf, .complementary] {
            for mode in kind.modes {
                let estimates = RunConfiguration(kind, mode: mode).estimates(trace.samples)
                let error = (estimates[end].gyroscopeBias - Self.bias).norm.degrees
                XCTAssertLessThan(error, 0.1, "\(kind) \(mode.rawValue): bias error (°/s) at the end of the rest")
            }
        }
    }

    /// In 6D only a rest shows the bias along the vertical. The EKF took the gyroscope's mean at a
    /// first rest against its prior (0.5 °/s about zero), which kept 5–10 % of a vertical bias after
    /// a 2 s rest, and the heading of the turn that followed drifted by it (3.8° over a minute at
    /// 5 °/s; here 0.067 °/s of drift with a vertical bias of 1.25 °/s). Without a magnetometer the
    /// bias variance along the up axis is now widened to the rest judge's bound at a first rest:
    /// over the 40 s of a 5 °/s turn after a 2 s rest, the 6D heading turns at the true rate within
    /// 0.025 °/s (about 0.01 now), with a vertical bias of 1 and of 1.25 °/s.
    func testFirstShortRestGivesTheVerticalBiasIn6D() {
        for scale in [2.0, 2.5] {
            let trace = Self.steadyTurn(rate: 5, rest: 2, duration: 45, errors: Self.errors(bias: Self.bias * scale))
            let window = 5.0
            let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
            let q = RunConfiguration(.ekf, mode: .sixD).attitudes(trace.samples)
            XCTAssertEqual(
                Self.headingRate(q, trace.samples, from: window), trueRate, accuracy: 0.025,
                "vertical bias \((Self.bias.z * scale).degrees) °/s: 6D heading rate (°/s) over the turn")
        }
    }

    /// A still device in 6D with a vertical bias of 1.9 °/s: the heading turns by the bias during
    /// the 1.5 s the rest detector waits, and the first rest, which measures the bias, turns it
    /// back through the bias's correlation with the heading. Widening the bias's variance alone
    /// (a first version) left that turn as a step (2.7° on a similar trace); over 8 s still it moves
    /// by less than 0.5°.
    func testFirstRestTurnsBackTheHeadingItsBiasTurned() {
        let trace = Self.simulated(
            .rest, duration: 8, errors: Self.errors(bias: Vector3(0, 0, 1.9) * (.pi / 180)), rate: 100)
        let q = RunConfiguration(.ekf, mode: .sixD).attitudes(trace.samples)
        let turned = Self.headingError(q.last!, q[1])
        XCTAssertLessThan(abs(turned), 0.5, "6D heading change (°) over 8 s still")
    }

    /// A steady roll at 30 °/s turns gravity through the sensor frame: over the last 20 s the tilt
    /// stays within 2°.
    func testSteadyRollKeepsTilt() {
        let trace = Self.steadyTurn(rate: 30, axis: .x)
        let window = trace.samples.last!.t - 20
        for kind in Self.gyroscopeKinds {
            for mode in kind.modes {
                let q = RunConfiguration(kind, mode: mode).attitudes(trace.samples)
                var worst = 0.0
                for (e, s) in zip(q, trace.samples) where s.t >= window {
                    worst = max(worst, Self.tiltError(e, s.truth!))
                }
                XCTAssertLessThan(worst, 2, "\(kind) \(mode.rawValue): largest tilt error (°) over the last 20 s")
            }
        }
    }

    /// A steady roll at 10 °/s for 300 s turns the field about the sensor's x axis only: its
    /// readings lie on one circle, which determines no calibration, so the on-line fit is never
    /// adopted and the 9D heading stays within 3° of the truth (a fit from the circle once moved it
    /// by 22°).
    func testSteadyRollDoesNotCalibrateTheMagnetometerFromACircle() {
        var e = Self.errors()
        e.hardIron = 0
        e.softIron = 0
        let trace = Self.steadyTurn(rate: 10, axis: .x, duration: 300, errors: e)
        for kind in [FilterKind.ekf, .complementary] {
            var worst = 0.0
            var accuracy = MagnetometerSelfCalibration.Accuracy.uncalibrated
            let estimates = RunConfiguration(kind, mode: .nineD).estimates(trace.samples)
            for (e, s) in zip(estimates, trace.samples) where s.t >= 10 {
                worst = max(worst, Self.headingError(e.attitude, s.truth!))
                accuracy = max(accuracy, e.diagnostics.magnetometerAccuracy)
            }
            XCTAssertLessThan(worst, 3, "\(kind): largest heading error (°) after the first 10 s")
            XCTAssertEqual(accuracy, .uncalibrated, "\(kind): no fit from readings on one circle")
        }
    }

    /// A level device in a car on a circle for 40 s (10 m/s, radius 50 m: 11.46 °/s and 2 m/s² to
    /// the centre), at 50 Hz.
    static func drive() -> Trace { simulated(.vehicle, duration: 40) }

    /// A scenario at `rate` Hz (default 50) with the suite's fixed errors (``errors(bias:)``) or `errors`,
    /// seed 23.
    static func simulated(
        _ scenario: MotionSimulator.Scenario, duration: Double, errors: SensorErrorModel = errors(), rate: Double = 50,
        seed: UInt64 = 23
    ) -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = scenario
        s.duration = duration
        s.rate = rate
        s.errors = errors
        s.seed = seed
        return MotionSimulator(settings: s).run()
    }

    /// A level device in a car on a circle (10 m/s, radius 50 m: 11.46 °/s and 2 m/s² to the
    /// centre): over the last 20 s the 9D heading turns at the true rate within 15 %.
    func testVehicleOnCircleKeepsTurning() {
        let trace = Self.drive()
        let window = trace.samples.last!.t - 20
        let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
        XCTAssertEqual(trueRate, (10.0 / 50).degrees, accuracy: 1e-6, "the simulated drive itself")
        for kind in Self.gyroscopeKinds {
            let q = RunConfiguration(kind, mode: .nineD).attitudes(trace.samples)
            let observed = Self.headingRate(q, trace.samples, from: window)
            // The steady centripetal 2 m/s² reads as a tilt of about 11.5° to every filter without
            // the vehicle's speed (VQF too), which skews the heading rate read from the estimated
            // frame by some percent; what must never happen is a turn learnt as bias (a rate near
            // zero). 15 % holds both.
            XCTAssertEqual(
                observed, trueRate, accuracy: 0.15 * trueRate, "\(kind) 9d: heading rate (°/s) over the last 20 s")
        }
    }

    /// A car already on its circle at the first sample (10 m/s, radius 50 m), the suite's fixed
    /// errors with the car's iron as a hard iron (µT), seed 23.
    static func carFromTheFirstSample(duration: Double, rate: Double, hardIron: Vector3) -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = .vehicle
        s.vehicle.rest = 0
        s.duration = duration
        s.rate = rate
        s.errors = errors()
        s.errors.fixedHardIron = hardIron
        s.seed = 23
        return MotionSimulator(settings: s).run()
    }

    /// A car already on its circle at the first sample, with the car's iron on the magnetometer
    /// (a 100 µT hard iron, twice the earth's field): the horizontal field barely turns in
    /// direction, which once proved the turn to be a gyroscope offset (the bias became the turn
    /// rate, 0.2 rad/s, and the heading stopped; a VN-100 in a car: −71° of −1 534°). The field
    /// itself moves by tens of µT, so no offset is proven: each bias component stays within its
    /// 2 °/s bound and over the last 20 s the 9D heading turns at the true rate within 15 %.
    func testACarTurningFromTheFirstSampleWithItsIronIsNoOffset() throws {
        let trace = Self.carFromTheFirstSample(duration: 60, rate: 50, hardIron: Vector3(60, -80, 10))
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples)
        let largest = estimates.map { b in max(abs(b.gyroscopeBias.x), abs(b.gyroscopeBias.y), abs(b.gyroscopeBias.z)) }
            .max()!
        XCTAssertLessThan(largest, 2.1.radians, "largest bias component (rad/s)")
        let window = trace.samples.last!.t - 20
        let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
        let observed = Self.headingRate(estimates.map(\.attitude), trace.samples, from: window)
        XCTAssertEqual(observed, trueRate, accuracy: 0.15 * abs(trueRate), "9d heading rate (°/s) over the last 20 s")
    }

    /// The same car with its iron (36 µT across the vertical, more than the earth's horizontal
    /// field) and the field wandering by about 1.5 µT per axis over a second or two, as a car's own
    /// currents move it (a VN-100 log of a car circling): the gyroscope's 20° turns misfit the hard
    /// iron by about a fifth of their chord, which once kept the single-axis fit out, so the heading
    /// followed readings that turned by a fraction of the true turn. The hard iron across the
    /// vertical is now fitted within 40 s (low level), and over the last 20 s the heading turns at
    /// the true rate within 5 %.
    func testACarsNoisyFieldIsCalibratedFromItsTurns() throws {
        var trace = Self.carFromTheFirstSample(duration: 90, rate: 40, hardIron: Vector3(25, 27, 0))
        for i in trace.samples.indices {
            let t = trace.samples[i].t
            // Sums of two slow sines per axis, periods 0.9–3.1 s, about 1.5 µT RMS each.
            let wander = Vector3(
                1.4 * (2 * Double.pi * t / 1.3).sin + 1.0 * (2 * Double.pi * t / 2.9 + 1).sin,
                1.4 * (2 * Double.pi * t / 1.7 + 2).sin + 1.0 * (2 * Double.pi * t / 0.9).sin,
                1.4 * (2 * Double.pi * t / 3.1 + 3).sin + 1.0 * (2 * Double.pi * t / 1.1 + 4).sin)
            trace.samples[i].magnetometer = trace.samples[i].magnetometer.map { $0 + wander }
        }
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples)
        let calibrated = zip(estimates, trace.samples).first { $0.0.diagnostics.magnetometerAccuracy >= .low }?.1.t
        XCTAssertLessThan(calibrated ?? .infinity, 40, "time (s) when the hard iron across the vertical was fitted")
        let window = trace.samples.last!.t - 20
        let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
        let observed = Self.headingRate(estimates.map(\.attitude), trace.samples, from: window)
        XCTAssertEqual(observed, trueRate, accuracy: 0.05 * abs(trueRate), "9d heading rate (°/s) over the last 20 s")
    }

    /// A car on a circle with consumer-grade errors (drawn bias, noise, scale): its speed ramp and
    /// then the steady centripetal force were taken for tilt once the accelerometer had been
    /// rejected for long, and the EKF learnt from them a vertical bias up to its 2 °/s bound, so
    /// the 6D heading turned too slowly by up to 1.7 °/s. Over the last minute the 6D heading now
    /// turns at the true rate within 0.5 °/s, and the median tilt error is under 6° in both modes,
    /// on three seeds.
    func testVehicleHeadingRateIn6DWithConsumerErrors() {
        for seed: UInt64 in [1, 2, 3] {
            let trace = Self.vehicle(seed: seed)
            Self.assertSixDHeadingRate(trace, within: 0.5, "seed \(seed): ")
            // The tilt: the centripetal 11.5° is not taken for tilt while the steady turn may yet
            // be proven (seed 2 kept 8° of it before, in both modes). What is left is the turn's
            // axis as the gyroscope gives it, tilted by the bias it could not yet learn at rest.
            Self.assertMedianTiltUnder(6, trace, "seed \(seed) ")
        }
    }

    /// A car speeding up to 25 m/s over 3 s, then in a long bend (300 m: 4.8 °/s, 2.1 m/s² across
    /// it), consumer-grade errors: the speeding up is no tilt, and the bend's force, which a bias
    /// across the slow turn's axis could also explain, teaches no bias. Over the last minute the
    /// median tilt error is under 3° in both modes (it was 12°: the bias the ramp and the bend
    /// taught tilted the turn's axis by the centripetal angle), and the 6D heading turns at the
    /// true rate.
    func testVehicleInAGentleBendIsNotTilt() {
        let trace = Self.vehicle(speed: 25, radius: 300)
        Self.assertMedianTiltUnder(3, trace)
        Self.assertSixDHeadingRate(trace, within: 0.15)
    }

    /// Turning at 10 °/s, level, from the first sample, with a 1 °/s bias about the vertical: the
    /// 9D heading is within 3° at the end of 30 s for the EKF, whose covariance lets the field
    /// reveal the vertical bias at once. The complementary filter corrects the heading at a fixed
    /// gain (6 s) and learns the bias through a slow integral (40 s), so it lags by up to the bias
    /// times its gain's time constant until the integral has caught up: it is checked after 60 s.
    func testHeadingWithBiasAfterMotion() {
        for (kind, duration) in [(FilterKind.ekf, 30.0), (.complementary, 60)] {
            let trace = Self.steadyTurn(
                rate: 10, rest: 0, duration: duration, errors: Self.errors(bias: Vector3(0, 0, 1.0.radians)))
            let q = RunConfiguration(kind, mode: .nineD).attitudes(trace.samples)
            let error = Self.headingError(q.last!, trace.samples.last!.truth!)
            XCTAssertLessThan(abs(error), 3, "\(kind) 9d: heading error (°) after \(duration) s")
        }
    }

    /// A consumer part's bias wanders (the simulator's 0.0002 rad/s/√s; temperature does it in a
    /// real one): over 20 minutes of slow rotation between two rests the 9D EKF follows it through
    /// the magnetometer and the accelerometer, at ``KalmanFilter/Parameters/biasRandomWalk``'s
    /// pace. A bias held at the 6D pace (``KalmanFilter/Parameters/sixDBiasRandomWalk``) lags it,
    /// and the attitude with it. In 6D the faster pace would follow it too (the inclination gains
    /// here), but on BROAD's short trials the tilt corrections then take accelerations for bias
    /// (the tuning log): the 6D default stays slow.
    func testA9DBiasFollowsItsWanderThroughLongMotion() {
        var errors = SensorErrorModel.calibrated
        errors.gyroscopeBiasRandomWalk = 0.0002
        let trace = Self.simulated(.slowRotation, duration: 1500, errors: errors, seed: 3)
        func rmsError(_ mode: FusionMode, _ parameter: String, _ walk: Double?) -> AttitudeErrorMetric.Result {
            var configuration = RunConfiguration(.ekf, mode: mode)
            if let w = walk { XCTAssertNoThrow(try configuration.filter.setParameter(parameter, w)) }
            let estimates = configuration.attitudes(trace.samples)
            return AttitudeErrorMetric.evaluate(estimates: estimates, trace: trace, mode: mode)!
        }
        let followed = rmsError(.nineD, "biasRandomWalk", nil).totalRMSE
        let held = rmsError(.nineD, "biasRandomWalk", KalmanFilter.Parameters().sixDBiasRandomWalk).totalRMSE
        XCTAssertLessThan(followed, 1.4, "9d: total RMS error (°) over 1 500 s")
        XCTAssertLessThan(followed, 0.75 * held, "9d: total RMS error (°), the bias followed against held")
        let sixD = rmsError(.sixD, "sixDBiasRandomWalk", nil).inclinationRMSE
        let sixDFollowed = rmsError(.sixD, "sixDBiasRandomWalk", KalmanFilter.Parameters().biasRandomWalk)
        XCTAssertLessThan(
            sixDFollowed.inclinationRMSE, sixD, "6d: inclination RMS error (°), faster walk against default")
    }

    /// A bias that wandered in motion further than the random walk allows (a part warming up) is
    /// measured afresh by the next rest. Slow rotation between two 30 s rests, with 0.4 °/s added
    /// to the gyroscope from 100 s on: the first rest had made the EKF sure of the old bias (its 6D
    /// walk allows about 0.003 °/s over the 4 minutes), so the last rest only nudged it (still
    /// 0.28 °/s off 10 s into it, 0.22 °/s at the end) and the 6D heading turned by 7.9° over its
    /// last 15 s. Now, from 10 s into the last rest on, the 6D bias is within 0.05 °/s of the truth
    /// (the 9D one, which the field keeps near it in motion, too), and the 6D heading turns by less
    /// than 0.2° over the last 15 s.
    func testARestMeasuresABiasThatWanderedInMotion() {
        var trace = Self.simulated(.slowRotation, duration: 300)
        let step = Vector3(0.1, -0.15, 0.35) * (.pi / 180)
        for k in trace.samples.indices where trace.samples[k].t >= 100 {
            trace.samples[k].gyroscope = trace.samples[k].gyroscope.map { $0 + step }
        }
        let truth = Self.bias + step
        let lastRest = trace.samples.firstIndex { $0.t >= 280 }!
        let window = trace.samples.firstIndex { $0.t >= 285 }!
        for mode in FusionMode.allCases {
            let estimates = RunConfiguration(.ekf, mode: mode).estimates(trace.samples)
            for k in lastRest..<estimates.count {
                XCTAssertLessThan(
                    (estimates[k].gyroscopeBias - truth).norm.degrees, 0.05,
                    "\(mode.rawValue): bias error (°/s) at \(trace.samples[k].t) s")
            }
            if mode == .sixD {
                let turned = Self.headingError(estimates.last!.attitude, estimates[window].attitude)
                XCTAssertLessThan(abs(turned), 0.2, "6d: heading change (°) over the last 15 s at rest")
            }
        }
    }

    /// Fast rotation (3 s) then rest: at the end of the rest every filter has the tilt within 1°.
    func testTiltAfterFastMotionAndRest() {
        let trace = Self.simulated(.longRest, duration: 30)
        for kind in FilterKind.allCases {
            for mode in kind.modes {
                let q = RunConfiguration(kind, mode: mode).attitudes(trace.samples)
                let error = Self.tiltError(q.last!, trace.samples.last!.truth!)
                // 1° for the filters that detect rest; Mahony and Madgwick correct the tilt at a
                // fixed gain whatever the motion, and keep some of the fast motion's error: 2°.
                let bound = Self.biasKinds.contains(kind) || kind == .ecompass || kind == .tilt ? 1.0 : 2.0
                XCTAssertLessThan(error, bound, "\(kind) \(mode.rawValue): tilt error (°) at the end of the rest")
            }
        }
    }

    /// A gyroscope offset far beyond any bias (10 °/s per axis on a level device at rest) is taken
    /// from the first still stretch: after 5 s the tilt is within 1° and the bias within 0.2 °/s.
    func testGyroscopeOffsetTakenFromTheFirstRest() {
        let bias = Vector3(10, -7, 5) * (.pi / 180)
        let trace = Self.simulated(.rest, duration: 20, errors: Self.errors(bias: bias))
        for kind in Self.biasKinds {
            for mode in kind.modes {
                let estimates = RunConfiguration(kind, mode: mode).estimates(trace.samples)
                for (e, sample) in zip(estimates, trace.samples) where sample.t >= 5 {
                    XCTAssertLessThan(
                        Self.tiltError(e.attitude, sample.truth!), 1,
                        "\(kind) \(mode.rawValue): tilt (°) at \(sample.t) s")
                    XCTAssertLessThan(
                        (e.gyroscopeBias - bias).norm.degrees, 0.2,
                        "\(kind) \(mode.rawValue): bias error (°/s) at \(sample.t) s")
                }
            }
        }
    }

    /// A still device whose gyroscope reads a vertical offset just beyond the bias bound
    /// (2.15 °/s about up), with a magnet brought near after 20 s (the field halved and turned by
    /// 40°). The change of field proved the offset at its first sample, and the EKF started its
    /// attitude again from that reading: the heading jumped 40° and the disturbed field became the
    /// reference, taken for 40 s (BROAD's attached-magnet trial 33 with a 5 °/s bias: 2.4° → 19°).
    /// A field whose strength or vertical part changed proves no offset, and a reading that departs
    /// from the learnt field sets no heading: the 9D heading stays within 8° of the truth (what a
    /// bias held at its bound drifts while the field is rejected).
    func testAMagnetBroughtNearSetsNoHeadingAtAnOffset() {
        var errors = SensorErrorModel.ideal
        errors.fixedGyroscopeBias = Vector3(0.3, -0.2, 2.15) * (.pi / 180)
        errors.gyroscopeNoiseDensity = 0.0002
        errors.magnetometerNoise = 0.3
        var trace = Self.simulated(.rest, duration: 60, errors: errors, rate: 100, seed: 1)
        let turn = Quaternion(axis: .unitZ, angle: 40.0.radians)
        for i in trace.samples.indices where trace.samples[i].t >= 20 {
            trace.samples[i].magnetometer = trace.samples[i].magnetometer.map { turn.rotate($0) * 0.5 }
        }
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples)
        var worst = 0.0
        for (e, sample) in zip(estimates, trace.samples) where sample.t >= 5 {
            worst = max(worst, Self.verticalError(e.attitude, sample.truth!))
        }
        XCTAssertLessThan(worst, 8, "largest 9D heading error (°) from 5 s on")
    }

    /// Hard iron as large as the earth's field (50 µT) and ±8 % soft iron, while the device tumbles
    /// through all orientations at up to 5 rad/s: the on-line calibration reaches medium or high
    /// accuracy, and over the last 30 s of 90 the RMS heading error (about the vertical, in the earth
    /// frame) is within 3°, and within 0.5° of the same filter's on a magnetometer without iron.
    /// Uncalibrated, it is off by about 150°.
    /// A magnet moving about the device for 20 minutes of a long mixed run (the simulator's
    /// consumer-grade errors: a bias that wanders, hard and soft iron): the field never steadies,
    /// so it is never adopted, yet after ``KalmanFilter/Parameters/maximumRejectionTime`` it is
    /// used again, down-weighted. Its error averages out, where the heading drift of a gyroscope
    /// whose bias wanders unobserved does not.
    func testLongDisturbanceDoesNotLeaveTheHeadingToTheGyroscope() {
        for seed: UInt64 in [2, 3] {
            var s = MotionSimulator.Settings()
            s.scenario = .mixed
            s.duration = 10_000
            s.rate = 25
            s.seed = seed
            let trace = MotionSimulator(settings: s).run()
            func rmsError(_ factor: Double) -> Double {
                var configuration = RunConfiguration(.ekf, mode: .nineD)
                XCTAssertNoThrow(try configuration.filter.setParameter("longRejectionNoiseFactor", factor))
                let estimates = configuration.attitudes(trace.samples)
                return AttitudeErrorMetric.evaluate(estimates: estimates, trace: trace, mode: .nineD)!.totalRMSE
            }
            let used = rmsError(2)
            let gyroOnly = rmsError(1e9)
            XCTAssertLessThan(used, gyroOnly, "seed \(seed): total RMS error (°), field used again against never")
            XCTAssertLessThan(used, 12, "seed \(seed): total RMS error (°) over the 10 000 s run")
        }
    }

    func testHardAndSoftIronCalibratedOnLine() {
        func trace(iron: Bool) -> Trace {
            var e = Self.errors()
            if iron {
                e.fixedHardIron = Vector3(30, -25, 31)
                e.fixedSoftIron = Matrix3(
                    Vector3(1.08, 0.03, -0.02), Vector3(0.03, 0.92, 0.04), Vector3(-0.02, 0.04, 1.03))
            }
            return Self.simulated(.fastRotation, duration: 90, errors: e)
        }
        let withIron = trace(iron: true)
        let clean = trace(iron: false)
        func rmsHeadingError(_ kind: FilterKind, _ trace: Trace) -> (Double, MagnetometerSelfCalibration.Accuracy) {
            let estimates = RunConfiguration(kind, mode: .nineD).estimates(trace.samples)
            var sum = 0.0
            var count = 0.0
            for (q, sample) in zip(estimates, trace.samples) where sample.t >= 60 {
                let e = Self.verticalError(q.attitude, sample.truth!)
                sum += e * e
                count += 1
            }
            return ((sum / count).squareRoot(), estimates.last!.diagnostics.magnetometerAccuracy)
        }
        for kind in Self.biasKinds {
            let (error, accuracy) = rmsHeadingError(kind, withIron)
            let (cleanError, _) = rmsHeadingError(kind, clean)
            XCTAssertGreaterThanOrEqual(accuracy, .medium, "\(kind): calibration level at the end")
            XCTAssertLessThan(error, 3, "\(kind) 9d: RMS heading error (°) over the last 30 s")
            XCTAssertLessThan(
                error, cleanError + 0.5, "\(kind) 9d: RMS heading error (°) against \(cleanError)° without iron")
        }
    }

    /// Free rotation from the first sample with a hard iron (2.4 times the earth's field) and soft
    /// iron: until a calibration is in use the heading follows readings that point far from north,
    /// so a first fit is tried as soon as the turns allow one, not at the two-second refits. From
    /// 1.5 to 4.5 s into the rotation (about 340 °/s) the 9D heading of both filters is within 5°,
    /// and so is a filter whose early fits are switched off once its regular refits have caught up
    /// (over the last 20 s).
    func testHardIronCalibratedWithinTheFirstSecondsOfFreeRotation() {
        var e = Self.errors()
        e.fixedHardIron = Vector3(30, -25, 31)
        e.fixedSoftIron = Matrix3(
            Vector3(1.08, 0.03, -0.02), Vector3(0.03, 0.92, 0.04), Vector3(-0.02, 0.04, 1.03))
        // The script's leading rest (6 s) is left out: the rotation starts at the first sample.
        var trace = Self.simulated(.fastRotation, duration: 40, errors: e, rate: 100)
        trace.samples = trace.samples.filter { $0.t >= 6 }
        for kind in Self.biasKinds {
            // Live input: sample by sample, without the look-ahead that starts a recording calibrated.
            var live = RunConfiguration(kind, mode: .nineD)
            live.magnetometerLookAhead = 0
            let estimates = live.estimates(trace.samples)
            XCTAssertLessThan(
                Self.rmsHeadingError(estimates, trace, from: 7.5, to: 10.5), 5,
                "\(kind) 9d: RMS heading error (°) 1.5–4.5 s in")
            var noEarlyFits = live
            XCTAssertNoThrow(
                try noEarlyFits.filter.setParameter("magnetometerCalibration.uncalibratedRefitInterval", 1000))
            let late = noEarlyFits.estimates(trace.samples)
            XCTAssertLessThan(
                Self.rmsHeadingError(late, trace, from: 20, to: 40), 5,
                "\(kind) 9d without early fits: RMS heading error (°)")
        }
    }

    /// A turn about the vertical from the first sample, for longer than a full turn and at rates up
    /// to 500 °/s: the default filter (9D) never takes it for a gyroscope offset, although the
    /// horizontal field comes back to where it started after every full turn. Over the last 20 s the
    /// heading turns at the true rate within 1 %.
    func testSteadyTurnFromTheFirstSampleBeyondAFullTurn() {
        for (rate, duration) in [(10.0, 60.0), (100, 30), (500, 30)] {
            let trace = Self.steadyTurn(rate: rate, rest: 0, duration: duration)
            let window = trace.samples.last!.t - 20
            let trueRate = Self.headingRate(trace.samples.map { $0.truth! }, trace.samples, from: window)
            let q = RunConfiguration(.ekf, mode: .nineD).attitudes(trace.samples)
            let observed = Self.headingRate(q, trace.samples, from: window)
            XCTAssertEqual(
                observed, trueRate, accuracy: 0.01 * rate, "ekf 9d, \(rate) °/s from the first sample: heading rate")
        }
    }

    /// A car on a circle (11.46 °/s, 2 m/s² to the centre, which a filter taking the specific force
    /// for gravity reads as 11.5° of tilt): once the steady turn is proven, the centripetal force is
    /// not tilt. Over the last 20 s of a 40 s drive the tilt error of the default filter and of
    /// `reconstruct` (whose batch takes the centripetal force its initialiser proved out of the
    /// accelerometer) stays under half of 11.5°, in 9D and in 6D.
    func testVehicleCentripetalForceIsNotTilt() throws {
        let trace = Self.drive()
        let window = trace.samples.last!.t - 20
        for mode in [FusionMode.nineD, .sixD] {
            var p = OfflineReconstruction.Parameters()
            p.mode = mode
            let offline = try OfflineReconstruction(parameters: p).reconstruct(trace.samples).samples
            for (name, q) in [
                ("ekf", RunConfiguration(.ekf, mode: mode).attitudes(trace.samples)),
                ("reconstruct", offline.map(\.estimate.attitude)),
            ] {
                var worst = 0.0
                for (e, s) in zip(q, trace.samples) where s.t >= window {
                    worst = max(worst, Self.tiltError(e, s.truth!))
                }
                XCTAssertLessThan(
                    worst, 11.5 / 2, "\(name) \(mode.rawValue): largest tilt error (°) over the last 20 s")
            }
        }
    }

    /// Free fall from the 2nd second of a rest: the accelerometer reads a few hundredths of g in a
    /// random direction. Once the low-passed specific force is far below gravity it is no longer
    /// taken for up: the default filter's tilt stays within 3° (22° when it was), the ramp of the
    /// 2 s low-pass pulling it briefly while the gyroscope is still, and the accelerometer is
    /// flagged rejected over the last 5 s.
    func testFreeFallIsNotTilt() {
        var trace = Self.simulated(.rest, duration: 12)
        var random = SeededRandom(seed: 5)
        for i in trace.samples.indices where trace.samples[i].t >= 2 {
            trace.samples[i].accelerometer = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.05
        }
        for mode in [FusionMode.nineD, .sixD] {
            let estimates = RunConfiguration(.ekf, mode: mode).estimates(trace.samples)
            var worst = 0.0
            for (e, s) in zip(estimates, trace.samples) { worst = max(worst, Self.tiltError(e.attitude, s.truth!)) }
            XCTAssertLessThan(worst, 3, "ekf \(mode.rawValue): largest tilt error (°) through the free fall")
            let late = zip(estimates, trace.samples).filter { $0.1.t >= 7 }
            XCTAssert(late.allSatisfy { $0.0.diagnostics.accelerometerRejected }, "ekf \(mode.rawValue): rejected")
        }
    }
}
