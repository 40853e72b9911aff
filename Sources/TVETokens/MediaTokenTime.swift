import TVECrypto

/// The two `issueTime` encodings of `FORMATS.md` §1: `yyyy-MM-dd HH:mm:ss ±hhmm` and epoch milliseconds.
enum MediaTokenTime {
    /// The length of the dated form.
    static let dateTimeLength = 25
    /// The shape of the dated form: `d` a digit, `s` the sign of the offset.
    static let datePattern: [UInt8] = Array("dddd-dd-dd dd:dd:dd sdddd".utf8)
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
    static func parseInteger(_ raw: UnsafeRawBufferPointer, field: @autoclosure () -> String, offset: Int) throws -> Int64 {
        guard !raw.isEmpty else { throw MediaTokenError.malformedToken(reason: "\(field()) is empty") }
        var value: Int64 = 0
        if raw.count <= 18 {
            // Eighteen digits cannot overflow: no checks in the loop.
            var bad: UInt8 = 0
            for position in 0..<raw.count {
                let digit = raw[position] &- UInt8(ascii: "0")
                bad |= digit > 9 ? 1 : 0
                value = value &* 10 &+ Int64(digit)
            }
            if bad == 0 { return value }
            value = 0
        }
        for position in 0..<raw.count {
            let digit = raw[position] &- UInt8(ascii: "0")
            guard digit < 10 else {
                throw MediaTokenError.malformedToken(reason: "\(field()) has a character other than a digit at byte \(offset + position)")
            }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else {
                throw MediaTokenError.malformedToken(reason: "\(field()) at byte \(offset) does not fit a signed 64-bit integer")
            }
            value = sum
        }
        return value
    }

    /// `yyyy-MM-dd HH:mm:ss ±hhmm`, exactly 25 bytes. Works on the bytes alone (no `Character`): it runs for every token.
    private static func parseDateTime(_ raw: UnsafeRawBufferPointer, offset: Int) throws -> (Int64, ShortMediaToken.Form.IssueTimeEncoding)
    {
        // Shape first: the eighteen digit positions in one OR of "not a digit" flags, then the separators.
        @inline(__always) func notDigit(_ at: Int) -> UInt8 { raw[at] &- 0x30 > 9 ? 1 : 0 }
        var bad = notDigit(0) | notDigit(1) | notDigit(2) | notDigit(3) | notDigit(5) | notDigit(6) | notDigit(8) | notDigit(9)
        bad |= notDigit(11) | notDigit(12) | notDigit(14) | notDigit(15) | notDigit(17) | notDigit(18)
        bad |= notDigit(21) | notDigit(22) | notDigit(23) | notDigit(24)
        let separators =
            raw[4] == UInt8(ascii: "-") && raw[7] == UInt8(ascii: "-") && raw[10] == UInt8(ascii: " ")
            && raw[13] == UInt8(ascii: ":") && raw[16] == UInt8(ascii: ":") && raw[19] == UInt8(ascii: " ")
            && (raw[20] == UInt8(ascii: "+") || raw[20] == UInt8(ascii: "-"))
        if bad != 0 || !separators { throw shapeError(raw, offset: offset) }
        let sign = raw[20]
        @inline(__always) func two(_ at: Int) -> Int { Int(raw[at] &- 0x30) * 10 + Int(raw[at + 1] &- 0x30) }
        let year = two(0) * 100 + two(2)
        let month = two(5), day = two(8), hour = two(11), minute = two(14), second = two(17)
        let offsetHours = two(21), offsetMinutes = two(23)

        guard year >= 1970 else { throw dateError("the year is before 1970", at: offset) }
        guard month >= 1, month <= 12 else { throw dateError("the month is out of range", at: offset + 5) }
        guard day >= 1, day <= CivilTime.daysInMonth(year: year, month: month) else {
            throw dateError("the day does not exist", at: offset + 8)
        }
        guard hour < 24 else { throw dateError("the hour is out of range", at: offset + 11) }
        guard minute < 60 else { throw dateError("the minute is out of range", at: offset + 14) }
        guard second < 60 else { throw dateError("the second is out of range", at: offset + 17) }
        guard offsetHours < 24 else { throw dateError("the offset hours are out of range", at: offset + 21) }
        guard offsetMinutes < 60 else { throw dateError("the offset minutes are out of range", at: offset + 23) }

        let utcOffset = (sign == UInt8(ascii: "-") ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
        let local = Int64(CivilTime.daysFromCivil(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let seconds = local - Int64(utcOffset) * 60
        guard seconds >= 0 else { throw dateError("the instant is before 1970-01-01T00:00:00Z", at: offset) }
        return (seconds * 1000, .dateTime(utcOffsetMinutes: utcOffset))
    }

    /// The first byte out of shape, for the message (the error path only).
    @inline(never)
    private static func shapeError(_ raw: UnsafeRawBufferPointer, offset: Int) -> MediaTokenError {
        for position in 0..<dateTimeLength {
            let expected = datePattern[position]
            let byte = raw[position]
            if expected == UInt8(ascii: "d"), byte &- 0x30 > 9 { return dateError("expected a digit", at: offset + position) }
            if expected == UInt8(ascii: "s"), byte != UInt8(ascii: "+"), byte != UInt8(ascii: "-") {
                return dateError("expected '+' or '-'", at: offset + position)
            }
            if expected != UInt8(ascii: "d"), expected != UInt8(ascii: "s"), byte != expected {
                return dateError("expected '\(Character(Unicode.Scalar(expected)))'", at: offset + position)
            }
        }
        return dateError("malformed", at: offset)
    }

    @inline(never)
    private static func dateError(_ what: String, at position: Int) -> MediaTokenError {
        MediaTokenError.malformedToken(reason: "issueTime is not yyyy-MM-dd HH:mm:ss ±hhmm: \(what) at byte \(position)")
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
        let date = CivilTime.civilFromDays(Int(normalizedDays))
        guard date.year >= 1970, date.year <= 9999 else {
            throw MediaTokenError.invalidField(reason: "issueTime must fall in the years 1970 to 9999 at the chosen offset")
        }
        let year = String(date.year)
        return String(repeating: "0", count: 4 - year.count) + year + "-" + twoDigits(date.month) + "-" + twoDigits(date.day) + " "
            + twoDigits(second / 3600) + ":" + twoDigits(second / 60 % 60) + ":" + twoDigits(second % 60) + " "
            + offsetText(utcOffsetMinutes)
    }
}
