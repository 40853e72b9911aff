import Foundation

extension PassAPIv2 {
    /// The `AP-TempPass-Identity` header of promotional TempPass: Base64 JSON that identifies the viewer (for example
    /// `{"email": …}`). The service provider keys the pass by ``key``.
    public struct TempPassIdentity: Sendable, Hashable {
        /// The header's name.
        public static let headerName = "AP-TempPass-Identity"

        /// The identity's string values.
        public let values: [String: String]

        /// Reads a header value.
        /// - Throws: ``HeaderError`` with code `invalid_header_identity_for_temporary_access` when it is not a Base64
        ///   JSON object of string values, within the limits and not empty, or would be over
        ///   ``PassAPIv2/maximumHeaderBytes`` once re-encoded (``header``).
        public init(header value: String) throws(HeaderError) {
            let code = HeaderError.Code.invalidTempPassIdentity
            let object = try PassAPIv2.jsonObject(base64: value, code: code, header: Self.headerName)
            let values = object.compactMapValues { $0 as? String }
            guard !values.isEmpty, values.count == object.count else {
                throw HeaderError(code: code, reason: "\(Self.headerName) must be a non-empty object of strings")
            }
            self.values = values
            try PassAPIv2.checkReencoded(header, code: code, header: Self.headerName)
        }

        /// An identity of `values`, taken as they are: the header reader's checks are not applied.
        public init(values: [String: String]) {
            self.values = values
        }

        /// The canonical form of the identity, which keys a promotional TempPass: each name and value in Unicode
        /// compatibility form (NFKC: a full-width letter is its ASCII letter), lower-cased, without white space at either
        /// end and with each run of white space inside as one space; the pairs sorted, each text prefixed with its
        /// length in bytes (so that no value can pass for a separator). So an email that differs only in case, width or
        /// white space is the same viewer. Two names that become one keep both values.
        public var key: String {
            values.map { (Self.canonical($0.key), Self.canonical($0.value)) }.sorted { $0 < $1 }
                .map { "\($0.0.utf8.count):\($0.0)=\($0.1.utf8.count):\($0.1)" }.joined(separator: ";")
        }

        static func canonical(_ text: String) -> String {
            text.precomposedStringWithCompatibilityMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        /// The header value: Base64 of the JSON object, keys sorted.
        public var header: String { PassAPIv2.base64JSON(values) }
    }
}
