extension PassAPI {
    /// An instant in milliseconds since the epoch, as Adobe's answers carry `expires`: sent as a string of digits,
    /// read from a string or a number.
    public struct Timestamp: Sendable, Hashable, Codable {
        /// Milliseconds since the epoch (1970-01-01 UTC).
        public var milliseconds: Int64

        /// Creates a timestamp from milliseconds since the epoch.
        public init(milliseconds: Int64) { self.milliseconds = milliseconds }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                milliseconds = number
            } else if let value = Int64(try container.decode(String.self)) {
                milliseconds = value
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds since the epoch")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(milliseconds))
        }
    }
}
