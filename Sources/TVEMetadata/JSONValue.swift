import Foundation

/// A JSON value, as user metadata carries it: unknown keys are kept in this form.
///
/// Integers that fit `Int64` are kept exact (``integer(_:)``); other numbers are ``number(_:)``.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

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

    /// Parses one JSON text (any value at the top, as RFC 8259 allows); `nil` when it is not JSON.
    public init?(jsonText: some DataProtocol) {
        let data = Data(jsonText)
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    /// Parses JSON from bytes without copying them (for decrypted plaintexts, which must not be copied).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        return try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Compact JSON text, with object keys sorted.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
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
