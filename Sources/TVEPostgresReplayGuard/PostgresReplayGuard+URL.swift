extension PostgresReplayGuard.Configuration {
    /// Reads `postgres://user@host[:port][,host[:port]…]/database[?sslmode=…&target_session_attrs=read-write]` (or
    /// `postgresql://`): libpq's URL form, with one host or several (a primary and its standbys, in any order; an IPv6
    /// address in brackets). The store always writes to the host that accepts writes, so the only
    /// `target_session_attrs` it takes are `read-write` and `primary` (the same, for it).
    /// - Parameters:
    ///   - text: the URL (at most 2048 bytes).
    ///   - password: from an environment variable or a file; a password in the URL is refused.
    /// - Throws: ``ReplayStoreError`` `.invalidURL` or `.passwordInURL`.
    public init(url text: String, password: String?) throws(ReplayStoreError) {
        let form = "postgres://user@host[:port][,host[:port]…]/database"
        guard text.utf8.count <= 2048, let rest = Self.droppingScheme(text), !rest.contains("#") else {
            throw ReplayStoreError(.invalidURL, "the replay store must be \(form)")
        }
        let (authority, pathAndQuery) = Self.split(rest, at: "/")
        guard let at = authority.lastIndex(of: "@") else {
            throw ReplayStoreError(.invalidURL, "the URL needs a user and a host: \(form)")
        }
        let userInfo = authority[..<at]
        guard !userInfo.contains(":") else {
            throw ReplayStoreError(.passwordInURL, "the URL holds a password: give it in an environment variable or a file instead")
        }
        guard let user = Self.decoded(userInfo), !user.isEmpty else {
            throw ReplayStoreError(.invalidURL, "the URL needs a user and a host: \(form)")
        }
        var hosts: [Host] = []
        for entry in authority[authority.index(after: at)...].split(separator: ",", omittingEmptySubsequences: false) {
            guard let host = Self.host(entry) else {
                throw ReplayStoreError(.invalidURL, "the URL needs hosts as host[:port] (an IPv6 address in brackets): \(form)")
            }
            hosts.append(host)
        }
        guard let pathAndQuery else {
            throw ReplayStoreError(.invalidURL, "the URL needs a database name: \(form)")
        }
        let (path, query) = Self.split(pathAndQuery, at: "?")
        guard let database = Self.decoded(path), !database.isEmpty, !database.contains("/") else {
            throw ReplayStoreError(.invalidURL, "the URL needs a database name: \(form)")
        }
        var tls = TLSMode.prefer
        for item in (query ?? "").split(separator: "&") {
            let (name, value) = Self.split(item, at: "=")
            switch (name, value) {
            case ("sslmode", let value?) where TLSMode(rawValue: String(value)) != nil:
                tls = TLSMode(rawValue: String(value)) ?? .prefer
            case ("target_session_attrs", "read-write"), ("target_session_attrs", "primary"):
                continue
            default:
                throw ReplayStoreError(
                    .invalidURL, "the URL options are sslmode=disable|prefer|require and target_session_attrs=read-write")
            }
        }
        self.init(hosts: hosts, username: user, password: password, database: database, tls: tls)
    }

    private static func droppingScheme(_ text: String) -> Substring? {
        for scheme in ["postgres://", "postgresql://"] where text.hasPrefix(scheme) { return text.dropFirst(scheme.count) }
        return nil
    }

    /// The text before the first `separator` and the text after it (nil when there is none).
    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`: a name of letters, digits, `.`, `-` and `_` (an address of hex digits,
    /// `.` and `:` in brackets), a port of 1 to 65535.
    private static func host(_ entry: Substring) -> Host? {
        var name: Substring
        var portText: Substring?
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            name = entry[entry.index(after: entry.startIndex)..<close]
            let after = entry[entry.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard name.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            (name, portText) = split(entry, at: ":")
            guard
                name.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
                })
            else { return nil }
        }
        guard !name.isEmpty, name.utf8.count <= 255 else { return nil }
        guard let portText else { return Host(String(name)) }
        guard (1...5).contains(portText.count), portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        return Host(String(name), port: port)
    }

    /// Percent-decoded text (nil when an escape is malformed or the bytes are not UTF-8).
    private static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
