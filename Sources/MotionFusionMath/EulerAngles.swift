/// Roll, pitch and yaw in radians: the intrinsic Z-Y′-X″ (yaw, then pitch, then roll) sequence of
/// an earth-from-sensor rotation, `R = Rz(yaw) · Ry(pitch) · Rx(roll)`.
///
/// Ranges: roll and yaw in `(-π, π]`, pitch in `[-π/2, π/2]`. Inside the singular band
/// (`cos(pitch) < EulerAngles.singularCosine`, about ±0.00003° from ±90°) roll and yaw are not separately
/// defined: roll is reported as 0 and yaw carries the combined rotation about the vertical.
@frozen
public struct EulerAngles: Hashable, Sendable {
    /// Rotation about the sensor x axis, radians.
    public var roll: Double
    /// Rotation about the intermediate y axis, radians.
    public var pitch: Double
    /// Rotation about the earth z axis, radians.
    public var yaw: Double

    /// Creates Euler angles from roll, pitch and yaw in radians.
    @inlinable
    public init(roll: Double, pitch: Double, yaw: Double) {
        self.roll = roll
        self.pitch = pitch
        self.yaw = yaw
    }

    /// Below this value of `cos(pitch)` the angles are in the singular band (gimbal lock).
    public static let singularCosine = 5e-7

    /// The Euler angles of a unit quaternion.
    @inlinable
    public init(_ q: Quaternion) {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        let sinPitch = 2 * (w * y - x * z)
        // cos(pitch) from the two other entries of the first column keeps precision near ±90°.
        let r00 = 1 - 2 * (y * y + z * z)
        let r10 = 2 * (x * y + w * z)
        let cosPitch = (r00 * r00 + r10 * r10).squareRoot()
        let pitch = Double.atan2(sinPitch, cosPitch)
        if cosPitch < EulerAngles.singularCosine {
            // Gimbal lock: only yaw ∓ roll is defined. Put it all in yaw.
            let r01 = 2 * (x * y - w * z)
            let r11 = 1 - 2 * (x * x + z * z)
            self.init(roll: 0, pitch: pitch, yaw: Double.atan2(-r01, r11))
        } else {
            let roll = Double.atan2(2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
            self.init(roll: roll, pitch: pitch, yaw: Double.atan2(r10, r00))
        }
    }

    /// The unit quaternion `qz(yaw) ⊗ qy(pitch) ⊗ qx(roll)`.
    @inlinable
    public var quaternion: Quaternion {
        let (cr, sr) = ((roll / 2).cos, (roll / 2).sin)
        let (cp, sp) = ((pitch / 2).cos, (pitch / 2).sin)
        let (cy, sy) = ((yaw / 2).cos, (yaw / 2).sin)
        return Quaternion(
            w: cy * cp * cr + sy * sp * sr,
            x: cy * cp * sr - sy * sp * cr,
            y: cy * sp * cr + sy * cp * sr,
            z: sy * cp * cr - cy * sp * sr)
    }

    /// The angles in degrees, as `(roll, pitch, yaw)`.
    @inlinable
    public var degrees: (roll: Double, pitch: Double, yaw: Double) {
        (roll.degrees, pitch.degrees, yaw.degrees)
    }
}
