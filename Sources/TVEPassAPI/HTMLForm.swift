import Foundation

/// The first POST form of one of the service provider's HTML pages (the MVPD's login page, the identity provider's
/// auto-posting SAML form): its action, its hidden fields and whether it asks for a password. The pages are
/// TVEKit's own (``render(action:hiddenFields:)``), so this reads exactly what that writes, not arbitrary HTML.
public struct HTMLForm: Sendable, Hashable {
    /// The `action` attribute, HTML-unescaped.
    public var action: String
    /// The hidden inputs, in order, HTML-unescaped.
    public var hiddenFields: [Field]
    /// The form has a password input (it is a login form).
    public var asksForPassword: Bool

    /// A hidden input of the form: its name and its value, as plain (unescaped) text.
    public struct Field: Sendable, Hashable {
        /// The input's `name`.
        public var name: String
        /// The input's `value`.
        public var value: String

        /// Creates a hidden field from plain text; ``HTMLForm/render(action:hiddenFields:)`` escapes it.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a form from its parts, as plain (unescaped) text; `asksForPassword` is false by default.
    public init(action: String, hiddenFields: [Field], asksForPassword: Bool = false) {
        self.action = action
        self.hiddenFields = hiddenFields
        self.asksForPassword = asksForPassword
    }

    /// The first `<form method="post" action="…">` of `html`, or nil when there is none.
    public init?(firstPostFormIn html: String) {
        guard let action = Self.captures(#"<form method="post" action="([^"]*)">"#, in: html).first?.first else { return nil }
        self.action = Self.unescape(action)
        hiddenFields = Self.captures(#"<input type="hidden" name="([^"]*)" value="([^"]*)">"#, in: html).compactMap { groups in
            groups.count == 2 ? Field(name: Self.unescape(groups[0]), value: Self.unescape(groups[1])) : nil
        }
        asksForPassword = html.contains(#"type="password""#)
    }

    /// The opening tag and hidden inputs of a POST form, as the service provider's pages write them.
    public static func render(action: String, hiddenFields: [Field]) -> String {
        var html = #"<form method="post" action="\#(escape(action))">"# + "\n"
        for field in hiddenFields {
            html += #"<input type="hidden" name="\#(escape(field.name))" value="\#(escape(field.value))">"# + "\n"
        }
        return html
    }

    /// Escapes text for an HTML attribute or element, Unicode scalar by scalar: a quote followed by a combining mark
    /// (one grapheme cluster, `"\u{301}`) is escaped as well as a lone one.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Reverses ``escape(_:)``, Unicode scalar by scalar (an entity followed by a combining mark is still one).
    public static func unescape(_ text: String) -> String {
        let entities: [(String, Unicode.Scalar)] = [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        outer: while index < scalars.count {
            if scalars[index] == "&" {
                for (entity, scalar) in entities {
                    let pattern = Array(entity.unicodeScalars)
                    if index + pattern.count <= scalars.count, Array(scalars[index..<index + pattern.count]) == pattern {
                        result.append(scalar)
                        index += pattern.count
                        continue outer
                    }
                }
            }
            result.append(scalars[index])
            index += 1
        }
        return String(result)
    }

    /// The capture groups of every match of `pattern`.
    private static func captures(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
        }
    }
}
