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
    /// Two-argument arc tangent of `y/x`, in `(-π, π]`: the C library's special values for zeros,
    /// infinities and NaN, and otherwise within two units in the last place of it, in fewer
    /// instructions (the filters take two or three per sample, the written Euler angles three per
    /// row).
    ///
    /// With `t` = min(|x|, |y|) / max(|x|, |y|) in [0, 1] and `c` the nearest multiple of 1/8 (0
    /// up to t = 0.0626, so that a result below 1/16 never comes from atan(1/8) less nearly as much,
    /// whose rounding would cost three units), atan t = atan c + atan u with
    /// u = (t − c) / (1 + t·c), |u| ≤ 0.0626; atan c is a constant
    /// (to twice double precision, ``arcTangentOfEighths(_:)``) and atan u its odd series to u¹³
    /// (the first term left out, u¹⁵/15, is below 1e-18 of u). The octant then gives π/2 − a or
    /// π − a (π in two parts, so no precision is lost), and `y` the sign.
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = Swift.abs(x)
        let ay = Swift.abs(y)
        guard ax.isFinite && ay.isFinite && (ax > 0 || ay > 0) else { return Glibc.atan2(y, x) }
        let steep = ay > ax
        let t = steep ? ax / ay : ay / ax
        // The nearest eighth (t ≥ 0, so truncating t·8 + ½ rounds it, without a library call).
        let eighths = t < 0.0626 ? 0 : Int(t * 8 + 0.5)
        let c = Double(eighths) * 0.125
        let u = (t - c) / (1 + t * c)
        let u2 = u * u
        var p = 1.0 / 13
        p = p * u2 - 1.0 / 11
        p = p * u2 + 1.0 / 9
        p = p * u2 - 1.0 / 7
        p = p * u2 + 1.0 / 5
        p = p * u2 - 1.0 / 3
        let series = u + u * u2 * p
        let (high, low) = arcTangentOfEighths(eighths)
        var a = high + (low + series)
        if steep { a = (1.5707963267948966 - a) + 6.123233995736766e-17 }
        if x < 0 { a = (3.141592653589793 - a) + 1.2246467991473532e-16 }
        return Double(signOf: y, magnitudeOf: a)
    }

    /// atan(k/8) for k in 0…8 as a sum of two doubles (the nearest double and the rest).
    @inlinable @inline(__always)
    static func arcTangentOfEighths(_ k: Int) -> (Double, Double) {
        switch k {
        case 0: return (0, 0)
        case 1: return (0.12435499454676144, -3.1253241424539383e-18)
        case 2: return (0.24497866312686414, 1.0698755618734451e-17)
        case 3: return (0.35877067027057225, -2.4623815582638635e-17)
        case 4: return (0.4636476090008061, 2.2698777452961687e-17)
        case 5: return (0.5585993153435624, -5.4556305485916264e-18)
        case 6: return (0.6435011087932844, 1.5834785051444286e-17)
        case 7: return (0.7188299996216245, -2.1478388444456983e-17)
        default: return (0.7853981633974483, 3.061616997868383e-17)
        }
    }

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
        // + 0 makes −0 (a heading of exactly north from −0 yaw) 0: the range is [0, 360).
        return a >= 360 ? 0 : a + 0
    }

    /// `self` wrapped into `(-π, π]` (for angles in radians).
    @inlinable public var wrappedToPi: Double {
        // As in ``wrappedTo360``: below 2π in magnitude the remainder is the value itself.
        var a = abs(self) < 2 * .pi ? self : self.truncatingRemainder(dividingBy: 2 * .pi)
        if a > .pi { a -= 2 * .pi } else if a <= -.pi { a += 2 * .pi }
        return a
    }
}
