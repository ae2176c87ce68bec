import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which sensors a filter fuses.
public enum FusionMode: String, CaseIterable, Sendable, Codable {
    /// Gyroscope and accelerometer: roll and pitch are absolute, heading drifts freely.
    case sixD = "6d"
    /// Gyroscope, accelerometer and magnetometer: heading is referenced to magnetic north.
    case nineD = "9d"
}

/// The checks of the reference field a magnetometer reading failed: why a filter rejected it.
public struct FieldDeparture: OptionSet, Equatable, Sendable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Its strength departed from the reference field's (a hard or soft iron no calibration has
    /// removed, a magnet or iron nearby).
    public static let strength = FieldDeparture(rawValue: 1)
    /// Its dip, against the filter's up, departed from the reference field's (iron nearby, or the
    /// tilt or the reference wrong).
    public static let dip = FieldDeparture(rawValue: 2)
    /// Its azimuth jumped from its recent average by more than the device's turn explains (a field
    /// that moves: a magnet or iron moving near the device).
    public static let azimuth = FieldDeparture(rawValue: 4)
}

/// What a filter did with the sensors at its last update.
public struct SensorUse: Equatable, Sendable, Codable {
    /// The accelerometer was not used (missing, not finite, or judged disturbed).
    public var accelerometerRejected = true
    /// The magnetometer was not used (missing, not finite, disturbed, or 6D mode).
    public var magnetometerRejected = true
    /// The device is judged at rest.
    public var atRest = false
    /// The steady specific force across a proven steady turn's axis, left out of the tilt as
    /// centripetal (``RestBiasJudge/tiltSpecificForce(_:rest:bias:)``), sensor frame, m/s²; zero
    /// otherwise.
    public var centripetal = Vector3.zero
    /// The checks the magnetometer reading failed when it was rejected (nil when it passed them,
    /// was not judged, or for filters that judge none); absent in states saved before it was kept.
    public var fieldDeparture: FieldDeparture?

    /// Nothing used yet.
    public init() {}
}

/// Why a filter did what it did at the last update.
public struct FilterDiagnostics: Equatable, Sendable {
    /// The accelerometer was not used (missing, not finite, or judged disturbed).
    public var accelerometerRejected = true
    /// The magnetometer was not used (missing, not finite, disturbed, or 6D mode).
    public var magnetometerRejected = true
    /// The device is judged at rest.
    public var atRest = false
    /// The filter has no attitude yet: before the first usable accelerometer sample, or after a gap.
    public var initialising = true
    /// The sample's timestamp could not be used (not increasing, or a gap); the gyroscope was not integrated.
    public var timeFault = false
    /// One standard deviation of the attitude error, radians (tilt and heading combined), when known.
    public var attitudeUncertainty = Double.nan
    /// One standard deviation of the heading error, radians, when known.
    public var headingUncertainty = Double.nan
    /// Level of the on-line magnetometer calibration (uncalibrated for filters without one).
    public var magnetometerAccuracy = MagnetometerSelfCalibration.Accuracy.uncalibrated
    /// The steady specific force across a proven steady turn's axis, left out of the tilt as
    /// centripetal, sensor frame, m/s²; zero otherwise (and for filters that do not judge turns).
    public var centripetal = Vector3.zero
    /// Whether this sample's gyroscope reading sat at the end of its range (``GyroscopeClipping``).
    public var gyroscopeClipped = false
    /// Whether this sample's magnetometer reading had an axis at the end of its range
    /// (``MagnetometerClipping``): the filter was not given it.
    public var magnetometerClipped = false
    /// The checks of the reference field the magnetometer reading failed, when it was rejected for
    /// its field (``FieldDeparture``); empty otherwise, and for filters that judge none.
    public var magnetometerDeparture = FieldDeparture()

    /// Creates diagnostics with default values.
    public init() {}

    /// Equal when every field is; unknown (NaN) uncertainties equal each other.
    public static func == (a: FilterDiagnostics, b: FilterDiagnostics) -> Bool {
        func same(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }
        return a.accelerometerRejected == b.accelerometerRejected && a.magnetometerRejected == b.magnetometerRejected
            && a.atRest == b.atRest && a.initialising == b.initialising && a.timeFault == b.timeFault
            && same(a.attitudeUncertainty, b.attitudeUncertainty) && same(a.headingUncertainty, b.headingUncertainty)
            && a.magnetometerAccuracy == b.magnetometerAccuracy && a.centripetal == b.centripetal
            && a.gyroscopeClipped == b.gyroscopeClipped
            && a.magnetometerClipped == b.magnetometerClipped && a.magnetometerDeparture == b.magnetometerDeparture
    }

    /// Diagnostics from a filter's sensor use and whether it has an attitude.
    public init(_ use: SensorUse, initialised: Bool) {
        accelerometerRejected = use.accelerometerRejected
        magnetometerRejected = use.magnetometerRejected
        atRest = use.atRest
        centripetal = use.centripetal
        magnetometerDeparture = use.fieldDeparture ?? []
        initialising = !initialised
    }
}

/// Tuning of a filter: a value in SI units, independent of the sample rate, that can be stored and
/// read back (JSON through `Codable`, or by name for bindings).
public protocol FilterParameters: Codable, Sendable, ParameterRanges {
    /// Default tuning.
    init()
    /// Sensors fused (fixed for the filters with one mode, see ``FilterKind/modes``).
    var mode: FusionMode { get }
}

/// An attitude estimator: gyroscope, accelerometer and magnetometer in, attitude out.
///
/// Every estimator is a value type split three ways, as in VQF: `Parameters` (user tuning with
/// documented defaults, SI units, independent of the sample rate), values derived from them, and a
/// `State` holding everything that evolves. Assigning a saved `state` to a filter with the same
/// parameters and running on gives exactly the uninterrupted result. Updates take each sample's own
/// time step, so variable rates and gaps work. Any sensor may be `nil` (no new value). The attitude
/// is earth (ENU) from sensor, see `docs/Conventions.md`.
public protocol AttitudeFilter {
    /// Tuning.
    associatedtype Parameters: FilterParameters
    /// Everything that evolves.
    associatedtype State: Codable, Sendable

    /// Creates the filter in its initial state.
    init(parameters: Parameters)
    /// Tuning in use.
    var parameters: Parameters { get }
    /// The evolving state; read it to save, assign it to restore.
    var state: State { get set }
    /// Current attitude, ENU from sensor.
    var attitude: Quaternion { get }
    /// Current gyroscope bias estimate, rad/s (zero for filters that do not estimate it).
    var gyroscopeBias: Vector3 { get }
    /// Diagnostics of the last update (derived from the state).
    var diagnostics: FilterDiagnostics { get }
    /// Processes one sample. `dt` (s) is the time since the previous sample and is finite and
    /// non-negative (the ``FilterRunner`` guarantees this); inputs are finite when not `nil`.
    mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double)
    /// Forgets the attitude so the next sample re-initialises it from the accelerometer (and
    /// magnetometer), keeping the gyroscope bias estimate.
    mutating func reinitialise()
    /// The on-line magnetometer calibration, nil for filters without one.
    var magnetometerSelfCalibration: MagnetometerSelfCalibration? { get }
    /// Starts with `calibration` (a copy of the filter's own, as it stood later in the same
    /// recording: ``MagnetometerLookAhead``), before the first sample.
    mutating func startCalibrated(_ calibration: MagnetometerSelfCalibration)
}

extension AttitudeFilter {
    /// None.
    public var magnetometerSelfCalibration: MagnetometerSelfCalibration? { nil }
    /// Nothing to start.
    public mutating func startCalibrated(_ calibration: MagnetometerSelfCalibration) {}

    /// Sensors fused.
    public var mode: FusionMode { parameters.mode }

    /// Back to the initial state.
    public mutating func reset() { state = Self(parameters: parameters).state }

    /// The state as JSON, exact to the bit (``SavedStateCoding``), for storing and restoring with
    /// ``restoreState(_:)``.
    public func savedState() throws -> Data { try SavedStateCoding.encoder().encode(state) }

    /// Restores a state saved by ``savedState()`` of a filter with the same parameters.
    public mutating func restoreState(_ data: Data) throws {
        state = try SavedStateCoding.decoder().decode(State.self, from: data)
    }
}

/// The JSON of saved states (a filter's, a runner's): exact to the bit, since numbers round-trip and
/// NaN and infinities are written as the strings "nan", "inf", "-inf"; keys sorted.
public enum SavedStateCoding {
    /// The encoder of saved states.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The decoder of saved states.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}

/// Attitude from accelerometer and magnetometer directions, shared by the filters' initialisation.
public enum VectorAttitude {
    /// Whether a reading looks still: a turn rate (bias removed, rad/s) within the bias bound VQF
    /// uses (2 °/s: any rate within it may be bias) and a specific force within 1 m/s² of g. The
    /// filters' accelerometer low-pass ends the mean of its first inputs (``ButterworthLowPass``)
    /// once a reading is still, so from a still start that mean is of still readings. (The rest
    /// detector's own verdict compares two low-passes that start equal: still at any start.)
    public static func readsStill(rate: Double, force: Vector3) -> Bool {
        rate < 2.0.radians && abs(force.norm - standardGravity) < 1
    }

    /// The dip, rad, of the field reading `m` (sensor frame) in the earth frame of `attitude`:
    /// positive below the horizontal.
    public static func dip(_ m: Vector3, _ attitude: Quaternion) -> Double { dip(earth: attitude.rotate(m)) }

    /// The dip, rad, of a field `mE` in the earth frame: positive below the horizontal.
    public static func dip(earth mE: Vector3) -> Double {
        Double.atan2(-mE.z, (mE.x * mE.x + mE.y * mE.y).squareRoot())
    }

    /// The attitude with zero yaw whose up axis matches the specific force (roll and pitch only).
    public static func tilt(accelerometer a: Vector3) -> Quaternion? {
        guard let up = a.normalized else { return nil }
        // Rotation taking the sensor-frame up direction to earth +z by the shortest arc, then
        // expressed with zero yaw (ZYX) so it does not depend on how the device is turned.
        let roll = Double.atan2(up.y, up.z)
        let pitch = Double.atan2(-up.x, (up.y * up.y + up.z * up.z).squareRoot())
        return EulerAngles(roll: roll, pitch: pitch, yaw: 0).quaternion
    }

    /// The starting attitude of a filter: from accelerometer and magnetometer when both are usable
    /// (the heading is then referenced to north), else from the accelerometer alone (zero yaw, not
    /// referenced), else `nil`.
    public static func initial(accelerometer: Vector3?, magnetometer: Vector3?)
        -> (attitude: Quaternion, headingReferenced: Bool)?
    {
        guard let a = accelerometer else { return nil }
        if let m = magnetometer, let q = compass(accelerometer: a, magnetometer: m) { return (q, true) }
        return tilt(accelerometer: a).map { ($0, false) }
    }

    /// The full attitude from specific force (up) and magnetic field (north and down), ENU, or
    /// `nil` when the two are parallel or missing.
    public static func compass(accelerometer a: Vector3, magnetometer m: Vector3) -> Quaternion? {
        guard let up = a.normalized, let east = m.cross(up).normalized else { return nil }
        let north = up.cross(east)
        // Rows of earth-from-sensor are the earth axes in sensor coordinates.
        return Quaternion(Matrix3(east, north, up))
    }

    /// `q` turned about the earth vertical so that the horizontal part of the magnetic field `m`
    /// (sensor frame) points north; `nil` when the field is vertical. Tilt is unchanged.
    public static func headingAligned(_ q: Quaternion, magnetometer m: Vector3) -> Quaternion? {
        let mE = q.rotate(m)
        guard (mE.x * mE.x + mE.y * mE.y) > 0, mE.isFinite else { return nil }
        let psi = Double.atan2(mE.x, mE.y)
        return (Quaternion(axis: .unitZ, angle: psi) * q).normalized
    }

    /// The start and heading alignment of a filter that keeps only its attitude (Mahony,
    /// Madgwick). Before the start, the attitude of ``initial(accelerometer:magnetometer:)``: the
    /// step is then spent (`false`), as it is without an accelerometer. After it, the first
    /// magnetometer sample after a start without one sets the heading at once
    /// (``headingAligned(_:magnetometer:)``) and the step goes on (`true`).
    @inline(__always)
    static func start(
        _ attitude: inout Quaternion, headingReferenced: inout Bool, initialised: inout Bool,
        accelerometer: Vector3?, magnetometer: Vector3?
    ) -> Bool {
        if !initialised {
            guard let start = initial(accelerometer: accelerometer, magnetometer: magnetometer) else { return false }
            attitude = start.attitude
            headingReferenced = start.headingReferenced
            initialised = true
            return false
        }
        if let m = magnetometer, !headingReferenced, let q = headingAligned(attitude, magnetometer: m) {
            attitude = q
            headingReferenced = true
        }
        return true
    }
}
