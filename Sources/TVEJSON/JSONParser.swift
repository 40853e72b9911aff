/// A strict RFC 8259 JSON parser for metadata documents and decrypted plaintexts.
///
/// Strict on purpose: duplicate object keys, control characters in strings, lone surrogates, invalid UTF-8,
/// leading zeros, trailing commas and anything after the value are errors. Nesting is limited to
/// ``maximumDepth`` levels so that hostile input cannot exhaust the stack.
struct JSONParser {
    static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Parses exactly one JSON value, with optional surrounding whitespace.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParsingError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw JSONParsingError(.trailingData, offset: parser.position, reason: "data after the JSON value")
        }
        return value
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    /// An error at the current position, made where `fail` is called (for its `file` and `line`).
    private func fail(_ code: JSONParsingError.Code, _ reason: String, line: UInt = #line) -> JSONParsingError {
        JSONParsingError(code, offset: position, reason: reason, line: line)
    }

    private mutating func value(depth: Int) throws(JSONParsingError) -> JSONValue {
        guard let byte = current else { throw fail(.syntax, "a value was expected") }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < Self.maximumDepth else { throw fail(.tooDeep, "nesting deeper than \(Self.maximumDepth) levels") }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { throw fail(.tooDeep, "nesting deeper than \(Self.maximumDepth) levels") }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fail(.syntax, "unexpected byte")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParsingError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail(.syntax, "truncated literal") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw fail(.syntax, "invalid literal") }
        position += count
    }

    private mutating func object(depth: Int) throws(JSONParsingError) -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail(.syntax, "an object key was expected") }
            let keyOffset = position
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail(.syntax, "':' was expected") }
            position += 1
            skipWhitespace()
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: key) == nil else {
                throw JSONParsingError(.duplicateKey, offset: keyOffset, reason: "a duplicate object key")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "}")?:
                position += 1
                return .object(members)
            default: throw fail(.syntax, "',' or '}' was expected")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONParsingError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "]")?:
                position += 1
                return .array(elements)
            default: throw fail(.syntax, "',' or ']' was expected")
            }
        }
    }

    private mutating func string() throws(JSONParsingError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw fail(.invalidString, "a control character in a string") }
            position += 1
        }
        guard let stop = current else { throw fail(.invalidString, "an unterminated string") }
        if stop == UInt8(ascii: "\"") {
            let run = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
            guard let text = String(validating: run, as: UTF8.self) else {
                throw JSONParsingError(.invalidUTF8, offset: start, reason: "invalid UTF-8 in a string")
            }
            position += 1
            return text
        }
        var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let byte = current else { throw fail(.invalidString, "an unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw JSONParsingError(.invalidUTF8, offset: start, reason: "invalid UTF-8 in a string")
                }
                position += 1
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard let escape = current else { throw fail(.invalidString, "an unterminated escape") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                            throw fail(.invalidString, "a lone high surrogate")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw fail(.invalidString, "a high surrogate without its low surrogate")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail(.invalidString, "a lone low surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail(.invalidString, "an invalid \\u escape") }
                    buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw fail(.invalidString, "an invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw fail(.invalidString, "a control character in a string") }
                buffer.append(byte)
                position += 1
            }
        }
    }

    private mutating func hex4() throws(JSONParsingError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail(.invalidString, "a truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
            default: throw fail(.invalidString, "a non-hex digit in a \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func number() throws(JSONParsingError) -> JSONValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw fail(.invalidNumber, "a digit was expected")
        }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) { throw fail(.invalidNumber, "a leading zero") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw fail(.invalidNumber, "a digit was expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw fail(.invalidNumber, "a digit was expected in the exponent") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard text.utf8.count <= 64 else {
            throw JSONParsingError(.invalidNumber, offset: start, reason: "a number longer than 64 characters")
        }
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JSONParsingError(.invalidNumber, offset: start, reason: "a number out of range")
        }
        return .number(double)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position - start
    }
}

extension JSONValue {
    /// Appends compact JSON text with sorted object keys.
    func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value) where !value.isFinite:
            output += "null"  // JSON has no infinities or NaN
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { output += String(Int64(value)) + ".0" } else { output += "\(value)" }
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key]?.write(to: &output)
            }
            output += "}"
        }
    }

    /// Appends `value` as a JSON string literal (control characters escaped), for printing untrusted text safely.
    public static func writeString(_ value: String, to output: inout String) {
        output += "\""
        // Nothing to escape (the usual case): the whole string at once.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
