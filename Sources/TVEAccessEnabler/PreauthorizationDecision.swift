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
