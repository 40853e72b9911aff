import Foundation
import TVEMetadata

/// One service provider as the flows use it, whatever REST API it speaks: ``ServiceProviderClient`` (v1) and
/// ``V2ServiceProviderClient`` (v2) implement it, so that the login, authorization, logout, metadata and platform-SSO
/// flows are written once. Each call maps one AccessEnabler step onto the API's requests.
protocol EntitlementService: Actor {
    /// The REST API spoken.
    nonisolated var api: AsyncAccessEnabler.ServiceAPI { get }
    /// The DCR client credentials in use, kept across launches.
    var registration: ClientRegistration? { get async }

    /// `setOptions`: the values sent with every later call.
    func apply(_ options: AsyncAccessEnabler.Options, extraFields: [(String, String)], deviceInfo: String) async

    /// `setRequestor`: what the stored session needs sent (a promotional TempPass's identity for its MVPD).
    func restore(tempPassIdentity: [String: String]?, mvpd: String?)

    /// `setRequestor`: the requestor's MVPDs.
    func mvpds() async throws(AccessEnablerError) -> [MVPD]

    /// `setSelectedProvider`: starts a login with `mvpd`.
    func startLogin(_ request: LoginRequest) async throws(AccessEnablerError) -> LoginStart

    /// The device's authentication with `mvpd` (nil while there is none): after the login page (`code` nil) or while
    /// a second screen logs in (`code` the session's).
    func authentication(deviceID: String, mvpd: MVPD, code: String?) async throws(AccessEnablerError) -> AuthenticationToken?

    /// `setRequestor` again: the stored authentication as the service provider sees it now (nil: it has none), or,
    /// with none stored, one the device holds among `offered` (v2 only; v1 does not look).
    func refreshedAuthentication(deviceID: String, stored: AuthenticationToken?, offered: [MVPD]) async throws(AccessEnablerError)
        -> AuthenticationToken?

    /// `checkAuthorization`: a short media token for `resource`, and the authorization it was made under (to store).
    /// `stored` is the authorization kept from an earlier call, used while the service provider holds it.
    func mediaToken(deviceID: String, mvpd: String, resource: String, data: [String: String], stored: AuthorizationToken?)
        async throws(AccessEnablerError) -> (token: String, authorization: AuthorizationToken)

    /// `checkPreauthorizedResources`: a decision per resource.
    func preauthorize(deviceID: String, mvpd: String, resources: [String]) async throws(AccessEnablerError) -> [PreauthorizationDecision]

    /// `getMetadata` with a user-metadata key: the subscriber's metadata document (values possibly encrypted).
    func userMetadata(deviceID: String, mvpd: String) async throws(AccessEnablerError) -> UserMetadataDocument

    /// `logout`: ends the server-side session of `mvpd`; what the app does next.
    func logout(deviceID: String, mvpd: String, redirectURL: String, platform: EntitlementPlatform) async -> LogoutStep

    /// Platform single sign-on: the request the platform answers with a SAML response, exchanged for an authentication.
    func platformExchange(_ exchange: PlatformExchange) async throws(AccessEnablerError) -> AuthenticationToken
}

/// What `setSelectedProvider` asks of a service provider.
struct LoginRequest: Sendable {
    let deviceID: String
    let mvpd: MVPD
    let redirectURL: String
    /// `getAuthentication:withData:`.
    let data: [String: String]
    let platform: EntitlementPlatform
    /// `getAuthentication(forceAuthn: true)`: a fresh login even when the device holds an authentication with the MVPD.
    var forceAuthn = false
}

/// What a service provider answered to a login's start.
enum LoginStart: Sendable {
    /// A login on a page: its URL (iOS) and the code a second screen uses (tvOS); wait no later than `notAfter`
    /// (milliseconds; nil: the configured polling limit).
    case login(code: String, page: URL, notAfter: Int64?)
    /// No login is needed (TempPass, an authentication the device already holds): authenticated at once.
    case authenticated(AuthenticationToken)
}

/// The server side of a logout, and what is left for the app.
struct LogoutStep: Sendable {
    /// The page that ends the MVPD's session (iOS).
    var page: URL?
    /// The login came from the platform: the user signs out in the system settings (`VSA203`).
    var partnerLogout: Bool
    /// The service provider could not be told.
    var error: AccessEnablerError?
}

/// A platform single-sign-on exchange.
struct PlatformExchange: Sendable {
    let deviceID: String
    let mvpd: MVPD
    let redirectURL: String
    let platform: EntitlementPlatform
    /// The platform's provider session (Apple's account provider identifier and its expiry, milliseconds).
    let providerID: String
    let providerExpires: Int64?
    /// Asks the platform for its SAML response to `request` with the attributes named.
    let samlResponse: @Sendable (_ request: String, _ attributes: [String]) async throws(AccessEnablerError) -> String
}
