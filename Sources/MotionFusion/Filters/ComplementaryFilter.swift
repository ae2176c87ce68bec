/// A quaternion complementary filter with gyroscope-bias estimation.
///
/// The gyroscope is integrated; then the attitude is turned a fraction `dt/τ` of the way towards
/// the accelerometer's up direction (an earth-frame tilt correction that never touches heading),
/// and in 9D a fraction towards magnetic north about the vertical only (a heading correction that
/// never touches tilt). The corrections also feed an integral bias estimate, and at rest the bias
/// follows the low-passed gyroscope directly. Accelerometer samples far from 1 g and magnetometer
/// samples far from the learnt field strength and dip are skipped.
public struct ComplementaryFilter: AttitudeFilter {
    /// Tuning; every time constant is in seconds and independent of the sample rate.
    public struct Parameters: Sendable {
        /// Tilt correction time constant, s. Default 2.
        public var accelerometerTime = 2.0
        /// Heading correction time constant, s. Default 6.
        public var magnetometerTime = 6.0
        /// Integral bias time constant, s (0 disables). Default 40.
        public var biasTime = 40.0
        /// Corrections implying a rate error above this (rad/s) do not feed the bias. Default 0.05.
        public var maximumBiasCorrection = 0.05
        /// Largest accepted deviation of the low-passed specific force from 1 g, m/s². Default 1.5.
        public var accelerationRejection = 1.5
        /// Time constant of the earth-frame low-pass applied to the specific force before the tilt
        /// correction, s (0 disables). Default 1.
        public var accelerationFilterTime = 1.0
        /// Largest accepted relative deviation of |mag| from the learnt norm. Default 0.1.
        public var fieldNormRejection = 0.1
        /// Largest accepted deviation of the dip from the learnt dip, rad. Default 8°.
        public var dipRejection = 8.0.radians
        /// Gravity, m/s². Default 9.81.
        public var gravity = 9.81
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Rest detection used for bias estimation.
        public var rest = RestDetector.Parameters()
        /// Default parameters.
        public init() {}
    }

    /// Tuning in use.
    public var parameters: Parameters
    /// Current attitude.
    public var attitude = Quaternion.identity
    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias = Vector3.zero
    /// Learnt field strength (µT) and dip (rad), or NaN until learnt.
    public var fieldNorm = Double.nan, fieldDip = Double.nan
    /// Rest detector.
    public var restDetector: RestDetector
    /// Earth-frame low-pass of the specific force.
    public var accelerationLowPass = ButterworthLowPass(cutoff: 1)
    /// Diagnostics of the last update.
    public private(set) var diagnostics = FilterDiagnostics()
    var initialised = false

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        restDetector = RestDetector(parameters: parameters.rest)
        accelerationLowPass.cutoff = 1 / (2 * .pi * max(parameters.accelerationFilterTime, 1e-3))
    }

    /// Sensors fused.
    public var mode: FusionMode { parameters.mode }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        let p = parameters
        let mag = p.mode == .nineD ? magnetometer : nil
        if !initialised {
            guard let q = VectorAttitude.initial(accelerometer: accelerometer, magnetometer: mag) else { return }
            attitude = q
            initialised = true
            diagnostics.initialising = false
            return
        }
        restDetector.update(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)
        diagnostics.atRest = restDetector.atRest
        if let g = gyroscope, dt > 0 {
            attitude = attitude * Quaternion(rotationVector: (g - gyroscopeBias) * dt)
        }
        var correction = Vector3.zero
        diagnostics.accelerometerRejected = true
        var filtered: Vector3?
        if let a = accelerometer {
            let fE = attitude.rotate(a)
            filtered = p.accelerationFilterTime > 0 ? accelerationLowPass.update(fE, dt: dt) : fE
        }
        if let fE = filtered, abs(fE.norm - p.gravity) < p.accelerationRejection, let up = fE.normalized {
            // Earth-frame rotation taking the measured up to +z: axis up × z, angle ≈ |up × z|.
            let axis = Vector3(up.y, -up.x, 0)
            let angle = Double.atan2(axis.norm, up.z)
            let s = axis.norm > 1e-12 ? angle / axis.norm : 0
            correction += axis * (s * min(1, dt / p.accelerometerTime))
            diagnostics.accelerometerRejected = false
        }
        diagnostics.magnetometerRejected = true
        if let m = mag {
            let mE = attitude.rotate(m)
            let horizontal = (mE.x * mE.x + mE.y * mE.y).squareRoot()
            let norm = m.norm
            let dip = Double.atan2(-mE.z, horizontal)
            if !fieldNorm.isFinite {
                fieldNorm = norm
                fieldDip = dip
            }
            if horizontal > 0 && abs(norm - fieldNorm) < p.fieldNormRejection * fieldNorm
                && abs(dip - fieldDip) < p.dipRejection
            {
                // Heading error: azimuth of the field, which should point to +y (north).
                let psi = Double.atan2(mE.x, mE.y)
                correction.z += psi * min(1, dt / p.magnetometerTime)
                diagnostics.magnetometerRejected = false
                // Track slow changes of the reference field.
                let k = min(1, dt / 60)
                fieldNorm += (norm - fieldNorm) * k
                fieldDip += (dip - fieldDip) * k
            }
        }
        if correction.squaredNorm > 0 {
            let turn = Quaternion(rotationVector: correction)
            attitude = turn * attitude
            accelerationLowPass.rotate(by: turn)
            if p.biasTime > 0 && dt > 0 && !restDetector.atRest {
                // The sensor-frame rate that would have produced the correction is −bias error.
                // Large corrections (after a fault or a disturbance) say nothing about the bias.
                let rateError = attitude.inverseRotate(correction) * (1 / dt)
                if rateError.norm < p.maximumBiasCorrection { gyroscopeBias -= rateError * min(1, dt / p.biasTime) }
            }
        }
        if restDetector.atRest {
            gyroscopeBias += (restDetector.gyroscopeMean - gyroscopeBias) * min(1, dt / 1.0)
        }
        attitude = attitude.normalized
    }

    /// Re-initialise the attitude from the next accelerometer sample.
    public mutating func reinitialise() {
        initialised = false
        restDetector.reset()
        accelerationLowPass.reset()
    }

    /// Back to the initial state.
    public mutating func reset() { self = ComplementaryFilter(parameters: parameters) }
}
