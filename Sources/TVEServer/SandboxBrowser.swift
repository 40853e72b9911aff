import Foundation
import TVEAccessEnabler

/// A minimal browser for the local sandbox's pages, as an app's web view would be driven: it follows redirects,
/// fills the MVPD login form, submits the identity provider's auto-posting form, and stops at the first redirect that
/// leaves HTTP (the app's redirect URL). For tests and `tvekit demo`; it understands only the sandbox's own pages.
public struct SandboxBrowser: Sendable {
    public let transport: any EntitlementTransport
    /// The most pages one navigation may visit.
    static let maximumSteps = 10

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
            guard response.status == 200, let form = Self.form(in: text),
                let action = URL(string: form.action, relativeTo: base)?.absoluteURL
            else {
                return .page(status: response.status, text: text)
            }
            var fields = form.fields
            if form.hasPassword {
                // Credentials go only to the host that served the form.
                guard !submittedLogin, let username, let password, action.host == base.host, action.port == base.port else {
                    return .page(status: response.status, text: text)
                }
                fields += [("username", username), ("password", password)]
                submittedLogin = true
            }
            request = EntitlementHTTPRequest(
                method: "POST", url: action, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(Self.formEncode(fields).utf8))
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// The first POST form of a page: action, hidden fields, and whether it asks for a password.
    static func form(in html: String) -> (action: String, fields: [(String, String)], hasPassword: Bool)? {
        guard let action = capture(#"<form method="post" action="([^"]*)">"#, in: html).first else { return nil }
        var fields: [(String, String)] = []
        if let regex = try? NSRegularExpression(pattern: #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#) {
            for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
                guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html) else { continue }
                fields.append((unescape(String(html[name])), unescape(String(html[value]))))
            }
        }
        return (unescape(action), fields, html.contains("type=\"password\""))
    }

    static func capture(_ pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(
                of: "&amp;", with: "&")
    }

    static func formEncode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return fields.map {
            "\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }
        .joined(separator: "&")
    }
}
