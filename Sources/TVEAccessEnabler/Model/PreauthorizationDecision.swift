/// A preauthorization decision (`GET /api/v1/preauthorize`).
public struct PreauthorizationDecision: Sendable, Hashable {
    /// The resource, as the app named it.
    public var resource: String
    /// Whether the user may watch it.
    public var authorized: Bool
    /// The MVPD's message for a denial, when it gave one.
    public var message: String?

    /// A decision; a denial may carry the MVPD's message.
    public init(resource: String, authorized: Bool, message: String? = nil) {
        self.resource = resource
        self.authorized = authorized
        self.message = message
    }
}
