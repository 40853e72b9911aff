import Foundation

/// A JSON value (user metadata values, JWE and JWT headers), with a strict parser and a deterministic writer.
///
/// Integers that fit `Int64` are kept exact (``integer(_:)``); other numbers are ``number(_:)``. Equality is JSON's:
/// `50` equals `50.0`.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits `Int64`, kept exact. The parser makes one for a number without a fraction or exponent.
    case integer(Int64)
    /// Any other number: one with a fraction or an exponent, or an integer beyond `Int64`. The parser makes only finite
    /// ones; ``jsonText`` writes a non-finite one as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; ``jsonText`` writes its keys sorted.
    case object([String: JSONValue])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Int64(exactly: b) == a
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .integer(let value): hasher.combine(2); hasher.combine(value)
        case .number(let value):
            // An integral number hashes like the equal integer.
            if let integer = Int64(exactly: value) {
                hasher.combine(2); hasher.combine(integer)
            } else {
                hasher.combine(3); hasher.combine(value)
            }
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .array(let value): hasher.combine(5); hasher.combine(value)
        case .object(let value): hasher.combine(6); hasher.combine(value)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The largest JSON text the parsing initialisers accept: 16 MiB (callers apply their own, smaller limits).
    public static let maximumBytes = 16 << 20

    /// Parses one JSON text (any value at the top, as RFC 8259 allows); `nil` when it is not strict JSON.
    /// See ``init(parsing:)`` for the rules and the reason of a failure.
    public init?(jsonText: some DataProtocol) {
        guard let value = try? JSONValue(parsing: jsonText) else { return nil }
        self = value
    }

    /// Parses one JSON text strictly: duplicate object keys, invalid UTF-8, lone surrogates, control characters in
    /// strings, leading zeros, trailing commas, anything after the value and nesting deeper than 64 levels are
    /// refused. Object keys are compared as Swift strings (canonically equivalent spellings count as duplicates).
    /// - Throws: ``JSONParsingError`` with the byte offset and what was wrong there.
    public init(parsing jsonText: some DataProtocol) throws(JSONParsingError) {
        guard jsonText.count <= Self.maximumBytes else {
            throw JSONParsingError(.tooLarge, offset: 0, reason: "the text is over \(Self.maximumBytes) bytes")
        }
        let bytes = Array(jsonText)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParsingError) -> JSONValue in try Self.parse(buffer) }
        }
        self = try result.get()
    }

    /// Parses JSON from bytes in place (decrypted plaintexts are parsed without a copy).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParsingError) -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// Compact JSON text, with object keys sorted.
    public var jsonText: String {
        var output = ""
        write(to: &output)
        return output
    }

    public var description: String { jsonText }

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The boolean, when this is a boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The object, when this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// The integer, when this is an integer.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
}
