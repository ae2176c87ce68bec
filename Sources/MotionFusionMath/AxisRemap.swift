/// One of the 24 proper axis permutations that map a sensor's raw axes onto the body axes of the
/// device it is mounted in (`body = remap.apply(raw)`).
///
/// Spelled like the mapping: `"+Y-X+Z"` means body x = raw +y, body y = raw −x, body z = raw +z.
public struct AxisRemap: Hashable, Sendable, CustomStringConvertible {
    /// For each body axis, the raw axis index (0 = x, 1 = y, 2 = z) it reads.
    public let source: (Int, Int, Int)
    /// For each body axis, the sign (+1 or −1) applied to that raw axis.
    public let sign: (Double, Double, Double)

    /// Parses a remap such as `"+X+Y+Z"` or `"-Z+Y+X"`. Returns `nil` unless the text names each
    /// axis once with a sign and the result is a proper rotation (determinant +1).
    public init?(_ text: String) {
        let chars = Array(text.uppercased())
        guard chars.count == 6 else { return nil }
        var src = [Int]()
        var sgn = [Double]()
        for i in 0..<3 {
            let s = chars[2 * i]
            let a = chars[2 * i + 1]
            guard s == "+" || s == "-" else { return nil }
            guard let idx = ["X", "Y", "Z"].firstIndex(of: String(a)) else { return nil }
            src.append(idx)
            sgn.append(s == "+" ? 1 : -1)
        }
        guard Set(src).count == 3 else { return nil }
        self.source = (src[0], src[1], src[2])
        self.sign = (sgn[0], sgn[1], sgn[2])
        guard matrix.determinant > 0 else { return nil }
    }

    /// The identity mapping `+X+Y+Z`.
    public static let identity = AxisRemap("+X+Y+Z")!

    /// All 24 proper remaps.
    public static let all: [AxisRemap] = {
        var result = [AxisRemap]()
        let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let names = ["X", "Y", "Z"]
        for p in perms {
            for signs in 0..<8 {
                var text = ""
                for i in 0..<3 { text += ((signs >> i) & 1 == 0 ? "+" : "-") + names[p[i]] }
                if let r = AxisRemap(text) { result.append(r) }
            }
        }
        return result
    }()

    /// Maps a raw sensor vector to body axes.
    @inlinable
    public func apply(_ raw: Vector3) -> Vector3 {
        Vector3(sign.0 * raw[source.0], sign.1 * raw[source.1], sign.2 * raw[source.2])
    }

    /// The signed permutation matrix `M` with `body = M · raw`.
    public var matrix: Matrix3 {
        func row(_ idx: Int, _ s: Double) -> Vector3 {
            var v = Vector3.zero
            v[idx] = s
            return v
        }
        return Matrix3(
            row(source.0, sign.0), row(source.1, sign.1), row(source.2, sign.2))
    }

    /// The rotation `body_from_raw` as a quaternion, so that `q_earth_from_raw =
    /// q_earth_from_body ⊗ remap.quaternion`.
    public var quaternion: Quaternion { Quaternion(matrix) }

    public var description: String {
        let names = ["X", "Y", "Z"]
        func part(_ s: Double, _ i: Int) -> String { (s > 0 ? "+" : "-") + names[i] }
        return part(sign.0, source.0) + part(sign.1, source.1) + part(sign.2, source.2)
    }

    public static func == (a: AxisRemap, b: AxisRemap) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
