import Foundation
import TVEConcurrency
import TVECrypto
import TVEAccessEnabler
import TVEPassAPI

/// A simulated platform single-sign-on account (what Apple's Video Subscriber Account gives an app) backed by the
/// sandbox's identity providers: the account's SAML responses come from `POST /idp/{mvpd}/sso`. For tests and
/// `tvekit demo`.
public final class SandboxTVProviderAccount: TVProviderAccountProvider {
    /// A TV-provider sign-in: the platform identifier (the MVPD's `platformMappingId`) and the subscriber's login.
    public struct SignIn: Sendable, Hashable {
        /// The TV provider's platform identifier (the MVPD's `platformMappingId`).
        public var providerIdentifier: String
        /// The subscriber's username at the MVPD's identity provider.
        public var username: String
        /// The subscriber's password, sent only to the identity provider's sign-in (`POST /idp/{mvpd}/sso`).
        public var password: String

        /// A sign-in with a TV provider's platform identifier and the subscriber's login.
        public init(providerIdentifier: String, username: String, password: String) {
            self.providerIdentifier = providerIdentifier
            self.username = username
            self.password = password
        }
    }

    /// What the user does in the picker.
    public enum PickerChoice: Sendable, Hashable {
        /// The user picks a provider and signs in: this sign-in is then in effect.
        case select(SignIn)
        /// The user chooses "Other TV Provider".
        case otherProvider
        /// The user cancels the picker.
        case cancel
    }

    private struct State {
        var access: TVProviderAccessStatus
        var signedIn: SignIn?
    }

    let serviceProvider: URL
    /// When the framework's authentication with the provider ends (milliseconds since the epoch), if known.
    public let authenticationExpires: Int64?
    /// Maps platform identifiers to MVPD IDs (the sandbox's IdP paths).
    let mvpdForProvider: [String: String]
    let transport: any EntitlementTransport
    let picker: @Sendable (TVProviderMetadataRequest) -> PickerChoice
    private let state: Locked<State>
    private let presentedDialogs = Locked<[TVProviderDialog]>([])
    /// The dialogs shown so far, in order (for tests and the demo's transcript).
    public var presented: [TVProviderDialog] { presentedDialogs.withLock { $0 } }

    /// An account whose SAML responses come from the sandbox's identity providers.
    /// - Parameters:
    ///   - serviceProvider: the sandbox's base URL (``Sandbox/url``).
    ///   - mvpdForProvider: maps platform identifiers to the MVPD IDs of the sandbox's identity providers.
    ///   - access: the access status the account reports until ``setAccess(_:)`` changes it.
    ///   - signedIn: the sign-in in effect at the start; nil when the system is signed out of any TV provider.
    ///   - transport: how the account reaches the identity providers; a `URLSessionTransport` with a 10 s timeout by default.
    ///   - picker: what the user does when the picker is shown (called between its presentation and its dismissal); cancels
    ///     by default.
    ///   - authenticationExpires: when the framework's authentication with the provider ends (milliseconds since the
    ///     epoch), as ``signedInAccount()`` reports it; nil (not known) by default.
    public init(
        serviceProvider: URL, mvpdForProvider: [String: String], access: TVProviderAccessStatus, signedIn: SignIn? = nil,
        transport: any EntitlementTransport = URLSessionTransport(timeout: 10),
        picker: @escaping @Sendable (TVProviderMetadataRequest) -> PickerChoice = { _ in .cancel }, authenticationExpires: Int64? = nil
    ) {
        self.authenticationExpires = authenticationExpires
        self.serviceProvider = serviceProvider
        self.mvpdForProvider = mvpdForProvider
        self.transport = transport
        self.picker = picker
        state = Locked(State(access: access, signedIn: signedIn))
    }

    /// The sign-in in effect (changes when the user picks a provider).
    public var signedIn: SignIn? { state.withLock { $0.signedIn } }

    /// Signs the system out of the TV provider (what the user does in Settings).
    public func signOut() { state.withLock { $0.signedIn = nil } }

    /// Sets the access status ``accessStatus(prompt:)`` reports from now on (what the user grants or revokes in
    /// Settings).
    public func setAccess(_ access: TVProviderAccessStatus) { state.withLock { $0.access = access } }

    public func accessStatus(prompt: Bool) async -> TVProviderAccessStatus { state.withLock { $0.access } }

    /// The provider signed in to, with ``authenticationExpires`` as its authentication's end; nil when signed out.
    public func signedInAccount() async -> TVProviderAccountState? {
        state.withLock { $0.signedIn }.map {
            TVProviderAccountState(providerIdentifier: $0.providerIdentifier, expires: authenticationExpires)
        }
    }

    public func accountMetadata(_ request: TVProviderMetadataRequest, presenter: any TVProviderDialogPresenter) async
        -> TVProviderMetadataResult
    {
        if request.isInterruptionAllowed {
            let dialog = TVProviderDialog(payload: "TV provider picker: " + request.providerIdentifiers.joined(separator: ", "))
            presentedDialogs.withLock { $0.append(dialog) }
            await presenter.present(dialog)
            let choice = picker(request)
            await presenter.dismiss(dialog)
            switch choice {
            case .otherProvider: return .otherProvider
            case .cancel: return .cancelled
            case .select(let signIn):
                state.withLock { $0.signedIn = signIn }
                return .account(providerIdentifier: signIn.providerIdentifier, samlResponse: nil)
            }
        }
        guard let signIn = signedIn else { return .notSignedIn }
        guard let token = request.verificationToken else {
            return .account(providerIdentifier: signIn.providerIdentifier, samlResponse: nil)
        }
        guard let mvpd = mvpdForProvider[signIn.providerIdentifier] else { return .failed("unknown provider \(signIn.providerIdentifier)") }
        let path = "/idp/" + FormCodec.percentEncode(mvpd) + "/sso"
        guard let url = URL(string: serviceProvider.absoluteString + path) else { return .failed("bad identity-provider URL") }
        // REST API v2 hands the platform a SAML AuthnRequest (Base64); v1 its request ID.
        let requestID = Self.authnRequestID(token) ?? token
        let body = FormCodec.encode([("username", signIn.username), ("password", signIn.password), ("request_id", requestID)])
        do {
            let response = try await transport.send(
                EntitlementHTTPRequest(
                    method: "POST", url: url,
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Data(body.utf8)))
            guard response.status == 200, let saml = PassAPI.decode(PassAPI.SingleSignOnResponse.self, from: response.body)?.samlResponse
            else {
                return .failed("the provider answered HTTP \(response.status)")
            }
            return .account(providerIdentifier: signIn.providerIdentifier, samlResponse: saml)
        } catch {
            return .failed("the provider cannot be reached")
        }
    }

    /// The `ID` of a Base64 SAML AuthnRequest, as the platform's framework reads it (nil when `token` is not one).
    static func authnRequestID(_ token: String) -> String? {
        guard token.utf8.count <= 64 * 1024, let data = Data(base64Encoded: token) else { return nil }
        let xml = String(decoding: data, as: UTF8.self)
        guard xml.contains("AuthnRequest"), let start = xml.range(of: " ID=\"") else { return nil }
        let rest = xml[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        let id = String(rest[..<end])
        return id.isEmpty || id.utf8.count > 256 ? nil : id
    }
}
