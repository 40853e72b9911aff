import Foundation

/// One HTTP request of the flow layer.
public struct EntitlementHTTPRequest: Sendable, Hashable {
    /// The HTTP method (`GET`, `POST`, ...).
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// The header fields, by name.
    public var headers: [String: String]
    /// The body, or nil when there is none.
    public var body: Data?

    /// A request; without headers or a body by default.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
