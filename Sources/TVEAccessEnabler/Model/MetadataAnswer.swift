import TVEJSON

/// A `getMetadata` answer: the value (nil when there is none) and whether it is still encrypted (user metadata
/// when no `MetadataDecryptor` was configured).
public struct MetadataAnswer: Sendable, Hashable {
    /// The value, or nil when there is none: a string for the device ID and for a TTL (an expiry in milliseconds
    /// since the epoch), the user-metadata value, or its ciphertext as a string when ``encrypted``.
    public let value: JSONValue?
    /// Whether ``value`` is still encrypted (user metadata that came encrypted, with no `MetadataDecryptor`).
    public let encrypted: Bool

    /// An answer: `value` and whether it is still encrypted.
    public init(value: JSONValue?, encrypted: Bool) {
        self.value = value
        self.encrypted = encrypted
    }
}
