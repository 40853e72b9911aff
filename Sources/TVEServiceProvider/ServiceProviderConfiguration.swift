import Foundation
import TVEPassAPI

/// The local service provider's configuration: requestors, MVPDs and their users, resources and rules, metadata.
/// It is read from JSON (`tvekit serve --config FILE`); ``sandbox`` is the built-in default.
public struct ServiceProviderConfiguration: Codable, Sendable, Hashable {
    /// An MVPD as `GET /api/v1/config/{requestor}` lists it, with the local IdP's users.
    public struct MVPD: Codable, Sendable, Hashable {
        /// The MVPD's identifier, as requestors and paths (`/idp/{mvpd}`) name it; unique in the configuration.
        public var id: String
        /// The name shown to viewers: in the MVPD lists, the activation page and the login page.
        public var displayName: String
        /// The URL of the MVPD's logo, listed as it is.
        public var logoURL: String?
        /// Whether the MVPD is boarded for platform single sign-on; only `true` opens the platform-SSO routes to it.
        public var enablePlatformServices: Bool?
        /// `SUPPORTED`, `PICKER` or absent.
        public var boardingStatus: String?
        /// The platform's (Apple's) identifier of the MVPD: the provider ID that `AP-Partner-Framework-Status` names.
        public var platformMappingId: String?
        /// The user-metadata keys the identity provider asserts as SAML attributes (those the user has); a partner
        /// session asks for the same.
        public var requiredMetadataFields: [String]?
        /// The local identity provider's users for this MVPD.
        public var users: [User]
        /// Resources the MVPD denies to every subscriber, with its message.
        public var deniedResources: [String: String]?
        /// A TempPass MVPD (REST API v2): choosing it authenticates at once, with no login, for ``tempPassDuration``
        /// seconds from the device's first use; after that its decisions fail with
        /// `temporary_access_duration_limit_exceeded`. Listed by the v2 configuration only.
        public var isTempPass: Bool?
        /// How long a TempPass lasts, in seconds (default 3,600).
        public var tempPassDuration: Int64?
        /// A promotional TempPass: keyed by the viewer's `AP-TempPass-Identity` (required) instead of the device.
        public var promotionalTempPass: Bool?
        /// Start with degraded access on for this MVPD (REST API v2; see ``DegradedAccess``, which switches it at run time).
        public var degradedAccess: Bool?
        /// Whether the MVPD has a logout endpoint (default `true`). Without one, a REST API v2 logout is `complete`
        /// with no page to open (Adobe's "dummy logout").
        public var hasLogoutEndpoint: Bool?
        /// A promotional TempPass's limit of resources: how many different resources one viewer may be authorized
        /// for (REST API v2; 1 to 1,000); no limit when absent. Past it, a new resource's decision fails with
        /// `temporary_access_resources_limit_exceeded`.
        public var tempPassResourceLimit: Int?
        /// Stands for a TempPass whose configuration at Adobe is invalid (a testing switch): it can be chosen, but its
        /// profiles and decisions answer 500 `invalid_configuration_temporary_access`.
        public var tempPassConfigurationInvalid: Bool?

        /// The SAML entity ID of this MVPD's identity provider (local).
        public var idpEntityID: String { "urn:tvekit:idp:" + id }

        /// An MVPD with `id` and `displayName`; every other field is optional, with no users by default.
        public init(
            id: String, displayName: String, logoURL: String? = nil, enablePlatformServices: Bool? = nil,
            boardingStatus: String? = nil, platformMappingId: String? = nil, requiredMetadataFields: [String]? = nil,
            users: [User] = [], deniedResources: [String: String]? = nil, isTempPass: Bool? = nil, tempPassDuration: Int64? = nil,
            promotionalTempPass: Bool? = nil, degradedAccess: Bool? = nil, hasLogoutEndpoint: Bool? = nil,
            tempPassResourceLimit: Int? = nil, tempPassConfigurationInvalid: Bool? = nil
        ) {
            self.degradedAccess = degradedAccess
            self.hasLogoutEndpoint = hasLogoutEndpoint
            self.tempPassResourceLimit = tempPassResourceLimit
            self.tempPassConfigurationInvalid = tempPassConfigurationInvalid
            self.id = id
            self.displayName = displayName
            self.logoURL = logoURL
            self.enablePlatformServices = enablePlatformServices
            self.boardingStatus = boardingStatus
            self.platformMappingId = platformMappingId
            self.requiredMetadataFields = requiredMetadataFields
            self.users = users
            self.deniedResources = deniedResources
            self.isTempPass = isTempPass
            self.tempPassDuration = tempPassDuration
            self.promotionalTempPass = promotionalTempPass
        }

        /// The TempPass duration in milliseconds.
        var tempPassMilliseconds: Int64 { (tempPassDuration ?? 3600) * 1000 }
    }

    /// A subscriber of an MVPD: the login the IdP checks and what it asserts.
    public struct User: Codable, Sendable, Hashable {
        /// The login name the identity provider checks; the asserted NameID unless the `userID` metadata is set.
        public var username: String
        /// The password, in clear: this is a local sandbox, never put real credentials here.
        public var password: String
        /// The user metadata (`zip`, `householdID`, `maxRating`, ...) as JSON text values by key.
        public var metadata: [String: String]
        /// Resources this user may not watch, with the MVPD's message.
        public var deniedResources: [String: String]

        /// A user; no metadata and no denied resources by default.
        public init(username: String, password: String, metadata: [String: String] = [:], deniedResources: [String: String] = [:]) {
            self.username = username
            self.password = password
            self.metadata = metadata
            self.deniedResources = deniedResources
        }
    }

    /// A requestor (programmer channel) and the MVPDs that serve it.
    public struct Requestor: Codable, Sendable, Hashable {
        /// The requestor ID, as paths (`/api/v1/config/{requestor}`) and signatures name it; non-empty and unique.
        public var id: String
        /// The IDs of the MVPDs that serve this requestor, in listed order; each must be one of
        /// ``ServiceProviderConfiguration/mvpds``.
        public var mvpds: [String]
        /// The resources this requestor offers; `nil` accepts any resource ID.
        public var resources: [String]?
        /// The user-metadata keys `GET /api/v1/tokens/usermetadata` encrypts for the programmer's certificate.
        public var encryptedMetadataKeys: [String]?
        /// How they are encrypted: `rsa` (RSA PKCS#1 v1.5 blocks, REST v1; the default) or `jwe` (RSA-OAEP-256 with
        /// A256GCM).
        public var metadataEncryption: String?
        /// Legacy clientless credentials (tvOS `publicKey` / `secret`) accepted instead of a Bearer token.
        public var clientlessCredentials: [ClientlessCredential]?
        /// The URLs a login may return to (`redirect_url`), matched exactly; ``defaultRedirectURLs`` when absent.
        public var redirectURLs: [String]?
        /// The name the v2 configuration gives (the ID when absent).
        public var name: String?
        /// The domains a v2 session may name (`domainName`), any domain when absent; web pages on them are valid
        /// redirect URLs (see ``allowsRedirect(to:)``).
        public var domains: [String]?
        /// The registered applications (the `sub` of their software statements) whose access tokens are good here. An
        /// application that no requestor lists is bound to the first requestor its client calls; a token used on
        /// any other requestor is refused with 401 `invalid_access_token_service_provider`.
        public var applications: [String]?
        /// The REST API v2 single-sign-on group: the requestors of one group share the logins made with a platform
        /// identity or a service token (a programmer's channels); requestors that name no group form one group.
        public var singleSignOnGroup: String?

        /// Adobe's SDK redirect URLs.
        public static let defaultRedirectURLs = ["adobepass://ios.app", "adobepass://android.app"]

        var allowedRedirectURLs: [String] { redirectURLs ?? Self.defaultRedirectURLs }

        /// A requestor served by `mvpds`; each optional field, when absent, means what its property says.
        public init(
            id: String, mvpds: [String], resources: [String]? = nil, encryptedMetadataKeys: [String]? = nil,
            metadataEncryption: String? = nil, clientlessCredentials: [ClientlessCredential]? = nil, redirectURLs: [String]? = nil,
            name: String? = nil, domains: [String]? = nil, applications: [String]? = nil, singleSignOnGroup: String? = nil
        ) {
            self.singleSignOnGroup = singleSignOnGroup
            self.applications = applications
            self.id = id
            self.mvpds = mvpds
            self.resources = resources
            self.encryptedMetadataKeys = encryptedMetadataKeys
            self.metadataEncryption = metadataEncryption
            self.clientlessCredentials = clientlessCredentials
            self.redirectURLs = redirectURLs
            self.name = name
            self.domains = domains
        }
    }

    /// A clientless `public_key` and its HMAC-SHA1 secret. This is a local sandbox: never put real secrets here.
    public struct ClientlessCredential: Codable, Sendable, Hashable {
        /// The `public_key` a clientless `Authorization` header names.
        public var publicKey: String
        /// The HMAC-SHA1 secret (UTF-8) that header's signature is checked with.
        public var secret: String

        /// A clientless credential.
        public init(publicKey: String, secret: String) {
            self.publicKey = publicKey
            self.secret = secret
        }
    }

    /// The requestors served; at least one, with unique, non-empty IDs.
    public var requestors: [Requestor]
    /// Every MVPD the requestors may name, with its users; IDs are unique.
    public var mvpds: [MVPD]
    /// Media-token lifetime in milliseconds (Adobe's default: 7 minutes).
    public var mediaTokenTTL: Int64
    /// Authentication lifetime in seconds (default 24 hours).
    public var authenticationTTL: Int64
    /// Authorization lifetime in seconds (default 24 hours).
    public var authorizationTTL: Int64
    /// The service provider's SAML entity ID (the Audience the IdPs assert for). Adobe's is
    /// `https://saml.sp.auth.adobe.com`, which is also the default.
    public var spEntityID: String
    /// The assertion consumer service URL the IdPs address their responses to (Destination and Recipient). The
    /// browser posts to `/sp/saml/SAMLAssertionConsumer` on whatever host it reached; this is the name the SAML
    /// checks compare, not a network address.
    public var acsURL: String
    /// Answer errors in the enhanced shape `{action, status, code, message, details, helpUrl, trace}` instead of the
    /// legacy `{status, message, details}` (Adobe's opt-in for REST v1).
    public var enhancedErrors: Bool
    /// Throttle the API per device (token bucket, 1 request/s, burst 10, then 429), as Adobe does. Off by default.
    public var throttling: Bool
    /// The most resources one `GET /api/v1/preauthorize` may ask about.
    public var maximumPreauthorizeResources: Int
    /// Throttle by the last `X-Forwarded-For` address (the one a proxy appends) instead of the peer's. Only behind a
    /// proxy you run, that appends: any client can write the entries before. Off by default.
    public var trustsForwardedFor: Bool
    /// Hold REST API v2 callers to Adobe's contract file to the letter, instead of Adobe's service's leniency: client
    /// registration requires `X-Device-Info`, and the v2 routes the file marks require an `X-Device-Info` with each of
    /// its six keys. Off by default: without it a partial, unreadable or missing `X-Device-Info` is completed with the
    /// values the request itself gives, as Adobe's service does (`tvekit serve --strict`).
    public var strict: Bool
    /// The registered applications (software statement `sub`s) that are programmers' back ends calling REST API v2 for
    /// their devices (the server-to-server form): their calls count against the device's address, the first
    /// `X-Forwarded-For` address, instead of the back end's. Any other caller's `X-Forwarded-For` is ignored (anyone
    /// can write it) unless ``trustsForwardedFor``.
    public var serverToServerApplications: [String]?

    /// A configuration of `requestors` and `mvpds`. The defaults: media tokens of 420,000 ms, authentication and
    /// authorization of 86,400 s, ``defaultSPEntityID`` and its `/sp/saml/SAMLAssertionConsumer` as the ACS URL,
    /// legacy errors, no throttling, 100 preauthorize resources, and the peer's address. Nothing is checked here:
    /// ``problems`` lists what is wrong, and ``ServiceProvider`` refuses a configuration with problems.
    public init(
        requestors: [Requestor], mvpds: [MVPD], mediaTokenTTL: Int64 = 420_000, authenticationTTL: Int64 = 86_400,
        authorizationTTL: Int64 = 86_400, spEntityID: String = Self.defaultSPEntityID,
        acsURL: String = Self.defaultSPEntityID + "/sp/saml/SAMLAssertionConsumer", enhancedErrors: Bool = false,
        throttling: Bool = false, maximumPreauthorizeResources: Int = 100, trustsForwardedFor: Bool = false, strict: Bool = false,
        serverToServerApplications: [String]? = nil
    ) {
        self.serverToServerApplications = serverToServerApplications
        self.strict = strict
        self.requestors = requestors
        self.mvpds = mvpds
        self.mediaTokenTTL = mediaTokenTTL
        self.authenticationTTL = authenticationTTL
        self.authorizationTTL = authorizationTTL
        self.spEntityID = spEntityID
        self.acsURL = acsURL
        self.enhancedErrors = enhancedErrors
        self.throttling = throttling
        self.maximumPreauthorizeResources = maximumPreauthorizeResources
        self.trustsForwardedFor = trustsForwardedFor
    }

    /// Adobe's service-provider entity ID, `https://saml.sp.auth.adobe.com`: the default ``spEntityID`` and the base
    /// of the default ``acsURL``.
    public static let defaultSPEntityID = "https://saml.sp.auth.adobe.com"

    enum CodingKeys: String, CodingKey {
        case requestors, mvpds, mediaTokenTTL, authenticationTTL, authorizationTTL, spEntityID, acsURL, enhancedErrors, throttling
        case maximumPreauthorizeResources, trustsForwardedFor, strict, serverToServerApplications
    }

    /// Reads a configuration; every key but `requestors` and `mvpds` is optional and takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServiceProviderConfiguration(requestors: [], mvpds: [])
        self.init(
            requestors: try c.decode([Requestor].self, forKey: .requestors), mvpds: try c.decode([MVPD].self, forKey: .mvpds),
            mediaTokenTTL: try c.decodeIfPresent(Int64.self, forKey: .mediaTokenTTL) ?? defaults.mediaTokenTTL,
            authenticationTTL: try c.decodeIfPresent(Int64.self, forKey: .authenticationTTL) ?? defaults.authenticationTTL,
            authorizationTTL: try c.decodeIfPresent(Int64.self, forKey: .authorizationTTL) ?? defaults.authorizationTTL,
            spEntityID: try c.decodeIfPresent(String.self, forKey: .spEntityID) ?? defaults.spEntityID,
            acsURL: try c.decodeIfPresent(String.self, forKey: .acsURL) ?? defaults.acsURL,
            enhancedErrors: try c.decodeIfPresent(Bool.self, forKey: .enhancedErrors) ?? false,
            throttling: try c.decodeIfPresent(Bool.self, forKey: .throttling) ?? false,
            maximumPreauthorizeResources: try c.decodeIfPresent(Int.self, forKey: .maximumPreauthorizeResources)
                ?? defaults.maximumPreauthorizeResources,
            trustsForwardedFor: try c.decodeIfPresent(Bool.self, forKey: .trustsForwardedFor) ?? false,
            strict: try c.decodeIfPresent(Bool.self, forKey: .strict) ?? false,
            serverToServerApplications: try c.decodeIfPresent([String].self, forKey: .serverToServerApplications))
    }

    /// The problems that make this configuration unusable, in words; empty when it is valid.
    public var problems: [String] {
        var problems: [String] = []
        if requestors.isEmpty { problems.append("no requestor") }
        for requestor in requestors {
            if requestor.id.isEmpty { problems.append("a requestor has an empty id") }
            for mvpd in requestor.mvpds where !mvpds.contains(where: { $0.id == mvpd }) {
                problems.append("requestor \(requestor.id) names the unknown MVPD \(mvpd)")
            }
            if let domains = requestor.domains, domains.isEmpty || domains.contains(where: \.isEmpty) {
                problems.append("requestor \(requestor.id): domains must be absent or non-empty names")
            }
            if let encoding = requestor.metadataEncryption, encoding != "rsa", encoding != "jwe" {
                problems.append("requestor \(requestor.id): metadataEncryption must be rsa or jwe")
            }
        }
        for mvpd in mvpds where mvpd.tempPassDuration.map({ !(1...31_536_000).contains($0) }) ?? false {
            problems.append("MVPD \(mvpd.id): tempPassDuration must be 1 to 31536000 seconds")
        }
        problems += mvpds.flatMap(\.tempPassProblems)
        if Set(requestors.map(\.id)).count != requestors.count { problems.append("requestor ids repeat") }
        if Set(mvpds.map(\.id)).count != mvpds.count { problems.append("MVPD ids repeat") }
        for (name, value, year) in [
            ("mediaTokenTTL (ms)", mediaTokenTTL, Int64(31_536_000_000)), ("authenticationTTL (s)", authenticationTTL, 31_536_000),
            ("authorizationTTL (s)", authorizationTTL, 31_536_000),
        ] where !(1...year).contains(value) {
            problems.append("\(name) must be positive and at most a year")
        }
        if !(1...10_000).contains(maximumPreauthorizeResources) { problems.append("maximumPreauthorizeResources must be 1 to 10000") }
        if spEntityID.isEmpty || acsURL.isEmpty { problems.append("spEntityID and acsURL must not be empty") }
        return problems
    }

    func requestor(_ id: String) -> Requestor? { requestors.first { $0.id == id } }

    /// The MVPD `mvpdID` when it serves `requestorID`.
    func mvpd(_ mvpdID: String, for requestorID: String) -> MVPD? {
        guard let requestor = requestor(requestorID), requestor.mvpds.contains(mvpdID) else { return nil }
        return mvpds.first { $0.id == mvpdID }
    }

    /// The MVPDs that serve `requestorID`, in configured order; `nil` for an unknown requestor.
    public func mvpds(for requestorID: String) -> [MVPD]? {
        guard let requestor = requestors.first(where: { $0.id == requestorID }) else { return nil }
        return requestor.mvpds.compactMap { id in mvpds.first { $0.id == id } }
    }

    /// The built-in sandbox: one requestor, four MVPDs: one with a login, one boarded for platform SSO, a TempPass of an
    /// hour and a promotional TempPass of ten minutes and five resources (the TempPasses in REST API v2 only). The requestor's domains are
    /// `adobe.com` (so that Adobe's documented samples, `domainName=adobe.com&redirectUrl=https://adobe.com`, work as
    /// written) and `tvekit.test`.
    public static let sandbox = ServiceProviderConfiguration(
        requestors: [
            Requestor(
                id: "tvekit-sandbox", mvpds: ["SandboxCable", "SandboxSSO", "SandboxTempPass", "SandboxPromoPass"],
                encryptedMetadataKeys: ["zip", "householdID", "userID"],
                clientlessCredentials: [ClientlessCredential(publicKey: "sandbox-public-key", secret: "sandbox-secret")],
                domains: ["adobe.com", "tvekit.test"])
        ],
        mvpds: [
            MVPD(
                id: "SandboxCable", displayName: "Sandbox Cable", logoURL: "http://127.0.0.1/logos/cable.png",
                users: [
                    User(
                        username: "viewer", password: "sandbox-password",
                        metadata: [
                            "zip": #"["12345"]"#, "householdID": #""hh-0001""#,
                            "maxRating": #"{"MPAA":"PG-13","VCHIP":"TV-14","URL":"http://127.0.0.1/ratings"}"#,
                        ],
                        deniedResources: ["mature-show": "Your parental controls block this program."])
                ],
                deniedResources: ["premium-sports": "Your package does not include this channel."]),
            MVPD(
                id: "SandboxSSO", displayName: "Sandbox SSO", enablePlatformServices: true, boardingStatus: "SUPPORTED",
                platformMappingId: "sandbox-sso", requiredMetadataFields: ["userID", "zip"],
                users: [
                    User(
                        username: "sso-viewer", password: "sandbox-password",
                        metadata: ["userID": #""u-0002""#, "zip": #"["10001"]"#, "householdID": #""hh-0002""#])
                ]),
            MVPD(id: "SandboxTempPass", displayName: "Sandbox TempPass", isTempPass: true, tempPassDuration: 3600),
            MVPD(
                id: "SandboxPromoPass", displayName: "Sandbox Promotional TempPass", isTempPass: true, tempPassDuration: 600,
                promotionalTempPass: true, tempPassResourceLimit: 5),
        ])
}

extension ServiceProviderConfiguration.MVPD {
    /// The MVPD as `GET /api/v1/config/{requestor}` lists it.
    var contractEntry: PassAPI.ConfigurationResponse.MVPD {
        PassAPI.ConfigurationResponse.MVPD(
            id: id, displayName: displayName, logoURL: logoURL, enablePlatformServices: enablePlatformServices,
            boardingStatus: boardingStatus, displayInPlatformPicker: boardingStatus == "PICKER" ? true : nil,
            platformMappingID: platformMappingId, requiredMetadataFields: requiredMetadataFields)
    }
}
