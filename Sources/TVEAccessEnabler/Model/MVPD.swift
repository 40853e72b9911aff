import Foundation

/// An MVPD as the flow layer presents it (`displayProviderDialog`, `selectedProvider`).
public struct MVPD: Sendable, Hashable, Codable {
    /// The MVPD's identifier, as the requestor's configuration names it.
    public var id: String
    /// The name to show the user (the ID when the configuration gives none).
    public var displayName: String
    /// The logo's URL, when the configuration gives one.
    public var logoURL: URL?
    /// Boarded for platform single sign-on.
    public var enablePlatformServices: Bool
    /// `SUPPORTED`, `PICKER` or nil.
    public var boardingStatus: String?
    /// The platform's identifier for this provider (Apple's `accountProviderIdentifier`).
    public var platformMappingID: String?
    /// The SAML attributes to request from the platform for this provider.
    public var requiredMetadataFields: [String]
    /// The service provider that listed it first; later calls for this MVPD go there.
    public var serviceProvider: URL
    /// A TempPass: choosing it authenticates at once, for a limited time, with no login page (REST API v2).
    public var isTempPass: Bool
    /// Shown in the platform's provider picker (REST API v2's `displayInPlatformPicker`; true when not said).
    public var displayInPlatformPicker: Bool

    /// An MVPD; only the ID, the name and the service provider are required.
    public init(
        id: String, displayName: String, logoURL: URL? = nil, enablePlatformServices: Bool = false, boardingStatus: String? = nil,
        platformMappingID: String? = nil, requiredMetadataFields: [String] = [], serviceProvider: URL, isTempPass: Bool = false,
        displayInPlatformPicker: Bool = true
    ) {
        self.isTempPass = isTempPass
        self.displayInPlatformPicker = displayInPlatformPicker
        self.id = id
        self.displayName = displayName
        self.logoURL = logoURL
        self.enablePlatformServices = enablePlatformServices
        self.boardingStatus = boardingStatus
        self.platformMappingID = platformMappingID
        self.requiredMetadataFields = requiredMetadataFields
        self.serviceProvider = serviceProvider
    }
}

extension MVPD {
    private enum CodingKeys: String, CodingKey {
        case id, displayName, logoURL, enablePlatformServices, boardingStatus, platformMappingID, requiredMetadataFields
        case serviceProvider, isTempPass, displayInPlatformPicker
    }

    /// Reads what earlier versions stored too (without `isTempPass` and `displayInPlatformPicker`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), displayName: try c.decode(String.self, forKey: .displayName),
            logoURL: try c.decodeIfPresent(URL.self, forKey: .logoURL),
            enablePlatformServices: try c.decode(Bool.self, forKey: .enablePlatformServices),
            boardingStatus: try c.decodeIfPresent(String.self, forKey: .boardingStatus),
            platformMappingID: try c.decodeIfPresent(String.self, forKey: .platformMappingID),
            requiredMetadataFields: try c.decode([String].self, forKey: .requiredMetadataFields),
            serviceProvider: try c.decode(URL.self, forKey: .serviceProvider),
            isTempPass: try c.decodeIfPresent(Bool.self, forKey: .isTempPass) ?? false,
            displayInPlatformPicker: try c.decodeIfPresent(Bool.self, forKey: .displayInPlatformPicker) ?? true)
    }
}
