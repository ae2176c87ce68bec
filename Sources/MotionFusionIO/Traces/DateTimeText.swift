/// Date-times in a time column — ISO 8601 (`2024-03-01T12:00:00.123Z`, `2024-03-01T13:00:00+01:00`)
/// and the spreadsheet spelling with a space (`2024-03-01 12:00:00.123`, `2023-3-10 9:05:40.1`) —
/// read as seconds since 1970-01-01 UTC (UTC unless the text gives an offset), so per-sensor files
/// and other logs join on one clock; and times of day without a date (WitMotion's `15:35:40.123`),
/// read as seconds since midnight.
public enum DateTimeText {
    /// The seconds since the epoch of the text from `start` to `end` at `p` (surrounding spaces
    /// and quotes ignored): `YYYY-MM-DD` or `YYYY/MM/DD` (month and day of one or two digits), `T` or a space,
    /// `hh:mm` (the hour of one or two digits), optionally `:ss` and a fraction after `.` or `,`,
    /// optionally `Z` or an offset `±hh`, `±hhmm` or `±hh:mm`; or a time of day alone, `hh:mm:ss`
    /// and an optional fraction, as seconds since midnight (``isTimeOfDay(_:)``). Nil for
    /// anything else, including out-of-range fields. With `monthFirst` (a file that states its date
    /// format so, ``Preamble/statesMonthFirstDates(_:)``), the date is `M/D/YYYY` (ActiLife's
    /// `3/1/2024 10:00:00.000`) unless it starts with a four-digit year.
    static func seconds(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, monthFirst: Bool = false) -> Double? {
        var i = start
        var e = end
        while i < e && (p[i] == 0x20 || p[i] == 0x22) { i += 1 }
        while e > i && (p[e - 1] == 0x20 || p[e - 1] == 0x22) { e -= 1 }
        func digits(_ n: Int) -> Int? {
            guard i + n <= e else { return nil }
            var v = 0
            for k in 0..<n {
                let d = Int(p[i + k]) - 0x30
                guard (0...9).contains(d) else { return nil }
                v = v * 10 + d
            }
            i += n
            return v
        }
        /// One digit, or two.
        func shortNumber() -> Int? {
            guard let first = digits(1) else { return nil }
            guard let second = digits(1) else { return first }
            return first * 10 + second
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < e && p[i] == c else { return false }
            i += 1
            return true
        }
        let timeOfDay = i + 2 < e && (p[i + 1] == 0x3A || p[i + 2] == 0x3A)
        var (year, month, day) = (1970, 1, 1)
        // Month first only where stated, and a date with its year first still reads there.
        let yearFirst = i + 4 < e && (0x30...0x39).contains(p[i + 2]) && (0x30...0x39).contains(p[i + 3])
        if !timeOfDay && monthFirst && !yearFirst {
            guard let m = shortNumber(), expect(0x2F), let d = shortNumber(), expect(0x2F), let y = digits(4),
                expect(0x54) || expect(0x20) || expect(0x74)
            else { return nil }
            (year, month, day) = (y, m, d)
        } else if !timeOfDay {
            // `-` or, as some spreadsheets write it, `/` between year, month and day (the same twice).
            guard let y = digits(4), i < e, p[i] == 0x2D || p[i] == 0x2F else { return nil }
            let dateSeparator = p[i]
            i += 1
            guard let m = shortNumber(), expect(dateSeparator), let d = shortNumber(),
                expect(0x54) || expect(0x20) || expect(0x74)
            else { return nil }
            (year, month, day) = (y, m, d)
        }
        guard let hour = shortNumber(), expect(0x3A), let minute = digits(2) else { return nil }
        var second = 0
        var fraction = 0.0
        // A time of day needs its seconds (`12:30` alone is no clock reading).
        if expect(0x3A) || timeOfDay {
            guard let s = digits(2) else { return nil }
            second = s
            if expect(0x2E) || expect(0x2C) {
                var value = 0
                var count = 0
                while i < e && (0x30...0x39).contains(p[i]) {
                    // Digits past nanoseconds are below a double's resolution of an epoch time.
                    if count < 9 {
                        value = value * 10 + Int(p[i] - 0x30)
                        count += 1
                    }
                    i += 1
                }
                guard count > 0 else { return nil }
                fraction = Double(value) / Double(powersOfTen[count])
            }
        }
        var offset = 0
        if timeOfDay {
            // No zone without a date.
        } else if expect(0x5A) || expect(0x7A) {
            offset = 0
        } else if i < e && (p[i] == 0x2B || p[i] == 0x2D) {
            let sign = p[i] == 0x2D ? -1 : 1
            i += 1
            guard let h = digits(2) else { return nil }
            _ = expect(0x3A)
            let m = i < e ? digits(2) : 0
            guard let m, h <= 14, m < 60 else { return nil }
            offset = sign * (h * 3600 + m * 60)
        }
        guard i == e, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour <= 24, minute < 60,
            second <= 60
        else {
            return nil
        }
        let whole = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(whole) + fraction
    }

    /// Days in `month` (1…12) of `year` (Gregorian: 2024-02-30 and 2023-02-29 are not dates).
    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether `text` is a time of day without a date (`15:35:40.123`): ``seconds(_:)`` gives
    /// seconds since midnight, not since the epoch.
    static func isTimeOfDay(_ text: String) -> Bool {
        let t = text.trimmingSpaces.filter { $0 != "\"" }
        return t.count > 2 && (t.dropFirst().first == ":" || t.dropFirst(2).first == ":") && seconds(text) != nil
    }

    /// The same for a string.
    static func seconds(_ text: String, monthFirst: Bool = false) -> Double? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { b in
            b.baseAddress.flatMap { seconds(UnsafePointer($0), 0, b.count, monthFirst: monthFirst) }
        }
    }

    static let powersOfTen = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (eras of 400 years,
    /// years starting in March so that the leap day comes last).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The UTC calendar date of `seconds` since 1970-01-01T00:00:00Z: the inverse of
    /// ``daysFromCivil(_:_:_:)`` (no time-zone database needed).
    public static func utcDate(secondsSince1970 seconds: Double) -> (year: Int, month: Int, day: Int) {
        let days = Int((seconds / 86_400).rounded(.down)) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
