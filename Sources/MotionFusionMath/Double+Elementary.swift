import Glibc

/// Elementary functions on `Double`, spelled as members so call sites read left to right and the
/// math core has one place that imports the C library.
extension Double {
    /// Sine of `self` (radians).
    @inlinable public var sin: Double { Glibc.sin(self) }
    /// Cosine of `self` (radians).
    @inlinable public var cos: Double { Glibc.cos(self) }
    /// Real cube root of `self`.
    @inlinable public var cubeRoot: Double { Glibc.cbrt(self) }
    /// Arc sine, with the argument clamped to `[-1, 1]` so rounding never yields NaN.
    @inlinable public var asinClamped: Double { Glibc.asin(Swift.min(1, Swift.max(-1, self))) }
    /// Arc cosine, with the argument clamped to `[-1, 1]` so rounding never yields NaN.
    @inlinable public var acosClamped: Double { Glibc.acos(Swift.min(1, Swift.max(-1, self))) }
    /// Natural exponential.
    @inlinable public var exp: Double { Glibc.exp(self) }
    /// `e^self − 1`, accurate for small `self`.
    @inlinable public var expMinusOne: Double { Glibc.expm1(self) }
    /// Natural logarithm.
    @inlinable public var log: Double { Glibc.log(self) }
    /// Two-argument arc tangent of `y/x`, in `(-π, π]`.
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }

    /// `self` converted from radians to degrees.
    @inlinable public var degrees: Double { self * (180 / .pi) }
    /// `self` converted from degrees to radians.
    @inlinable public var radians: Double { self * (.pi / 180) }

    /// `self` wrapped into `[0, 360)` (for angles in degrees).
    @inlinable public var wrappedTo360: Double {
        // The remainder of a magnitude below the divisor is the value itself (exactly so in IEEE
        // arithmetic): most angles skip the library call.
        var a = abs(self) < 360 ? self : self.truncatingRemainder(dividingBy: 360)
        if a < 0 { a += 360 }
        return a >= 360 ? 0 : a
    }

    /// `self` wrapped into `(-π, π]` (for angles in radians).
    @inlinable public var wrappedToPi: Double {
        // As in ``wrappedTo360``: below 2π in magnitude the remainder is the value itself.
        var a = abs(self) < 2 * .pi ? self : self.truncatingRemainder(dividingBy: 2 * .pi)
        if a > .pi { a -= 2 * .pi } else if a <= -.pi { a += 2 * .pi }
        return a
    }
}
