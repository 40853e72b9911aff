import Foundation

/// One HTTP response: redirects are not followed, so a 302 arrives as such.
public struct EntitlementHTTPResponse: Sendable, Hashable {
    /// The HTTP status code (a redirect's 3xx included).
    public var status: Int
    /// The header fields as the transport gave them; ``header(_:)`` finds one whatever the case of its name.
    public var headers: [String: String]
    /// The body, empty when there is none.
    public var body: Data

    /// A response; without headers and with an empty body by default.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
