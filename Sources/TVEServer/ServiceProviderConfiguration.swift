import Foundation

/// The local service provider's configuration: requestors, MVPDs and their users, resources and rules, metadata.
/// It is read from JSON (`tvekit serve --config FILE`); ``sandbox`` is the built-in default.
public struct ServiceProviderConfiguration: Codable, Sendable, Hashable {
    /// An MVPD as `GET /api/v1/config/{requestor}` lists it, with the local IdP's users.
    public struct MVPD: Codable, Sendable, Hashable {
        public var id: String
        public var displayName: String
        public var logoURL: String?
        public var enablePlatformServices: Bool?
        /// `SUPPORTED`, `PICKER` or absent.
        public var boardingStatus: String?
        public var platformMappingId: String?
        public var requiredMetadataFields: [String]?
        /// The local identity provider's users for this MVPD.
        public var users: [User]

        public init(id: String, displayName: String, logoURL: String? = nil, enablePlatformServices: Bool? = nil,
                    boardingStatus: String? = nil, platformMappingId: String? = nil, requiredMetadataFields: [String]? = nil,
                    users: [User] = []) {
            self.id = id
            self.displayName = displayName
            self.logoURL = logoURL
            self.enablePlatformServices = enablePlatformServices
            self.boardingStatus = boardingStatus
            self.platformMappingId = platformMappingId
            self.requiredMetadataFields = requiredMetadataFields
            self.users = users
        }
    }

    /// A subscriber of an MVPD: the login the IdP checks and what it asserts.
    public struct User: Codable, Sendable, Hashable {
        public var username: String
        /// The password, in clear: this is a local sandbox, never put real credentials here.
        public var password: String
        /// The user metadata (`zip`, `householdID`, `maxRating`, ...) as JSON text values by key.
        public var metadata: [String: String]
        /// Resources this user may not watch, with the MVPD's message.
        public var deniedResources: [String: String]

        public init(username: String, password: String, metadata: [String: String] = [:], deniedResources: [String: String] = [:]) {
            self.username = username
            self.password = password
            self.metadata = metadata
            self.deniedResources = deniedResources
        }
    }

    /// A requestor (programmer channel) and the MVPDs that serve it.
    public struct Requestor: Codable, Sendable, Hashable {
        public var id: String
        public var mvpds: [String]

        public init(id: String, mvpds: [String]) {
            self.id = id
            self.mvpds = mvpds
        }
    }

    public var requestors: [Requestor]
    public var mvpds: [MVPD]
    /// Media-token lifetime in milliseconds (Adobe's default: 7 minutes).
    public var mediaTokenTTL: Int64

    public init(requestors: [Requestor], mvpds: [MVPD], mediaTokenTTL: Int64 = 420_000) {
        self.requestors = requestors
        self.mvpds = mvpds
        self.mediaTokenTTL = mediaTokenTTL
    }

    /// The MVPDs that serve `requestorID`, in configured order; `nil` for an unknown requestor.
    public func mvpds(for requestorID: String) -> [MVPD]? {
        guard let requestor = requestors.first(where: { $0.id == requestorID }) else { return nil }
        return requestor.mvpds.compactMap { id in mvpds.first { $0.id == id } }
    }

    /// The built-in sandbox: one requestor, two MVPDs (one boarded for platform SSO), one user each.
    public static let sandbox = ServiceProviderConfiguration(
        requestors: [Requestor(id: "tvekit-sandbox", mvpds: ["SandboxCable", "SandboxSSO"])],
        mvpds: [
            MVPD(id: "SandboxCable", displayName: "Sandbox Cable", logoURL: "http://127.0.0.1/logos/cable.png",
                 users: [User(username: "viewer", password: "sandbox-password",
                              metadata: ["zip": #"["12345"]"#, "householdID": #""hh-0001""#,
                                         "maxRating": #"{"MPAA":"PG-13","VCHIP":"TV-14","URL":"http://127.0.0.1/ratings"}"#],
                              deniedResources: ["mature-show": "Your parental controls block this program."])]),
            MVPD(id: "SandboxSSO", displayName: "Sandbox SSO", enablePlatformServices: true, boardingStatus: "SUPPORTED",
                 platformMappingId: "sandbox-sso", requiredMetadataFields: ["userID", "zip"],
                 users: [User(username: "sso-viewer", password: "sandbox-password", metadata: ["userID": #""u-0002""#])]),
        ])
}

/// `GET /api/v1/config/{requestor}`: the MVPD list, in Adobe's JSON shape.
struct ConfigResponse: Encodable {
    struct Entry: Encodable {
        let id: String
        let displayName: String
        let logoURL: String?
        let enablePlatformServices: Bool?
        let boardingStatus: String?
        let displayInPlatformPicker: Bool?
        let platformMappingId: String?
        let requiredMetadataFields: [String]?
    }
    struct Requestor: Encodable {
        let mvpds: Mvpds
    }
    struct Mvpds: Encodable {
        let mvpd: [Entry]
    }
    let requestor: Requestor

    init(mvpds: [ServiceProviderConfiguration.MVPD]) {
        requestor = Requestor(mvpds: Mvpds(mvpd: mvpds.map {
            Entry(id: $0.id, displayName: $0.displayName, logoURL: $0.logoURL, enablePlatformServices: $0.enablePlatformServices,
                  boardingStatus: $0.boardingStatus, displayInPlatformPicker: $0.boardingStatus == "PICKER" ? true : nil,
                  platformMappingId: $0.platformMappingId, requiredMetadataFields: $0.requiredMetadataFields)
        }))
    }
}

/// The legacy REST v1 error body `{status, message, details}`.
struct LegacyError: Encodable {
    let status: Int
    let message: String
    let details: String?
}
