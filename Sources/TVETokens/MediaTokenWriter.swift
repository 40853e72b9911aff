import TVECrypto

/// Writes the token text of `FORMATS.md` §1 in a given ``ShortMediaToken/Form`` (the issuer's side). `package`
/// for the fuzz body's round-trip check.
package enum MediaTokenWriter {
    /// The fields of a token to write.
    struct Fields {
        var sessionGUID: String
        var requestorID: String
        var resourceID: String
        var ttl: Int64
        var issueTime: Int64
        var mvpdId: String
        var proxyMvpdId: String?
    }

    /// The `issueTime` text for `milliseconds` in `encoding`.
    package static func issueTimeText(_ milliseconds: Int64, _ encoding: ShortMediaToken.Form.IssueTimeEncoding) throws -> String {
        switch encoding {
        case .epochMilliseconds: String(milliseconds)
        case .dateTime(let offset): try MediaTokenTime.dateTimeText(milliseconds: milliseconds, utcOffsetMinutes: offset)
        }
    }

    /// The root element for the given fields: the bytes to sign.
    /// - Throws: ``MediaTokenError/Code/invalidField``.
    static func signedElement(_ fields: Fields, issueTimeText: String, form: ShortMediaToken.Form) throws -> [UInt8] {
        let strings: [(String, String)] = [
            ("sessionGUID", fields.sessionGUID), ("requestorID", fields.requestorID),
            ("resourceID", fields.resourceID), ("mvpdId", fields.mvpdId),
        ]
        for (name, value) in strings where value.isEmpty { throw MediaTokenError.invalidField(reason: "\(name) is empty") }
        for (name, value) in strings + [("proxyMvpdId", fields.proxyMvpdId ?? "")]
        where value.utf8.count > ShortMediaToken.maximumFieldBytes {
            throw MediaTokenError.invalidField(reason: "\(name) is longer than \(ShortMediaToken.maximumFieldBytes) bytes")
        }
        guard fields.ttl >= 0, fields.issueTime >= 0 else {
            throw MediaTokenError.invalidField(reason: "ttl and issueTime must not be negative")
        }
        let root = form.root.rawValue
        var out: [UInt8] = []
        out.reserveCapacity(256 + fields.sessionGUID.utf8.count + fields.requestorID.utf8.count + fields.resourceID.utf8.count)
        func element(_ name: String, _ value: String) {
            out += Array("<\(name)>".utf8)
            MediaTokenText.append(value, to: &out)
            out += Array("</\(name)>".utf8)
        }
        out += Array("<\(root)>".utf8)
        element("sessionGUID", fields.sessionGUID)
        element("requestorID", fields.requestorID)
        element("resourceID", fields.resourceID)
        element("ttl", String(fields.ttl))
        element("issueTime", issueTimeText)
        element("mvpdId", fields.mvpdId)
        if let proxy = fields.proxyMvpdId { element("proxyMvpdId", proxy) }
        out += Array("</\(root)>".utf8)
        return out
    }

    /// The token text: `signatureInfo` with the Base64 signature, then the signed element.
    static func tokenText(signature: [UInt8], signedElement: [UInt8], form: ShortMediaToken.Form)
        -> (text: [UInt8], signatureTextRange: Range<Int>, signedRange: Range<Int>)
    {
        var text = MediaTokenCodec.signatureInfoOpen
        let signatureStart = text.count
        text += Array(Base64.encode(signature).utf8)
        let signatureTextRange = signatureStart..<text.count
        text += form.signatureInfoEnd == .unslashed ? MediaTokenCodec.signatureInfoOpen : MediaTokenCodec.signatureInfoClose
        let start = text.count
        text += signedElement
        return (text, signatureTextRange, start..<text.count)
    }
}
