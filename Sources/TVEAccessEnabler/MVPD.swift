import Foundation

/// An MVPD as the flow layer presents it (`displayProviderDialog`, `selectedProvider`).
public struct MVPD: Sendable, Hashable, Codable {
    public var id: String
    public var displayName: String
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

    public init(
        id: String, displayName: String, logoURL: URL? = nil, enablePlatformServices: Bool = false, boardingStatus: String? = nil,
        platformMappingID: String? = nil, requiredMetadataFields: [String] = [], serviceProvider: URL
    ) {
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
