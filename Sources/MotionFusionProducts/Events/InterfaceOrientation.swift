/// The orientation of a user interface relative to the device, for headings that follow what the
/// user sees: with the interface in landscape, "forward" is the interface's top edge when the
/// device lies flat and the back camera's direction when it is upright.
public enum InterfaceOrientation: String, CaseIterable, Sendable {
    /// Interface top along the device's +y.
    case portrait
    /// Interface top along the device's −y.
    case portraitUpsideDown = "portrait_upside_down"
    /// Interface top along the device's +x (device orientation landscape left).
    case landscapeLeft = "landscape_left"
    /// Interface top along the device's −x (device orientation landscape right).
    case landscapeRight = "landscape_right"

    /// Rotation about the screen normal from interface to device axes.
    public var deviceFromInterface: Quaternion {
        switch self {
        case .portrait: return .identity
        case .portraitUpsideDown: return Quaternion(axis: .unitZ, angle: .pi)
        case .landscapeLeft: return Quaternion(axis: .unitZ, angle: -.pi / 2)
        case .landscapeRight: return Quaternion(axis: .unitZ, angle: .pi / 2)
        }
    }

    /// The interface orientation matching a device orientation (nil for face up and face down,
    /// where the interface keeps its previous orientation).
    public init?(_ device: DeviceOrientation) {
        switch device {
        case .portrait: self = .portrait
        case .portraitUpsideDown: self = .portraitUpsideDown
        case .landscapeLeft: self = .landscapeLeft
        case .landscapeRight: self = .landscapeRight
        case .faceUp, .faceDown: return nil
        }
    }
}

extension Quaternion {
    /// Heading (degrees clockwise from north, [0, 360)) of an earth-from-sensor attitude as seen
    /// through a user interface in `interface` orientation. In portrait it equals
    /// ``headingDegrees(in:)``; in landscape it stays well defined when the device's x axis is vertical.
    public func headingDegrees(interface: InterfaceOrientation, frame: EarthFrame = .enu) -> Double {
        (self * interface.deviceFromInterface).headingDegrees(in: frame)
    }
}
