import Foundation

extension ServiceProviderConfiguration.Requestor {
    /// Whether a login or logout may return to `url` (a v1 `redirect_url`, a v2 `redirectUrl`).
    ///
    /// The rule, the same for REST API v1 and v2:
    /// 1. One of the requestor's registered redirect URLs (``redirectURLs``; Adobe's SDK URLs by default), matched
    ///    exactly: an app's own scheme is only ever allowed this way.
    /// 2. Otherwise a web page on one of the requestor's ``domains`` (Adobe's samples: `domainName=adobe.com`,
    ///    `redirectUrl=https://adobe.com`): an absolute `https` URL whose host is a listed domain or a subdomain of one
    ///    (`www.adobe.com` for `adobe.com`, never `adobe.com.example` or `evil-adobe.com`), with no user information,
    ///    in printable ASCII with no backslash, at most 2,048 bytes. `http` only for `localhost` and `127.0.0.1`, and
    ///    only when listed. A requestor that lists no domains allows no web page.
    /// `javascript:`, `data:` and every other scheme, userinfo tricks (`https://adobe.com@evil.example`), hosts
    /// outside the domains and percent-encoded or malformed hosts are refused.
    public func allowsRedirect(to url: String) -> Bool {
        if allowedRedirectURLs.contains(url) { return true }
        guard let domains, !domains.isEmpty, url.utf8.count <= 2048,
            url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" })
        else { return false }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            components.user == nil, components.password == nil, let encodedHost = components.percentEncodedHost
        else { return false }
        // The authority as written: no userinfo, whatever the parser made of it.
        let afterScheme = url.dropFirst(scheme.count + 1)
        guard afterScheme.hasPrefix("//") else { return false }
        let authority = afterScheme.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        var host = encodedHost.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ "abcdefghijklmnopqrstuvwxyz0123456789.-".unicodeScalars.contains($0) })
        else { return false }
        let listed = domains.contains { domain in
            let domain = domain.lowercased()
            return host == domain || host.hasSuffix("." + domain)
        }
        switch scheme {
        case "https": return listed
        case "http": return listed && (host == "localhost" || host == "127.0.0.1")
        default: return false
        }
    }
}
