/// The six device orientations the platforms report, from which axis points up.
public enum DeviceOrientation: String, CaseIterable, Sendable {
    /// Screen up (+z up).
    case faceUp = "face_up"
    /// Screen down (−z up).
    case faceDown = "face_down"
    /// Upright, top edge up (+y up).
    case portrait
    /// Upright, top edge down (−y up).
    case portraitUpsideDown = "portrait_upside_down"
    /// Landscape, the device's right side (+x) up.
    case landscapeLeft = "landscape_left"
    /// Landscape, the device's left side (−x) up.
    case landscapeRight = "landscape_right"

    /// The sensor axis pointing up in this orientation.
    public var upAxis: Vector3 {
        switch self {
        case .faceUp: return .unitZ
        case .faceDown: return -.unitZ
        case .portrait: return .unitY
        case .portraitUpsideDown: return -.unitY
        case .landscapeLeft: return .unitX
        case .landscapeRight: return -.unitX
        }
    }
}

/// Detects device-orientation changes from the gravity direction with hysteresis: a new
/// orientation is adopted only when its axis is within ``Parameters/enterAngle`` of up, the device is
/// not being shaken hard, and that holds for ``Parameters/holdTime``. So it does not flicker near 45°.
public struct DeviceOrientationDetector: Sendable {
    /// Tuning.
    public struct Parameters: Sendable {
        /// Largest angle between the new orientation's axis and up, rad. Default 35°.
        public var enterAngle = 35.0.radians
        /// Time the new orientation must hold before it is reported, s. Default 0.2.
        public var holdTime = 0.2
        /// Low-pass time constant of the gravity estimate, s. Default 0.1.
        public var filterTime = 0.1
        /// Largest departure of |f| from g (m/s²) for an orientation to count. Default 3.
        public var accelerationTolerance = 3.0
        /// Default parameters.
        public init() {}
    }

    /// Tuning.
    public var parameters: Parameters
    /// The reported orientation (nil until the first is established).
    public private(set) var orientation: DeviceOrientation?
    var separator: GravitySeparator
    var candidate: DeviceOrientation?
    var candidateTime = 0.0

    /// Creates a detector.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        separator = GravitySeparator(timeConstant: parameters.filterTime)
    }

    /// Feeds one accelerometer reading; returns the new orientation when it changes.
    public mutating func update(accelerometer a: Vector3, dt: Double) -> DeviceOrientation? {
        let (g, _) = separator.update(a, dt: dt)
        guard let up = g.normalized, abs(a.norm - 9.81) < parameters.accelerationTolerance else {
            candidate = nil
            candidateTime = 0
            return nil
        }
        let limit = parameters.enterAngle.cos
        let best = DeviceOrientation.allCases.max { up.dot($0.upAxis) < up.dot($1.upAxis) }!
        guard up.dot(best.upAxis) >= limit, best != orientation else {
            candidate = nil
            candidateTime = 0
            return nil
        }
        if best == candidate {
            candidateTime += dt
        } else {
            candidate = best
            candidateTime = 0
        }
        if candidateTime >= parameters.holdTime || orientation == nil && candidateTime >= 0 && dt == 0 {
            orientation = best
            candidate = nil
            candidateTime = 0
            return best
        }
        return nil
    }
}
