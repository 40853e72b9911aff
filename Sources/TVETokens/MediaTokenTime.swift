/// The two `issueTime` encodings of `FORMATS.md` §1: `yyyy-MM-dd HH:mm:ss ±hhmm` and epoch milliseconds.
enum MediaTokenTime {
    /// The length of the dated form.
    static let dateTimeLength = 25
    /// The largest offset from UTC, in minutes (`±2359`).
    static let maximumOffsetMinutes = 23 * 60 + 59

    /// Parses an `issueTime` text: returns milliseconds since the epoch and the encoding.
    static func parse(_ raw: UnsafeRawBufferPointer, offset: Int) throws -> (Int64, ShortMediaToken.Form.IssueTimeEncoding) {
        guard !raw.isEmpty else { throw MediaTokenError.malformedToken(reason: "issueTime is empty") }
        if raw.count == dateTimeLength, raw[4] == UInt8(ascii: "-") {
            return try parseDateTime(raw, offset: offset)
        }
        return (try parseInteger(raw, field: "issueTime", offset: offset), .epochMilliseconds)
    }

    /// Decimal ASCII digits, no sign, at most Int64.max.
    static func parseInteger(_ raw: UnsafeRawBufferPointer, field: String, offset: Int) throws -> Int64 {
        guard !raw.isEmpty else { throw MediaTokenError.malformedToken(reason: "\(field) is empty") }
        var value: Int64 = 0
        for position in 0..<raw.count {
            let digit = raw[position] &- UInt8(ascii: "0")
            guard digit < 10 else {
                throw MediaTokenError.malformedToken(reason: "\(field) has a character other than a digit at byte \(offset + position)")
            }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else {
                throw MediaTokenError.malformedToken(reason: "\(field) at byte \(offset) does not fit a signed 64-bit integer")
            }
            value = sum
        }
        return value
    }

    /// `yyyy-MM-dd HH:mm:ss ±hhmm`, exactly 25 bytes.
    private static func parseDateTime(_ raw: UnsafeRawBufferPointer, offset: Int) throws -> (Int64, ShortMediaToken.Form.IssueTimeEncoding) {
        func fail(_ what: String, at position: Int) -> MediaTokenError {
            MediaTokenError.malformedToken(reason: "issueTime is not yyyy-MM-dd HH:mm:ss ±hhmm: \(what) at byte \(offset + position)")
        }
        func number(_ start: Int, _ count: Int, _ what: String) throws -> Int {
            var value = 0
            for position in start..<(start + count) {
                let digit = raw[position] &- UInt8(ascii: "0")
                guard digit < 10 else { throw fail("expected a digit in the \(what)", at: position) }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func separator(_ position: Int, _ expected: Character) throws {
            guard raw[position] == expected.asciiValue else { throw fail("expected '\(expected)'", at: position) }
        }
        let year = try number(0, 4, "year")
        try separator(4, "-")
        let month = try number(5, 2, "month")
        try separator(7, "-")
        let day = try number(8, 2, "day")
        try separator(10, " ")
        let hour = try number(11, 2, "hour")
        try separator(13, ":")
        let minute = try number(14, 2, "minute")
        try separator(16, ":")
        let second = try number(17, 2, "second")
        try separator(19, " ")
        let sign = raw[20]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { throw fail("expected '+' or '-'", at: 20) }
        let offsetHours = try number(21, 2, "offset hours")
        let offsetMinutes = try number(23, 2, "offset minutes")

        guard year >= 1970 else { throw fail("the year is before 1970", at: 0) }
        guard (1...12).contains(month) else { throw fail("the month is out of range", at: 5) }
        guard day >= 1, day <= daysInMonth(year: year, month: month) else { throw fail("the day does not exist", at: 8) }
        guard hour < 24 else { throw fail("the hour is out of range", at: 11) }
        guard minute < 60 else { throw fail("the minute is out of range", at: 14) }
        guard second < 60 else { throw fail("the second is out of range", at: 17) }
        guard offsetHours < 24 else { throw fail("the offset hours are out of range", at: 21) }
        guard offsetMinutes < 60 else { throw fail("the offset minutes are out of range", at: 23) }

        let utcOffset = (sign == UInt8(ascii: "-") ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
        let local = Int64(daysFromCivil(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        let seconds = local - Int64(utcOffset) * 60
        guard seconds >= 0 else { throw fail("the instant is before 1970-01-01T00:00:00Z", at: 0) }
        return (seconds * 1000, .dateTime(utcOffsetMinutes: utcOffset))
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
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

    /// `±hhmm`.
    static func offsetText(_ minutes: Int) -> String {
        let magnitude = abs(minutes)
        return (minutes < 0 ? "-" : "+") + twoDigits(magnitude / 60) + twoDigits(magnitude % 60)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// The dated text of `milliseconds` (rounded down to the second) at `utcOffsetMinutes`.
    /// - Throws: ``MediaTokenError/Code/invalidField`` when the offset or the local year is out of range.
    static func dateTimeText(milliseconds: Int64, utcOffsetMinutes: Int) throws -> String {
        guard abs(utcOffsetMinutes) <= maximumOffsetMinutes else {
            throw MediaTokenError.invalidField(reason: "the UTC offset must be between -2359 and +2359")
        }
        guard milliseconds >= 0 else { throw MediaTokenError.invalidField(reason: "issueTime must not be negative") }
        let local = milliseconds / 1000 + Int64(utcOffsetMinutes) * 60
        let (days, secondOfDay) = local.quotientAndRemainder(dividingBy: 86_400)
        let normalizedDays = secondOfDay < 0 ? days - 1 : days
        let second = Int(secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay)
        guard normalizedDays < Int64(Int32.max) else { throw MediaTokenError.invalidField(reason: "issueTime is past the year 9999") }
        let date = civilFromDays(Int(normalizedDays))
        guard date.year >= 1970, date.year <= 9999 else {
            throw MediaTokenError.invalidField(reason: "issueTime must fall in the years 1970 to 9999 at the chosen offset")
        }
        let year = String(date.year)
        return String(repeating: "0", count: 4 - year.count) + year + "-" + twoDigits(date.month) + "-" + twoDigits(date.day) + " "
            + twoDigits(second / 3600) + ":" + twoDigits(second / 60 % 60) + ":" + twoDigits(second % 60) + " "
            + offsetText(utcOffsetMinutes)
    }
}
