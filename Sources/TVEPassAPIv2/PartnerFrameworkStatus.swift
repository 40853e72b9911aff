import Foundation

extension PassAPIv2 {
    /// The `AP-Partner-Framework-Status` header of partner (Apple) single sign-on: Base64 JSON
    /// `{frameworkPermissionInfo{accessStatus, error}, frameworkProviderInfo{id, expirationDate, error}}`.
    public struct PartnerFrameworkStatus: Sendable, Hashable, Codable {
        /// The header's name.
        public static let headerName = "AP-Partner-Framework-Status"

        /// What the viewer allowed the app: the partner framework's access status (other keys, such as `error`, are
        /// ignored).
        public struct PermissionInfo: Sendable, Hashable, Codable {
            /// `granted`, `denied`, `restricted` or `notDetermined`.
            public var accessStatus: String?
            /// Permission information with `accessStatus`.
            public init(accessStatus: String?) { self.accessStatus = accessStatus }
        }

        /// The provider the partner names, and when the partner's session with it ends. `expirationDate` is read from a
        /// number or a decimal string and written as a string; an `id` or `expirationDate` of another type reads as absent.
        public struct ProviderInfo: Sendable, Hashable, Codable {
            /// The partner's identifier of the MVPD (its `platformMappingId`).
            public var id: String?
            /// When the partner's session ends, epoch milliseconds as a string (or a number).
            public var expirationDate: Int64?

            /// Provider information; `expirationDate` is in milliseconds since 1970.
            public init(id: String?, expirationDate: Int64?) {
                self.id = id
                self.expirationDate = expirationDate
            }

            enum CodingKeys: String, CodingKey { case id, expirationDate }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                id = try? c.decodeIfPresent(String.self, forKey: .id)
                if let number = try? c.decodeIfPresent(Int64.self, forKey: .expirationDate) {
                    expirationDate = number
                } else {
                    expirationDate = (try? c.decodeIfPresent(String.self, forKey: .expirationDate)).flatMap { $0.flatMap { Int64($0) } }
                }
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encodeIfPresent(id, forKey: .id)
                try c.encodeIfPresent(expirationDate.map(String.init), forKey: .expirationDate)
            }
        }

        /// The viewer's permission; single sign-on needs an `accessStatus` of `granted`.
        public var frameworkPermissionInfo: PermissionInfo?
        /// The provider the partner names, when it names one.
        public var frameworkProviderInfo: ProviderInfo?

        /// A status of these parts; ``header`` is its header value.
        public init(frameworkPermissionInfo: PermissionInfo?, frameworkProviderInfo: ProviderInfo?) {
            self.frameworkPermissionInfo = frameworkPermissionInfo
            self.frameworkProviderInfo = frameworkProviderInfo
        }

        /// Reads a header value.
        /// - Throws: ``HeaderError`` with code `invalid_header_pfs_permission_access_not_present` when it is not Base64
        ///   JSON of this shape within the limits, or would be over ``PassAPIv2/maximumHeaderBytes`` once re-encoded
        ///   (``header``).
        public init(header value: String) throws(HeaderError) {
            let code = HeaderError.Code.invalidPartnerFrameworkStatus
            let bytes = try PassAPIv2.decodeBase64(value, code: code, header: Self.headerName)
            guard JSONDepth.isWithin(bytes, maximumDepth: PassAPIv2.maximumJSONDepth),
                let status = try? JSONDecoder().decode(Self.self, from: Data(bytes))
            else {
                throw HeaderError(code: code, reason: "\(Self.headerName) is not of the documented shape")
            }
            self = status
            try PassAPIv2.checkReencoded(header, code: code, header: Self.headerName)
        }

        /// The header value.
        public var header: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return ((try? encoder.encode(self)) ?? Data("{}".utf8)).base64EncodedString()
        }
    }
}
