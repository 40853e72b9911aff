import Foundation

extension PassAPIv2 {
    /// The `X-Device-Info` header: Base64 of a JSON object that describes the device.
    ///
    /// **Choice:** the keys REST API v2 documents as required (``requiredKeys``) are each a non-empty string or a number
    /// when ``init(header:requiringKeys:)`` is asked to require them; other keys are kept as they are. An app's client
    /// sends the device information as the app gives it (Adobe's service fills in what is missing from the request
    /// itself), so the flow layer checks only its form.
    public struct DeviceInfo: Sendable, Hashable {
        /// The header's name.
        public static let headerName = "X-Device-Info"
        /// The keys every device information must give.
        public static let requiredKeys = ["primaryHardwareType", "model", "vendor", "osName", "osVendor", "connectionPort"]

        /// The string and number values, numbers as their JSON text.
        public let values: [String: String]

        /// Reads a header value that must hold each of ``requiredKeys``.
        /// - Parameter value: the header's value.
        /// - Throws: ``HeaderError`` as ``init(header:requiringKeys:)`` says.
        public init(header value: String) throws(HeaderError) { try self.init(header: value, requiringKeys: true) }

        /// Reads a header value.
        /// - Parameters:
        ///   - value: the header's value.
        ///   - requiringKeys: whether each of ``requiredKeys`` must be there.
        /// - Throws: ``HeaderError`` with code `invalid_header_device_info` when the value is not Base64 of a JSON
        ///   object within the limits, lacks a required key (when they are required), or would be over
        ///   ``PassAPIv2/maximumHeaderBytes`` once re-encoded (``header``).
        public init(header value: String, requiringKeys: Bool) throws(HeaderError) {
            let code = HeaderError.Code.invalidDeviceInfo
            let object = try PassAPIv2.jsonObject(base64: value, code: code, header: Self.headerName)
            var values: [String: String] = [:]
            for (key, item) in object {
                if let text = item as? String {
                    values[key] = text
                } else if let number = item as? NSNumber, !(item is Bool) {
                    values[key] = number.stringValue
                }
            }
            for key in Self.requiredKeys where requiringKeys && (values[key] ?? "").isEmpty {
                throw HeaderError(code: code, reason: "\(Self.headerName) lacks the required key \(key)")
            }
            self.values = values
            try PassAPIv2.checkReencoded(header, code: code, header: Self.headerName)
        }

        /// Device information with `values` (which must hold ``requiredKeys``).
        public init(values: [String: String]) {
            self.values = values
        }

        /// The header value: Base64 of the JSON object, keys sorted (numbers as the strings ``values`` holds).
        public var header: String { PassAPIv2.base64JSON(values) }
    }
}
