import Foundation

/// A user-metadata document as the service provider returns it, before decryption (FORMATS.md §2).
///
/// Two shapes are read:
/// - REST v1 `GET /api/v1/tokens/usermetadata`: `{"updated": 1334243471, "encrypted": ["zip"], "data": {...}}`.
///   A key listed in `encrypted` must have a string value in `data` (its ciphertext).
/// - REST v2 profile attributes: `{"attributes": {"zip": {"value": "...", "state": "enc"}, ...}}` (or the
///   `attributes` object itself), where `state` is `plain` or `enc`.
///
/// Limits: the JSON text is at most ``maximumDocumentBytes``, at most ``maximumEntries`` keys, and each
/// encrypted value at most ``maximumCiphertextBytes``.
public struct UserMetadataDocument: Sendable, Hashable {
    /// One value of the document.
    public enum Entry: Sendable, Hashable {
        /// A value in clear.
        case plain(JSONValue)
        /// The text of an encrypted value: Base64 RSA blocks or a JWE compact serialization.
        case encrypted(String)
    }

    /// Which API the document came from.
    public enum Shape: String, Sendable, Hashable {
        /// `restV1`: the REST v1 `usermetadata` answer; `restV2`: REST v2 profile attributes.
        case restV1, restV2
    }

    /// The largest document accepted: 1 MiB (1,048,576 bytes) of JSON text.
    public static let maximumDocumentBytes = 1 << 20
    /// The most keys a document may hold: 1024.
    public static let maximumEntries = 1024
    /// The longest encrypted value accepted: 64 KiB (65,536 bytes) of UTF-8 text.
    public static let maximumCiphertextBytes = 64 * 1024

    /// Which API the document came from; ``jsonText`` always writes the REST v1 shape.
    public var shape: Shape
    /// The REST v1 `updated` counter (`nil` for REST v2).
    public var updated: Int64?
    /// The values by key.
    public var entries: [String: Entry]

    /// Creates a document from its entries, without checking the limits; the shape defaults to REST v1.
    public init(shape: Shape = .restV1, updated: Int64?, entries: [String: Entry]) {
        self.shape = shape
        self.updated = updated
        self.entries = entries
    }

    /// The keys whose values are encrypted, sorted.
    public var encryptedKeys: [String] {
        entries.compactMap { key, entry in if case .encrypted = entry { key } else { nil } }.sorted()
    }

    /// Reads a document in either shape.
    /// - Throws: ``MetadataError/Code/malformedDocument`` or ``MetadataError/Code/inputTooLarge``.
    public init(jsonText: some DataProtocol) throws {
        guard jsonText.count <= Self.maximumDocumentBytes else {
            throw MetadataError.inputTooLarge(reason: "the document is \(jsonText.count) bytes; the limit is \(Self.maximumDocumentBytes)")
        }
        guard let root = JSONValue(jsonText: jsonText) else {
            throw MetadataError.malformedDocument(reason: "the document is not JSON")
        }
        try self.init(json: root)
    }

    /// Reads a document from parsed JSON.
    public init(json root: JSONValue) throws {
        guard case .object(let object) = root else {
            throw MetadataError.malformedDocument(reason: "the document is not a JSON object")
        }
        if let data = object["data"] {
            try self.init(restV1: object, data: data)
        } else if let attributes = object["attributes"] {
            guard case .object(let attributes) = attributes else {
                throw MetadataError.malformedDocument(reason: "\"attributes\" is not an object")
            }
            try self.init(restV2: attributes)
        } else if !object.isEmpty, object.values.allSatisfy({ $0.objectValue?["state"] != nil }) {
            try self.init(restV2: object)
        } else {
            throw MetadataError.malformedDocument(reason: "the document has neither \"data\" (REST v1) nor \"attributes\" (REST v2)")
        }
    }

    private init(restV1 object: [String: JSONValue], data: JSONValue) throws {
        guard case .integer(let updated) = object["updated"] else {
            throw MetadataError.malformedDocument(reason: "\"updated\" is missing or not an integer")
        }
        guard case .object(let values) = data else { throw MetadataError.malformedDocument(reason: "\"data\" is not an object") }
        guard values.count <= Self.maximumEntries else {
            throw MetadataError.inputTooLarge(reason: "\"data\" has \(values.count) keys; the limit is \(Self.maximumEntries)")
        }
        var encryptedKeys: Set<String> = []
        switch object["encrypted"] {
        case nil:
            break
        case .array(let list)?:
            for item in list {
                guard case .string(let key) = item else {
                    throw MetadataError.malformedDocument(reason: "\"encrypted\" holds something other than key names")
                }
                guard values[key] != nil else {
                    throw MetadataError.malformedDocument(reason: "\"encrypted\" lists \"\(Self.printable(key))\", which \"data\" lacks")
                }
                encryptedKeys.insert(key)
            }
        default:
            throw MetadataError.malformedDocument(reason: "\"encrypted\" is not an array")
        }
        var entries: [String: Entry] = [:]
        for (key, value) in values {
            if encryptedKeys.contains(key) {
                entries[key] = .encrypted(try Self.ciphertext(value, key: key))
            } else {
                entries[key] = .plain(value)
            }
        }
        self.init(shape: .restV1, updated: updated, entries: entries)
    }

    private init(restV2 attributes: [String: JSONValue]) throws {
        guard attributes.count <= Self.maximumEntries else {
            throw MetadataError.inputTooLarge(reason: "\"attributes\" has \(attributes.count) keys; the limit is \(Self.maximumEntries)")
        }
        var entries: [String: Entry] = [:]
        for (key, attribute) in attributes {
            guard case .object(let fields) = attribute, let value = fields["value"] else {
                throw MetadataError.malformedDocument(reason: "attribute \"\(Self.printable(key))\" is not {\"value\", \"state\"}")
            }
            switch fields["state"] {
            case .string("plain")?: entries[key] = .plain(value)
            case .string("enc")?: entries[key] = .encrypted(try Self.ciphertext(value, key: key))
            default:
                throw MetadataError.malformedDocument(
                    reason: "attribute \"\(Self.printable(key))\" has a state other than \"plain\" or \"enc\"")
            }
        }
        self.init(shape: .restV2, updated: nil, entries: entries)
    }

    private static func ciphertext(_ value: JSONValue, key: String) throws -> String {
        guard case .string(let text) = value else {
            throw MetadataError.malformedDocument(reason: "the encrypted value of \"\(printable(key))\" is not a string")
        }
        guard text.utf8.count <= maximumCiphertextBytes else {
            throw MetadataError.inputTooLarge(
                reason: "the encrypted value of \"\(printable(key))\" is \(text.utf8.count) bytes; the limit is \(maximumCiphertextBytes)")
        }
        return text
    }

    /// A key name as it may appear in a message: at most 64 characters, control characters escaped.
    static func printable(_ key: String) -> String {
        let clipped = key.unicodeScalars.prefix(64).map { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: "?"
            default: String(scalar)
            }
        }.joined()
        return key.unicodeScalars.count > 64 ? clipped + "…" : clipped
    }

    /// The document as REST v1 JSON text (`{"data", "encrypted", "updated"}`, keys sorted).
    public var jsonText: String {
        var data: [String: JSONValue] = [:]
        for (key, entry) in entries {
            switch entry {
            case .plain(let value): data[key] = value
            case .encrypted(let text): data[key] = .string(text)
            }
        }
        let object: [String: JSONValue] = [
            "updated": .integer(updated ?? 0),
            "encrypted": .array(encryptedKeys.map { .string($0) }),
            "data": .object(data),
        ]
        return JSONValue.object(object).jsonText
    }
}
