extension PassAPI {
    /// `GET /api/v1/config/{requestor}`: the MVPDs offered to the requestor, in Adobe's nesting
    /// `{"requestor": {"mvpds": {"mvpd": [...]}}}`.
    public struct ConfigurationResponse: Sendable, Hashable, Codable {
        /// One MVPD. Every field is optional on the wire; the client leaves out an entry without an `id`.
        public struct MVPD: Sendable, Hashable, Codable {
            public var id: String?
            public var displayName: String?
            public var logoURL: String?
            public var enablePlatformServices: Bool?
            public var boardingStatus: String?
            public var displayInPlatformPicker: Bool?
            public var platformMappingID: String?
            public var requiredMetadataFields: [String]?

            enum CodingKeys: String, CodingKey {
                case id, displayName, logoURL, enablePlatformServices, boardingStatus, displayInPlatformPicker, requiredMetadataFields
                case platformMappingID = "platformMappingId"
            }

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

        public struct Requestor: Sendable, Hashable, Codable {
            public var mvpds: MVPDList
        }

        public struct MVPDList: Sendable, Hashable, Codable {
            public var mvpd: [MVPD]
        }

        public var requestor: Requestor

        public init(mvpds: [MVPD]) { requestor = Requestor(mvpds: MVPDList(mvpd: mvpds)) }

        /// The MVPD entries.
        public var mvpds: [MVPD] { requestor.mvpds.mvpd }
    }
}
