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

/// The authentication of this device, as the service provider reported it (`GET /api/v1/tokens/authn`).
public struct AuthenticationToken: Sendable, Hashable, Codable {
    public var requestor: String
    public var mvpd: String
    public var userID: String
    /// Milliseconds since the epoch.
    public var expires: Int64
    /// Obtained through platform single sign-on (the token exchange).
    public var platformSSO: Bool

    public init(requestor: String, mvpd: String, userID: String, expires: Int64, platformSSO: Bool = false) {
        self.requestor = requestor
        self.mvpd = mvpd
        self.userID = userID
        self.expires = expires
        self.platformSSO = platformSSO
    }
}

/// An authorization of one resource (`GET /api/v1/authorize`).
public struct AuthorizationToken: Sendable, Hashable, Codable {
    public var resource: String
    public var mvpd: String
    /// Milliseconds since the epoch.
    public var expires: Int64

    public init(resource: String, mvpd: String, expires: Int64) {
        self.resource = resource
        self.mvpd = mvpd
        self.expires = expires
    }
}

/// A preauthorization decision (`GET /api/v1/preauthorize`).
public struct PreauthorizationDecision: Sendable, Hashable {
    public var resource: String
    public var authorized: Bool
    /// The MVPD's message for a denial, when it gave one.
    public var message: String?

    public init(resource: String, authorized: Bool, message: String? = nil) {
        self.resource = resource
        self.authorized = authorized
        self.message = message
    }
}
