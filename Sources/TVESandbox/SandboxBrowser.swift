import Foundation
import TVEAccessEnabler
import TVEPassAPI

/// A minimal browser for the local sandbox's pages, as an app's web view would be driven: it follows redirects,
/// fills the MVPD login form, submits the identity provider's auto-posting form, and stops at the first redirect that
/// leaves HTTP (the app's redirect URL). For tests and `tvekit demo`; it understands only the sandbox's own pages.
public struct SandboxBrowser: Sendable {
    /// What the browser sends its requests with.
    public let transport: any EntitlementTransport
    /// The most pages one navigation may visit.
    static let maximumSteps = 10

    /// A browser that sends its requests with `transport` (a `URLSessionTransport` by default).
    public init(transport: any EntitlementTransport = URLSessionTransport()) {
        self.transport = transport
    }

    /// What a navigation ended at.
    public enum Outcome: Sendable, Hashable {
        /// A redirect to a URL the browser does not load (the app's scheme): hand it to `handleExternalURL`.
        case redirect(URL)
        /// A page with this status and no form to submit (a wrong password, an error, "you are signed in").
        case page(status: Int, text: String)
    }

    /// Opens `url` and, when the MVPD's login form appears, signs in with `username` and `password`.
    public func navigate(to url: URL, username: String? = nil, password: String? = nil) async throws -> Outcome {
        var request = EntitlementHTTPRequest(method: "GET", url: url)
        var submittedLogin = false
        for _ in 0..<Self.maximumSteps {
            let response = try await transport.send(request)
            let base = request.url
            if (300..<400).contains(response.status), let location = response.header("Location") {
                guard let next = URL(string: location, relativeTo: base)?.absoluteURL else {
                    return .page(status: response.status, text: "")
                }
                guard next.scheme == "http" || next.scheme == "https" else { return .redirect(next) }
                request = EntitlementHTTPRequest(method: "GET", url: next)
                continue
            }
            let text = String(decoding: response.body, as: UTF8.self)
            guard response.status == 200, let form = HTMLForm(firstPostFormIn: text),
                let action = URL(string: form.action, relativeTo: base)?.absoluteURL
            else {
                return .page(status: response.status, text: text)
            }
            var fields = form.hiddenFields.map { ($0.name, $0.value) }
            if form.asksForPassword {
                // Credentials go only to the host that served the form.
                guard !submittedLogin, let username, let password, action.host == base.host, action.port == base.port else {
                    return .page(status: response.status, text: text)
                }
                fields += [("username", username), ("password", password)]
                submittedLogin = true
            }
            request = EntitlementHTTPRequest(
                method: "POST", url: action, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(FormCodec.encode(fields).utf8))
        }
        throw URLError(.httpTooManyRedirects)
    }
}
