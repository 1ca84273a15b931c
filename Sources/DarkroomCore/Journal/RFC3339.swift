import Foundation

/// RFC 3339 timestamps in UTC with milliseconds, e.g. `2026-11-21T06:40:00.123Z`.
///
/// Written with calendar arithmetic (Howard Hinnant's days-from-civil algorithms), not
/// `DateFormatter` or `gmtime_r`: it is pure, so it is thread-safe without locks, has no
/// time-zone state, is the same on every platform, and costs a few hundred nanoseconds
/// per journal line.
public enum RFC3339 {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the nearest millisecond (not
    /// truncated, so a `Date` made from a printed value prints the same again despite
    /// binary floating point). Dates outside years 0000–9999 are clamped to them.
    public static func string(from date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date in an RFC 3339 timestamp; `nil` if `text` is not one.
    ///
    /// Accepts any number of fraction digits (nanoseconds are kept), `Z` or a numeric
    /// offset such as `+02:00`, and `t`, `z` or a space as RFC 3339 allows. A leap second
    /// (`:60`) counts as the first second of the next minute.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromBytes: $0) }
    }

    // MARK: - Internals

    private static let minMilliseconds: Int64 = -62_167_219_200_000 // 0000-01-01T00:00:00.000Z
    private static let maxMilliseconds: Int64 = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z

    /// Appends `date`; without `milliseconds`, to the second (`…:SSZ`, the fraction cut off).
    static func append(_ date: Date, to bytes: inout [UInt8], milliseconds withMilliseconds: Bool = true) {
        let exact = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds: Int64
        if exact.isNaN {
            milliseconds = 0
        } else {
            milliseconds = Int64(min(max(exact, Double(minMilliseconds)), Double(maxMilliseconds)))
        }
        let days = floorDivide(milliseconds, 86_400_000)
        var rest = milliseconds - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = rest / 3_600_000
        rest -= hour * 3_600_000
        let minute = rest / 60_000
        rest -= minute * 60_000
        let second = rest / 1000
        let millisecond = rest - second * 1000

        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(hour, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(minute, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(second, count: 2, to: &bytes)
        if withMilliseconds {
            bytes.append(UInt8(ascii: "."))
            appendDigits(millisecond, count: 3, to: &bytes)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    static func date(fromBytes text: UnsafeBufferPointer<UInt8>) -> Date? {
        var cursor = 0
        func number(_ count: Int) -> Int64? {
            guard cursor + count <= text.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<count {
                let byte = text[cursor + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            cursor += count
            return value
        }
        func expect(_ accepted: UInt8...) -> Bool {
            guard cursor < text.count, accepted.contains(text[cursor]) else { return false }
            cursor += 1
            return true
        }

        guard let year = number(4), expect(UInt8(ascii: "-")),
              let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
              let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var nanoseconds: Int64 = 0
        if expect(UInt8(ascii: ".")) {
            var digits = 0
            while cursor < text.count, text[cursor] >= UInt8(ascii: "0"), text[cursor] <= UInt8(ascii: "9") {
                if digits < 9 { nanoseconds = nanoseconds * 10 + Int64(text[cursor] - UInt8(ascii: "0")) }
                digits += 1
                cursor += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanoseconds *= 10 }
        }

        var offsetSeconds: Int64 = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if cursor < text.count, text[cursor] == UInt8(ascii: "+") || text[cursor] == UInt8(ascii: "-") {
            let sign: Int64 = text[cursor] == UInt8(ascii: "-") ? -1 : 1
            cursor += 1
            guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2),
                  offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard cursor == text.count else { return nil }

        let seconds = days(fromYear: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second - offsetSeconds
        if nanoseconds % 1_000_000 == 0 {
            // One correctly rounded division: the same Double as the decimal literal,
            // so a printed date reads back equal to the original.
            return Date(timeIntervalSince1970: Double(seconds * 1000 + nanoseconds / 1_000_000) / 1000)
        }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    private static func appendDigits(_ value: Int64, count: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        var value = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
            value %= divisor
            divisor /= 10
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
