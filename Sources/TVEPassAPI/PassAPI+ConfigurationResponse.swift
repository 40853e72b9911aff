extension PassAPI {
    /// `GET /api/v1/config/{requestor}`: the MVPDs offered to the requestor, in Adobe's nesting
    /// `{"requestor": {"mvpds": {"mvpd": [...]}}}`.
    public struct ConfigurationResponse: Sendable, Hashable, Codable {
        /// One MVPD. Every field is optional on the wire; the client leaves out an entry without an `id`.
        public struct MVPD: Sendable, Hashable, Codable {
            /// The MVPD's identifier.
            public var id: String?
            /// The name to show in the provider picker.
            public var displayName: String?
            /// The address of the MVPD's logo, as text.
            public var logoURL: String?
            /// Whether the MVPD is boarded for platform single sign-on.
            public var enablePlatformServices: Bool?
            /// The platform single-sign-on boarding status: `SUPPORTED`, `PICKER` or absent.
            public var boardingStatus: String?
            /// Whether the platform's provider picker shows the MVPD; the local service provider sends `true` for `PICKER` only.
            public var displayInPlatformPicker: Bool?
            /// The platform's identifier for this provider (Apple's `accountProviderIdentifier`), sent as `platformMappingId`.
            public var platformMappingID: String?
            /// The SAML attributes to request from the platform for this provider.
            public var requiredMetadataFields: [String]?

            enum CodingKeys: String, CodingKey {
                case id, displayName, logoURL, enablePlatformServices, boardingStatus, displayInPlatformPicker, requiredMetadataFields
                case platformMappingID = "platformMappingId"
            }

            /// Creates an entry; every field but `id` is nil (left out of the JSON) by default.
            public init(
                id: String?, displayName: String? = nil, logoURL: String? = nil, enablePlatformServices: Bool? = nil,
                boardingStatus: String? = nil, displayInPlatformPicker: Bool? = nil, platformMappingID: String? = nil,
                requiredMetadataFields: [String]? = nil
            ) {
                self.id = id
                self.displayName = displayName
                self.logoURL = logoURL
                self.enablePlatformServices = enablePlatformServices
                self.boardingStatus = boardingStatus
                self.displayInPlatformPicker = displayInPlatformPicker
                self.platformMappingID = platformMappingID
                self.requiredMetadataFields = requiredMetadataFields
            }
        }

        /// The `requestor` object of the nesting.
        public struct Requestor: Sendable, Hashable, Codable {
            /// The `mvpds` object.
            public var mvpds: MVPDList
        }

        /// The `mvpds` object of the nesting.
        public struct MVPDList: Sendable, Hashable, Codable {
            /// The MVPD entries, as the `mvpd` array.
            public var mvpd: [MVPD]
        }

        /// The top-level `requestor` object; ``PassAPI/ConfigurationResponse/mvpds`` reads the entries out of it.
        public var requestor: Requestor

        /// Wraps MVPD entries in Adobe's nesting.
        public init(mvpds: [MVPD]) { requestor = Requestor(mvpds: MVPDList(mvpd: mvpds)) }

        /// The MVPD entries.
        public var mvpds: [MVPD] { requestor.mvpds.mvpd }
    }
}
