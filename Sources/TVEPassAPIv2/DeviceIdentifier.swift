import Foundation

extension PassAPIv2 {
    /// The `AP-Device-Identifier` header: `fingerprint <Base64 of a stable device identifier>`.
    ///
    /// The service provider keys a device's profiles by this value (with the client that sent it); the client sends a
    /// hash of a stable identifier, never the identifier itself.
    public struct DeviceIdentifier: Sendable, Hashable {
        /// The header's name.
        public static let headerName = "AP-Device-Identifier"
        /// The most bytes the identifier may decode to.
        public static let maximumBytes = 256

        /// The Base64 text after `fingerprint `, as sent.
        public let fingerprint: String

        /// Reads a header value.
        /// - Throws: ``HeaderError`` with code `invalid_header_device_identifier` when the value is not
        ///   `fingerprint <Base64>` of 1 to ``maximumBytes`` bytes.
        public init(header value: String) throws(HeaderError) {
            let code = HeaderError.Code.invalidDeviceIdentifier
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "fingerprint" else {
                throw HeaderError(code: code, reason: "\(Self.headerName) must be 'fingerprint <Base64>'")
            }
            let text = String(parts[1])
            let bytes = try PassAPIv2.decodeBase64(text, code: code, header: Self.headerName)
            guard bytes.count <= Self.maximumBytes else {
                throw HeaderError(code: code, reason: "\(Self.headerName) is over \(Self.maximumBytes) bytes once decoded")
            }
            fingerprint = text
        }

        /// The identifier of `bytes` (a hash of the device's stable identifier).
        public init(bytes: [UInt8]) {
            fingerprint = Data(bytes).base64EncodedString()
        }

        /// The header value.
        public var header: String { "fingerprint " + fingerprint }
    }
}
