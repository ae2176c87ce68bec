/// How an estimate is written out — earth frame and north reference — and the values of one written
/// row: the one place where an estimate becomes its output columns, for the estimate file
/// (`EstimateWriter`) and the C and Python arrays alike.
public struct OutputReference: Sendable {
    /// Earth frame of the written attitude and Euler angles.
    public let frame: EarthFrame
    /// Declination, degrees east; when set, the written attitude and `heading` are referenced to
    /// true north.
    public let declinationDegrees: Double?
    /// ``trueNorthRotation(declinationDegrees:)`` of the declination.
    let northRotation: Quaternion

    /// The reference of a run configuration.
    public init(_ configuration: RunConfiguration) {
        frame = configuration.frame
        declinationDegrees = configuration.declinationDegrees
        northRotation = Self.trueNorthRotation(declinationDegrees: declinationDegrees ?? 0)
    }

    /// Rz(−D), turning an ENU attitude referenced to magnetic north into one referenced to true
    /// north, for a declination of D degrees east: magnetic north lies D east of true north, so true
    /// north has bearing −D in the magnetic frame, and `q_true = Rz(−D) ⊗ q_magnetic`. Its
    /// conjugate turns back.
    public static func trueNorthRotation(declinationDegrees: Double) -> Quaternion {
        Quaternion(axis: .unitZ, angle: -declinationDegrees.radians)
    }

    /// The written attitude (frame, north reference, non-negative scalar part) of an ENU
    /// magnetic-north attitude, and the ENU attitude in the written north reference.
    @inline(__always)
    public func attitude(_ magneticENU: Quaternion) -> (written: Quaternion, enu: Quaternion) {
        let enu = declinationDegrees == nil ? magneticENU : (northRotation * magneticENU).normalized
        return (frame.attitude(fromENU: enu).canonical, enu)
    }

    /// The values of one output row.
    public struct Row: Sendable {
        /// Attitude as written.
        public var attitude: Quaternion
        /// Z-Y′-X″ Euler angles of the written attitude, degrees.
        public var rollDegrees: Double, pitchDegrees: Double, yawDegrees: Double
        /// Heading in the written north reference, and magnetic heading, degrees in [0, 360).
        public var heading: Double, magneticHeading: Double
    }

    /// The attitude columns of a row.
    @inline(__always)
    public func row(_ e: MotionEstimate) -> Row {
        let (q, enu) = attitude(e.attitude)
        let euler = EulerAngles(q)
        // Heading is −yaw of the ENU attitude: reuse the Euler angles when they are those.
        let heading = frame == .enu ? (-euler.yaw).degrees.wrappedTo360 : enu.headingDegrees()
        let magnetic = declinationDegrees == nil ? heading : e.attitude.headingDegrees()
        return Row(
            attitude: q, rollDegrees: euler.roll.degrees, pitchDegrees: euler.pitch.degrees,
            yawDegrees: euler.yaw.degrees, heading: heading, magneticHeading: magnetic)
    }

    /// Uncertainty written while a filter has none yet (initialising), degrees: total ignorance.
    public static let unknownUncertaintyDegrees = 180.0

    /// A one-sigma uncertainty in degrees as written: ``unknownUncertaintyDegrees`` when unknown,
    /// and never more.
    @inline(__always)
    public static func uncertaintyDegrees(_ s: Double) -> Double {
        s.isFinite ? min(s.degrees, unknownUncertaintyDegrees) : unknownUncertaintyDegrees
    }
}
