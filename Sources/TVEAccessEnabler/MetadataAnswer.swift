import TVEJSON

/// A `getMetadata` answer: the value (nil when there is none) and whether it is still encrypted (user metadata
/// when no `MetadataDecryptor` was configured).
public struct MetadataAnswer: Sendable, Hashable {
    public let value: JSONValue?
    public let encrypted: Bool

    public init(value: JSONValue?, encrypted: Bool) {
        self.value = value
        self.encrypted = encrypted
    }
}
