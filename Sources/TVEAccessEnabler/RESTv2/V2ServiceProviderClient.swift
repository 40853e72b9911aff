import Foundation
import OpenAPIRuntime
import TVEMetadata
import TVEPassAPIv2
import TVETokens

/// One service provider's REST API v2, for the flow layer: the generated client (Adobe's contract) over the app's
/// ``EntitlementTransport``, with the app's ``ClientCredentials``, Adobe's service behaviour (``V2ServiceMiddleware``:
/// bearer, 401, 429, Enhanced Errors), Adobe's headers sent as plain text, and the device headers of
/// ``V2DeviceHeaders``. Every error answer becomes an ``AccessEnablerError`` through ``EnhancedErrorMapping``.
actor V2ServiceProviderClient {
    let credentials: ClientCredentials
    let requestor: String
    let serviceProviderURL: URL
    let client: Client
    /// The device headers, or why the app's device information cannot be sent.
    private var deviceHeaders: Result<V2DeviceHeaders, AccessEnablerError>
    /// What the headers are made from: the flow layer's device ID, the app's device information, the platform.
    private var deviceID: String?
    private var deviceInfo: String?
    let platform: EntitlementPlatform
    /// Headers the contract does not list on every operation (`AP-TempPass-Identity`, `AP-Visitor-Identifier`).
    let extraHeaders = V2ExtraHeadersMiddleware()
    /// Decrypts an encrypted user ID of a profile (the app's metadata key).
    let metadataDecryptor: MetadataDecryptor?
    /// The platform's single-sign-on framework, whose state `AP-Partner-Framework-Status` carries (none: not sent).
    let platformAccount: (any TVProviderAccountProvider)?
    /// The `AP-TempPass-Identity` header of each promotional TempPass MVPD, while its pass is the device's.
    var tempPassIdentities: [String: String] = [:]
    /// The `domainName` of sessions: the requestor's first domain in its configuration, else the redirect URL's host.
    var domainName: String?

    /// At most this many resources per preauthorize call (Adobe's usual limit); longer lists are split.
    static let preauthorizeBatch = 5

    /// A client with fixed device headers.
    init(
        credentials: ClientCredentials, serviceProviderURL: URL, requestor: String, transport: any EntitlementTransport,
        headers: V2DeviceHeaders, platform: EntitlementPlatform = .iOS, clock: any MediaTokenClock = SystemMediaTokenClock(),
        sleep: @escaping @Sendable (Duration) async -> Void = { _ in }
    ) {
        self.init(
            credentials: credentials, serviceProviderURL: serviceProviderURL, requestor: requestor, transport: transport,
            platform: platform, fixedHeaders: headers, clock: clock, sleep: sleep)
    }

    /// A client whose device headers are made from the device ID of each call (``prepare(deviceID:)``) and the app's
    /// device information.
    init(
        credentials: ClientCredentials, serviceProviderURL: URL, requestor: String, transport: any EntitlementTransport,
        deviceInfo: String? = nil, platform: EntitlementPlatform, visitorID: String? = nil, fixedHeaders: V2DeviceHeaders? = nil,
        metadataDecryptor: MetadataDecryptor? = nil, clock: any MediaTokenClock, sleep: @escaping @Sendable (Duration) async -> Void,
        platformAccount: (any TVProviderAccountProvider)? = nil,
        singleSignOnCredential: (@Sendable () async -> SingleSignOnCredential?)? = nil
    ) {
        self.metadataDecryptor = metadataDecryptor
        self.platformAccount = platformAccount
        extraHeaders.set("AP-Visitor-Identifier", visitorID)
        self.credentials = credentials
        self.requestor = requestor
        self.serviceProviderURL = serviceProviderURL
        self.deviceInfo = deviceInfo
        self.platform = platform
        deviceHeaders =
            fixedHeaders.map { .success($0) }
            ?? .failure(AccessEnablerError(.internalError, "no device ID was given for the REST API v2 headers"))
        let server =
            URL(string: serviceProviderURL.absoluteString.trimmingCharacters(in: ["/"]) + PassAPIv2.pathPrefix) ?? serviceProviderURL
        client = Client(
            serverURL: server, transport: EntitlementClientTransport(transport),
            middlewares: [
                V2ServiceMiddleware(credentials: credentials, clock: clock, sleep: sleep), PassAPIv2.RawHeaderMiddleware(), extraHeaders,
            ] + (singleSignOnCredential.map { [V2SingleSignOnMiddleware(credential: $0)] } ?? []))
    }

    /// The device headers (`AP-Device-Identifier`, `X-Device-Info`).
    var headers: V2DeviceHeaders {
        get throws(AccessEnablerError) { try deviceHeaders.get() }
    }

    /// Makes the device headers for `deviceID` (kept while it stays the same).
    func prepare(deviceID: String) {
        guard deviceID != self.deviceID else { return }
        self.deviceID = deviceID
        rebuildHeaders()
    }

    private func rebuildHeaders() {
        guard let deviceID else { return }
        let (info, platform) = (deviceInfo, platform)
        deviceHeaders = Result { () throws(AccessEnablerError) in
            try V2DeviceHeaders(deviceID: deviceID, deviceInfo: info, platform: platform)
        }
    }

    /// `setOptions`: the app's device information (checked again) and visitor ID.
    func apply(deviceInfo: String?, visitorID: String?) {
        self.deviceInfo = deviceInfo
        rebuildHeaders()
        extraHeaders.set("AP-Visitor-Identifier", visitorID)
    }

    /// The error of an answer that is not a success, from its Enhanced Error body when it has one (without one: a 401
    /// is the access token's, `R401`; anything else `INTERNAL_ERROR` with the status).
    static func failure(_ information: Components.Schemas.ErrorInformation?, status: Int, _ what: String) -> AccessEnablerError {
        guard let information, let code = information.code, !code.isEmpty else {
            return AccessEnablerError(
                status == 401 ? .accessTokenError : .internalError, "\(what) failed (HTTP \(status))", httpStatus: status)
        }
        let details = (information.details ?? information.message).map { ": " + String($0.prefix(300)) } ?? ""
        let entry = EnhancedErrorMapping.entry(for: code)
        return AccessEnablerError(
            entry.error, "\(what) failed (\(code.prefix(100))\(details))", httpStatus: status, enhancedCode: String(code.prefix(100)),
            advancedStatus: entry.status)
    }

    /// Runs a generated call or reads its answer, turning transport and decoding failures into ``AccessEnablerError``
    /// (the middleware has already turned every error answer into one).
    func run<Output>(_ what: String, _ call: () async throws -> Output) async throws(AccessEnablerError) -> Output {
        do {
            return try await call()
        } catch let error as AccessEnablerError {
            throw error
        } catch let error as ClientError {
            switch error.underlyingError {
            case let inner as AccessEnablerError: throw inner
            case is DecodingError:
                throw AccessEnablerError(.internalError, "\(what): the service provider's answer does not follow REST API v2")
            case is CancellationError: throw AccessEnablerError(.internalError, "\(what): the call was cancelled")
            default: throw AccessEnablerError(.internalError, "\(what): the service provider cannot be reached")
            }
        } catch {
            throw AccessEnablerError(.internalError, "\(what): the service provider's answer does not follow REST API v2")
        }
    }

    /// `GET configuration`: the MVPDs of the requestor.
    func mvpds(serviceProvider: URL) async throws(AccessEnablerError) -> [MVPD] {
        let output = try await run("configuration") { try await client.handleRequestUsingGET(path: .init(serviceProvider: requestor)) }
        let configuration = try await run("configuration") { try output.ok.body.json }
        func short(_ text: String?, _ limit: Int) -> Bool { (text?.utf8.count ?? 0) <= limit }
        domainName = configuration.requestor?.domains?.lazy.compactMap(\.name).first { !$0.isEmpty && short($0, 256) }
        return (configuration.requestor?.mvpds ?? []).prefix(1000).compactMap { entry -> MVPD? in
            guard let id = entry.id, !id.isEmpty, short(id, 256), short(entry.displayName, 1024), short(entry.logoUrl, 2048),
                short(entry.boardingStatus, 64), short(entry.platformMappingId, 256)
            else { return nil }
            return MVPD(
                id: id, displayName: entry.displayName ?? id, logoURL: entry.logoUrl.flatMap(URL.init(string:)),
                enablePlatformServices: entry.enablePlatformServices ?? false, boardingStatus: entry.boardingStatus,
                platformMappingID: entry.platformMappingId, serviceProvider: serviceProvider, isTempPass: entry.isTempPass ?? false,
                displayInPlatformPicker: entry.displayInPlatformPicker ?? true)
        }
    }

    /// `POST sessions`: a session for the device (a code and a URL, or `authorize` when no login is needed).
    func createSession(mvpd: String?, domainName: String, redirectURL: String) async throws(AccessEnablerError)
        -> Components.Schemas.SessionResponse
    {
        let output = try await run("sessions") {
            try await client.createSessionUsingPOST(
                path: .init(serviceProvider: requestor),
                headers: .init(apDeviceIdentifier: headers.deviceIdentifier, xDeviceInfo: headers.deviceInfo),
                body: .urlEncodedForm(.init(domainName: domainName, mvpd: mvpd, redirectUrl: redirectURL)))
        }
        return try await run("sessions") { try output.ok.body.json }
    }
}
