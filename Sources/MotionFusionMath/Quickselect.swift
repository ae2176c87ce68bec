/// Order statistics by quickselect (Hoare's selection): linear time on average, one copy.
public enum Quickselect {
    /// Median (upper middle element) of a list; nil when empty.
    public static func median(_ values: [Double]) -> Double? { quantile(values, 0.5) }

    /// The element of rank ⌊q · count⌋ (0 ≤ q < 1; the last for q ≥ 1) of a list; nil when empty.
    public static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        var a = values
        let k = min(a.count - 1, Int(Double(a.count) * max(0, q)))
        var lo = 0
        var hi = a.count - 1
        while lo < hi {
            let pivot = a[(lo + hi) / 2]
            var i = lo
            var j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                break
            }
        }
        return a[k]
    }
}
