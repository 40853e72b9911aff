import Foundation

extension PassAPIv2 {
    /// The `AP-Device-Identifier` header: `fingerprint <Base64 of a stable device identifier>`.
    ///
    /// The service provider keys a device's profiles and TempPasses by this value (with the client that sent it); the
    /// client sends a hash of a stable identifier, never the identifier itself. One identifier has one key whatever
    /// form it came in: the text is read as standard Base64 or as Base64URL, padded or not, and kept as the standard,
    /// padded Base64 of its bytes, so that a client cannot pass for a new device by changing the form.
    public struct DeviceIdentifier: Sendable, Hashable {
        /// The header's name.
        public static let headerName = "AP-Device-Identifier"
        /// The most bytes the identifier may decode to.
        public static let maximumBytes = 256

        /// The identifier's bytes in standard, padded Base64: the canonical form of the text after `fingerprint `.
        public let fingerprint: String

        /// Reads a header value.
        /// - Throws: ``HeaderError`` with code `invalid_header_device_identifier` when the value is not
        ///   `fingerprint <Base64>` of 1 to ``maximumBytes`` bytes (standard Base64 or Base64URL, padding optional; one
        ///   alphabet, not both).
        public init(header value: String) throws(HeaderError) {
            let code = HeaderError.Code.invalidDeviceIdentifier
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "fingerprint" else {
                throw HeaderError(code: code, reason: "\(Self.headerName) must be 'fingerprint <Base64>'")
            }
            var text = String(parts[1])
            // Base64URL (`-` and `_` for `+` and `/`) is the same identifier; a text that mixes the two alphabets is none.
            if text.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) {
                guard !text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) else {
                    throw HeaderError(code: code, reason: "\(Self.headerName) mixes the Base64 and Base64URL alphabets")
                }
                text = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
            }
            let bytes = try PassAPIv2.decodeBase64(text, code: code, header: Self.headerName)
            guard !bytes.isEmpty else { throw HeaderError(code: code, reason: "\(Self.headerName) decodes to no bytes") }
            guard bytes.count <= Self.maximumBytes else {
                throw HeaderError(code: code, reason: "\(Self.headerName) is over \(Self.maximumBytes) bytes once decoded")
            }
            fingerprint = Data(bytes).base64EncodedString()
        }

        /// The identifier of `bytes` (a hash of the device's stable identifier).
        public init(bytes: [UInt8]) {
            fingerprint = Data(bytes).base64EncodedString()
        }

        /// The header value.
        public var header: String { "fingerprint " + fingerprint }
    }
}
