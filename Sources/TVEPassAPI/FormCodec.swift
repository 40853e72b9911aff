import Foundation

/// `application/x-www-form-urlencoded`, the one codec of the REST contract: query strings, form bodies and the
/// percent-encoding of path segments, for the client, the service provider and the sandbox's browser alike.
public enum FormCodec {
    /// The characters left as they are: RFC 3986's unreserved set (ASCII letters, digits, `-._~`).
    static let unreserved: CharacterSet = {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    /// `name=value` pairs joined by `&`, every character outside the unreserved set percent-encoded (a space is
    /// `%20`).
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0))=\(percentEncode($1))" }.joined(separator: "&")
    }

    /// The pairs of a query string or form body, in order; `+` is a space; a pair that does not decode (bad percent
    /// escape, invalid UTF-8) is skipped, and a name without `=` has the empty value.
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? { String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "" else { continue }
            fields.append((name, value))
        }
        return fields
    }

    /// A value (or a path segment) percent-encoded: only the unreserved characters stay.
    public static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
