/// A REST API v2 single-sign-on credential the app got from an identity service outside Adobe Pass: a platform's
/// identity token (`Adobe-Subject-Token`) or a service token of the app's own identity service (`AD-Service-Token`),
/// each a signed JWT. With one, a login made in one app is shared by every app and device that sends the same
/// identity: their sessions need no login (`authenticatedSSO`) and their profiles are `platformSSO` or
/// `serviceTokenSSO`. The flow layer asks for it before each v2 call
/// (``AsyncAccessEnabler/Configuration/singleSignOnCredential``), so the app can hand over a fresh one; it never stores
/// or prints it.
public enum SingleSignOnCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The platform identity method: the JWS or JWE the platform's identity service gave, sent as `Adobe-Subject-Token`.
    case platformIdentity(String)
    /// The service token method: the JWS the app's identity service gave, sent as `AD-Service-Token`.
    case serviceToken(String)

    /// The header it travels in.
    public var headerName: String {
        switch self {
        case .platformIdentity: "Adobe-Subject-Token"
        case .serviceToken: "AD-Service-Token"
        }
    }

    /// The token.
    var value: String {
        switch self {
        case .platformIdentity(let value), .serviceToken(let value): value
        }
    }

    /// The method, never the token: `platformIdentity(<redacted>)` or `serviceToken(<redacted>)`.
    public var description: String {
        switch self {
        case .platformIdentity: "platformIdentity(<redacted>)"
        case .serviceToken: "serviceToken(<redacted>)"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the token, so that `dump` and reflection do not print it.
    public var customMirror: Mirror { Mirror(self, children: ["method": description]) }
}
