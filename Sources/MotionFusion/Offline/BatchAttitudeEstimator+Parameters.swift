import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BatchAttitudeEstimator {
    /// Tuning. Every value is in SI units (or relative), independent of the sample rate.
    public struct Parameters: Sendable {
        /// The filter of the initialising smoother; its ``KalmanFilter/Parameters/mode`` selects 6D
        /// or 9D and its `expectedFieldNorm`/`expectedDip` give the expected field. Default
        /// ``KalmanFilter/Parameters`` defaults (9D).
        public var filter = KalmanFilter.Parameters()
        /// Where the Gauss–Newton iterations start. Default ``BatchInitialiser/smoother``: the
        /// robust losses need a start near the right heading, and the online filter alone can be
        /// far off (BROAD trial 33 with a unit-norm magnetometer: 85° online, 1.5° from the
        /// smoother, 157° from the filter).
        public var initialiser = BatchInitialiser.smoother
        /// Time between knots, s. Default 0.1 (accuracy on the dev recordings is the same from
        /// 0.05 to 0.2 s; the cost of the band solve falls with it).
        public var knotInterval = 0.1
        /// Gyroscope white noise density, rad/s/√Hz. Default 0.002 (as the online filter).
        public var gyroscopeNoise = 0.002
        /// Relative rate error (scale factor, misalignment): adds `(s·|ω|)²` per second to the
        /// attitude noise between knots. Default 0.0015 (with the gyroscope noise, it sets the
        /// one-sigma uncertainty so that 70 % of the BROAD samples lie within it).
        public var rateScaleUncertainty = 0.0015
        /// Gyroscope bias random walk, rad/s/√s: lets the bias follow its wander over a long run
        /// (through a magnetometer rejected for minutes, the heading then rests on it). Default 3e-5.
        public var biasRandomWalk = 3e-5
        /// Standard deviation of the zero-mean prior on the first bias, rad/s. Default 5 °/s.
        public var initialBiasUncertainty = 5.0.radians
        /// Noise density of the integrated specific force (accelerometer noise and model error),
        /// m/s²/√Hz. Default 0.05.
        public var accelerometerNoise = 0.05
        /// Typical horizontal speed of the device, m/s: the zero-mean velocity prior has density
        /// `|v|² / (2·speed²·time)` per second, with the time ``speedCorrelationTime``. Default 0.5.
        public var typicalSpeed = 0.5
        /// How long a speed typically lasts, s (see ``typicalSpeed``). Default 1.
        public var speedCorrelationTime = 1.0
        /// Noise density of the gravity direction (each knot's mean specific force should point
        /// up), rad·√s; 0 leaves the factor out. With the velocity factors it makes the tilt
        /// respond within seconds, which lets the bias follow the gyroscope's drift during motion.
        /// Default 0.01.
        public var gravityNoise = 0.01
        /// Scale of the robust loss on a knot's gravity direction, rad. Default 5°.
        public var gravityOutlierScale = 5.0.radians
        /// Scale of the robust loss on an interval's velocity increment, in its standard
        /// deviations. Default 5.
        public var accelerometerOutlierScale = 5.0
        /// Magnetometer azimuth noise density, rad·√s (includes the slowly varying, orientation
        /// dependent error of a real field). Default 0.1.
        public var magnetometerNoise = 0.1
        /// Standard deviation of the slowly varying error of the magnetic azimuth (field
        /// inhomogeneity, orientation-dependent calibration error), a first-order Gauss–Markov
        /// state per knot, rad: the magnetometer is an absolute heading reference only to within
        /// this. Default 0.5°.
        public var magneticDisturbance = 0.5.radians
        /// Correlation time of that error, s. Default 30.
        public var magneticDisturbanceTime = 30.0
        /// Scale of the robust loss on a sample's azimuth residual, rad. Default 10°.
        public var headingOutlierScale = 10.0.radians
        /// Relative departure of the field strength from the learnt strength that halves a
        /// magnetometer sample's weight. Default 0.03.
        public var fieldNormTolerance = 0.03
        /// Departure of the dip from the learnt dip that halves a sample's weight, rad. Default 3°.
        public var dipTolerance = 3.0.radians
        /// Learn the reference field strength and dip (from which disturbances are judged) from the
        /// samples at rest when there are at least ``minimumRestForReference`` seconds of them
        /// (the device lying still gives the cleanest field); otherwise from all samples. Default true.
        public var fieldReferenceFromRest = true
        /// Time at rest needed to learn the reference field from the samples at rest, s. Default 5.
        public var minimumRestForReference = 5.0
        /// The robust loss of the accelerometer, gravity and magnetometer factors. Default Cauchy.
        public var robustLoss = RobustLoss.cauchy
        /// Rate noise density while at rest, rad/s·√s (the rest factor's strength). Default 0.002.
        public var restRateNoise = 0.002
        /// Velocity standard deviation at a knot at rest, m/s. Default 0.02.
        public var restVelocityNoise = 0.02
        /// Prior standard deviation on the first knot's tilt, rad. Default 0.3.
        public var initialTiltUncertainty = 0.3
        /// Prior standard deviation on the first knot's heading in 9D, rad. Default 1.
        public var initialHeadingUncertainty = 1.0
        /// Prior standard deviation on the first knot's heading in 6D, rad: it fixes the arbitrary
        /// heading. Default 0.001.
        public var sixDHeadingUncertainty = 0.001
        /// Estimate the magnetometer hard iron as a constant. Default false.
        public var estimateHardIron = false
        /// Estimate the magnetometer hard and soft iron (and the earth field) jointly with the
        /// attitude, with a full-vector field factor (heading-only in the attitude), once the readings
        /// show the magnetometer needs it: from the first window at which the ellipsoid fit
        /// (``MagnetometerCalibration/fit(_:arbitraryUnits:)``) of the readings so far succeeds and
        /// makes the field strength ``calibrationEvidence`` times steadier than the raw readings. The
        /// fit starts the joint estimate; windows before it run uncalibrated. Reported as
        /// ``Statistics/magnetometerCalibration``. Default true.
        public var estimateMagnetometerCalibration = true
        /// How many times smaller than the raw readings' strength spread (RMS) the ellipsoid fit's
        /// residual must be before the magnetometer is calibrated jointly: the evidence that its
        /// iron errors exceed what the robust weights absorb (dimensionless). A calibrated sensor's
        /// readings are already as steady as any fit makes them (ratio near 1). Default 2.
        public var calibrationEvidence = 2.0
        /// Standard deviation of the hard-iron prior, relative to the field strength. Default 0.5.
        public var hardIronUncertainty = 0.5
        /// Gauss–Newton stops when the largest attitude step is below this, rad. Default 1e-3
        /// (0.06°, a tenth of the best accuracy reached on real recordings).
        public var tolerance = 1e-3
        /// Most Gauss–Newton iterations per window. Default 8.
        public var maximumIterations = 8
        /// Longest window emitted at once, s. Default 300.
        public var windowDuration = 300.0
        /// Most samples emitted by one window. Default 300 000.
        public var windowSamples = 300_000
        /// How far past the emitted part a window reaches, s. Default 60.
        public var lookahead = 60.0
        /// Most samples a window reaches past its emitted part. Default 60 000.
        public var lookaheadSamples = 60_000
        /// Magnetometer delay relative to the gyroscope, s; nil estimates it from the data
        /// (``SensorDelayEstimator``). Default nil.
        public var magnetometerDelay: Double? = nil
        /// Longest time a gyroscope or accelerometer value is held for samples without one, s.
        /// Default 0.1.
        public var maximumHold = 0.1
        /// Longest forward gap in the timestamps bridged within one solution, s: across a shorter
        /// gap the rotation is unknown but the bias and the heading carry on; a longer one (a
        /// recording paused, a clock that jumped) ends the solution and the samples after it are
        /// solved as a recording of their own. Default 10.
        public var longestBridgedGap = 10.0
        /// A timestamp more than this earlier than the latest one (a clock reset), s, also starts a
        /// new solution; a smaller step back is a timing glitch whose sample is not integrated (as
        /// in ``FilterRunner``). Default 1.
        public var clockStepBack = 1.0
        /// Default parameters.
        public init() {}
    }
}

extension BatchAttitudeEstimator.Parameters: ParameterRanges {
    /// How a parameter is read and written by name.
    enum Access {
        typealias Parameters = BatchAttitudeEstimator.Parameters

        /// A real number within the range.
        case real(WritableKeyPath<Parameters, Double>)
        /// A real number within the range, or NaN for nil (estimated from the data).
        case estimated(WritableKeyPath<Parameters, Double?>)
        /// A whole number within the range.
        case count(WritableKeyPath<Parameters, Int>)
        /// 1 (on) or 0 (off).
        case toggle(WritableKeyPath<Parameters, Bool>)
        /// One of `values` by name.
        case choice(values: [String], get: (Parameters) -> String, set: (inout Parameters, String) -> Bool)

        static func choice<E: RawRepresentable & CaseIterable>(_ path: WritableKeyPath<Parameters, E>) -> Access
        where E.RawValue == String {
            .choice(
                values: E.allCases.map(\.rawValue), get: { $0[keyPath: path].rawValue },
                set: { p, text in
                    guard let e = E(rawValue: text) else { return false }
                    p[keyPath: path] = e
                    return true
                })
        }
    }

    /// A parameter settable by name: its unit, the values it accepts (numbers and counts; nil for
    /// switches and choices) and where it is kept.
    struct Tunable {
        let name: String
        let unit: String
        let range: ParameterRange?
        let access: Access

        init(_ name: String, _ unit: String, _ range: ParameterRange?, _ access: Access) {
            self.name = name
            self.unit = unit
            self.range = range
            self.access = access
        }
    }

    /// Every parameter settable by name, in declaration order: all but ``filter``, whose
    /// parameters are set by their own names (``FilterSetup``). The one declaration of each range
    /// and unit.
    static var tunables: [Tunable] {
        [
            Tunable("initialiser", "choice", nil, .choice(\.initialiser)),
            Tunable("knotInterval", "s", .above(0, upTo: 10), .real(\.knotInterval)),
            Tunable("gyroscopeNoise", "rad/s/√Hz", .above(0, upTo: 1), .real(\.gyroscopeNoise)),
            Tunable("rateScaleUncertainty", "1", ParameterRange(0...0.5), .real(\.rateScaleUncertainty)),
            Tunable("biasRandomWalk", "rad/s/√s", .above(0, upTo: 0.1), .real(\.biasRandomWalk)),
            Tunable("initialBiasUncertainty", "rad/s", .above(0, upTo: 10), .real(\.initialBiasUncertainty)),
            Tunable("accelerometerNoise", "m/s²/√Hz", .above(0, upTo: 10), .real(\.accelerometerNoise)),
            Tunable("typicalSpeed", "m/s", .above(0, upTo: 1000), .real(\.typicalSpeed)),
            Tunable("speedCorrelationTime", "s", .timeConstant, .real(\.speedCorrelationTime)),
            Tunable("gravityNoise", "rad·√s", ParameterRange(0...10), .real(\.gravityNoise)),
            Tunable("gravityOutlierScale", "rad", .angle, .real(\.gravityOutlierScale)),
            Tunable("accelerometerOutlierScale", "σ", .above(0, upTo: 100), .real(\.accelerometerOutlierScale)),
            Tunable("magnetometerNoise", "rad·√s", .above(0, upTo: 10), .real(\.magnetometerNoise)),
            Tunable("magneticDisturbance", "rad", .angle, .real(\.magneticDisturbance)),
            Tunable("magneticDisturbanceTime", "s", .timeConstant, .real(\.magneticDisturbanceTime)),
            Tunable("headingOutlierScale", "rad", .angle, .real(\.headingOutlierScale)),
            Tunable("fieldNormTolerance", "1", .above(0, upTo: 10), .real(\.fieldNormTolerance)),
            Tunable("dipTolerance", "rad", .angle, .real(\.dipTolerance)),
            Tunable("fieldReferenceFromRest", "switch", nil, .toggle(\.fieldReferenceFromRest)),
            Tunable("minimumRestForReference", "s", .duration, .real(\.minimumRestForReference)),
            Tunable("robustLoss", "choice", nil, .choice(\.robustLoss)),
            Tunable("restRateNoise", "rad/s·√s", .above(0, upTo: 1), .real(\.restRateNoise)),
            Tunable("restVelocityNoise", "m/s", .above(0, upTo: 100), .real(\.restVelocityNoise)),
            Tunable("initialTiltUncertainty", "rad", .angle, .real(\.initialTiltUncertainty)),
            Tunable("initialHeadingUncertainty", "rad", .angle, .real(\.initialHeadingUncertainty)),
            Tunable("sixDHeadingUncertainty", "rad", .angle, .real(\.sixDHeadingUncertainty)),
            Tunable("estimateHardIron", "switch", nil, .toggle(\.estimateHardIron)),
            Tunable("estimateMagnetometerCalibration", "switch", nil, .toggle(\.estimateMagnetometerCalibration)),
            Tunable("calibrationEvidence", "1", .above(0, upTo: 1000), .real(\.calibrationEvidence)),
            Tunable("hardIronUncertainty", "1", .above(0, upTo: 100), .real(\.hardIronUncertainty)),
            Tunable("tolerance", "rad", .above(0, upTo: 1), .real(\.tolerance)),
            Tunable("maximumIterations", "count", ParameterRange(1...1000), .count(\.maximumIterations)),
            Tunable("windowDuration", "s", .timeConstant, .real(\.windowDuration)),
            Tunable("windowSamples", "count", ParameterRange(1...100_000_000), .count(\.windowSamples)),
            Tunable("lookahead", "s", .duration, .real(\.lookahead)),
            Tunable("lookaheadSamples", "count", ParameterRange(0...100_000_000), .count(\.lookaheadSamples)),
            Tunable("magnetometerDelay", "s", ParameterRange(-1...1), .estimated(\.magnetometerDelay)),
            Tunable("maximumHold", "s", .duration, .real(\.maximumHold)),
            Tunable("longestBridgedGap", "s", .timeConstant, .real(\.longestBridgedGap)),
            Tunable("clockStepBack", "s", .duration, .real(\.clockStepBack)),
        ]
    }

    /// The prefix that names these parameters beside the EKF's in one `NAME=VALUE,…` list
    /// (`reconstruct --param`, Python's and C's `parameters`): `batch.knotInterval=0.05`.
    public static let namePrefix = "batch."

    /// The values each number and count accepts, by name (without ``namePrefix``); switches and
    /// choices have none.
    public static var ranges: [String: ParameterRange] {
        Dictionary(uniqueKeysWithValues: tunables.compactMap { t in t.range.map { (t.name, $0) } })
    }

    /// The unit of each parameter settable by name (`1` for a ratio, `count`, `switch`, `choice`).
    public static var units: [String: String] { Dictionary(uniqueKeysWithValues: tunables.map { ($0.name, $0.unit) }) }

    /// The numbers, counts and switches by name (without ``namePrefix``) with their current values:
    /// a switch reads 1 (on) or 0 (off), the magnetometer delay NaN while it is to be estimated.
    public var parameterValues: [(name: String, value: Double)] {
        Self.tunables.compactMap { t in
            switch t.access {
            case .real(let path): return (t.name, self[keyPath: path])
            case .estimated(let path): return (t.name, self[keyPath: path] ?? .nan)
            case .count(let path): return (t.name, Double(self[keyPath: path]))
            case .toggle(let path): return (t.name, self[keyPath: path] ? 1 : 0)
            case .choice: return nil
            }
        }
    }

    /// The choices by name (without ``namePrefix``): the current value and every value accepted.
    public var choiceValues: [(name: String, value: String, values: [String])] {
        Self.tunables.compactMap { t in
            guard case .choice(let values, let get, _) = t.access else { return nil }
            return (t.name, get(self), values)
        }
    }

    /// Sets one parameter by name (with or without ``namePrefix``) from its value as written: a
    /// number (as the overload that takes a `Double`), or a value's name for a choice.
    public mutating func setParameter(_ name: String, _ text: String) throws {
        let (t, shown) = try Self.tunable(name)
        if case .choice(let values, _, let set) = t.access {
            guard set(&self, text) else {
                throw ParameterError(
                    description: "'\(shown)' is one of \(values.joined(separator: ", ")); got '\(text)'")
            }
            return
        }
        guard case .value(let value) = DecimalParser.parse(text) else {
            throw ParameterError(description: "'\(shown)' takes a number; got '\(text)'")
        }
        try setParameter(name, value)
    }

    /// Sets a number, count or switch by name (with or without ``namePrefix``): a number within its
    /// range (NaN for the magnetometer delay: estimate it), a whole number for a count, 1 (on) or
    /// 0 (off) for a switch.
    public mutating func setParameter(_ name: String, _ value: Double) throws {
        let (t, shown) = try Self.tunable(name)
        let estimated: Bool
        switch t.access {
        case .choice(let values, _, _):
            throw ParameterError(description: "'\(shown)' is one of \(values.joined(separator: ", ")); got \(value)")
        case .toggle(let path):
            guard value == 0 || value == 1 else {
                throw ParameterError(description: "'\(shown)' is a switch: 1 (on) or 0 (off); got \(value)")
            }
            self[keyPath: path] = value == 1
            return
        case .estimated: estimated = true
        case .real, .count: estimated = false
        }
        guard let range = t.range, range.contains(value) || (estimated && value.isNaN) else {
            throw ParameterError(
                description:
                    "'\(shown)' must be within \(t.range?.exactDescription ?? "?")\(estimated ? " (or nan to estimate it)" : ""); got \(value)"
            )
        }
        switch t.access {
        case .real(let path): self[keyPath: path] = value
        case .estimated(let path): self[keyPath: path] = value.isNaN ? nil : value
        case .count(let path):
            guard value == value.rounded() else {
                throw ParameterError(description: "'\(shown)' is a count: a whole number; got \(value)")
            }
            self[keyPath: path] = Int(value)
        case .toggle, .choice: break
        }
    }

    /// The parameter of `name` (with or without ``namePrefix``) and its name as shown in messages
    /// (with the prefix).
    static func tunable(_ name: String) throws -> (Tunable, shown: String) {
        let bare = name.hasPrefix(namePrefix) ? String(name.dropFirst(namePrefix.count)) : name
        let shown = namePrefix + bare
        guard let t = tunables.first(where: { $0.name == bare }) else {
            throw ParameterError(
                description:
                    "the batch estimator has no parameter '\(shown)'; it has: \(tunables.map { namePrefix + $0.name }.joined(separator: ", "))"
            )
        }
        return (t, shown)
    }

    /// Sets the items of `spec` (`NAME=VALUE,…`) whose names start with ``namePrefix`` and returns
    /// the others, as written and in order, for the filter (``FilterSetup/setParameters(_:)``).
    public mutating func takeParameters(from spec: String) throws -> String {
        var others = [Substring]()
        var given = Set<String>()
        func malformed(_ item: Substring) -> Error {
            ParameterError(
                description:
                    "expected NAME=VALUE pairs such as gyroscopeNoise=0.003 or \(Self.namePrefix)knotInterval=0.05; got '\(item)'"
            )
        }
        try KeyValueList.forEach(spec, malformed: malformed) { name, value, item in
            guard name.hasPrefix(Self.namePrefix) else {
                others.append(item)
                return
            }
            guard given.insert(name).inserted else { throw ParameterError(description: "'\(name)' is given twice") }
            try setParameter(name, value)
        }
        return others.joined(separator: ",")
    }
}
