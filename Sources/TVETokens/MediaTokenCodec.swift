import Foundation
import TVECrypto

/// The strict parser and the serializer of short media tokens (see ``ShortMediaToken`` for the grammar).
///
/// The parser works on bytes with a single forward scan: no XML parser, no backtracking, no allocation beyond the
/// token's own bytes, its signature and its field strings.
enum MediaTokenCodec {
    static let signatureInfoOpen = Array("<signatureInfo>".utf8)
    static let signatureInfoClose = Array("</signatureInfo>".utf8)
    static let tokenOpen = Array("<shortAuthorizationToken>".utf8)
    static let tokenClose = Array("</shortAuthorizationToken>".utf8)

    /// The children of `shortAuthorizationToken`, in order.
    static let fieldNames = ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId", "proxyMvpdId"]
    /// Their open and close tags, all in one buffer that lives for the process: slicing it costs no reference
    /// counting on the hot path.
    // nonisolated(unsafe): the buffer is written once in this initialiser and only read afterwards.
    nonisolated(unsafe) static let tags: (buffer: UnsafeRawBufferPointer, open: [Range<Int>], close: [Range<Int>]) = {
        var bytes: [UInt8] = []
        var open: [Range<Int>] = []
        var close: [Range<Int>] = []
        for name in fieldNames {
            let start = bytes.count
            bytes += Array("<\(name)>".utf8)
            open.append(start..<bytes.count)
            let middle = bytes.count
            bytes += Array("</\(name)>".utf8)
            close.append(middle..<bytes.count)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        return (UnsafeRawBufferPointer(buffer), open, close)
    }()

    /// The same tags as arrays, for the serializer.
    static let openTags: [[UInt8]] = fieldNames.map { Array("<\($0)>".utf8) }
    static let closeTags: [[UInt8]] = fieldNames.map { Array("</\($0)>".utf8) }

    static func openTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.open[index]]) }
    static func closeTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.close[index]]) }

    // MARK: Parsing

    static func parse(_ input: UnsafeRawBufferPointer) throws -> ShortMediaToken {
        let count = input.count
        guard count > 0 else { throw MediaTokenError.malformedToken(reason: "the token is empty") }
        guard count <= ShortMediaToken.maximumInputBytes else {
            throw MediaTokenError.inputTooLarge(reason: "the token is \(count) bytes; the limit is \(ShortMediaToken.maximumInputBytes)")
        }
        let text: [UInt8]
        if Scanner(bytes: input).peek(signatureInfoOpen) {
            text = [UInt8](input)
        } else {
            do {
                text = try Base64.decode(buffer: input, options: .ignoringWhitespace)
            } catch let error as TVECryptoError {
                throw MediaTokenError.malformedToken(reason: "the token is neither token text nor valid Base64: \(error.reason)")
            }
            guard text.withUnsafeBytes({ Scanner(bytes: $0).peek(signatureInfoOpen) }) else {
                throw MediaTokenError.malformedToken(reason: "the decoded token does not start with <signatureInfo>")
            }
        }
        return try text.withUnsafeBytes { try parseText($0, owning: text) }
    }

    private static func parseText(_ bytes: UnsafeRawBufferPointer, owning text: [UInt8]) throws -> ShortMediaToken {
        var scanner = Scanner(bytes: bytes)
        try scanner.expect(signatureInfoOpen, "<signatureInfo>")
        let signatureText = scanner.textRun()
        try scanner.expect(signatureInfoClose, "</signatureInfo>")
        let signature: [UInt8]
        do {
            signature = try Base64.decode(buffer: UnsafeRawBufferPointer(rebasing: bytes[signatureText]))
        } catch let error as TVECryptoError {
            throw MediaTokenError.malformedToken(reason: "signatureInfo is not canonical Base64 (\(error.reason))")
        }
        let signedStart = scanner.index
        try scanner.expect(tokenOpen, "<shortAuthorizationToken>")
        let sessionGUID = try readText(&scanner, field: 0, required: true)
        let requestorID = try readText(&scanner, field: 1, required: true)
        let resourceID = try readText(&scanner, field: 2, required: true)
        let ttl = try readInteger(&scanner, field: 3)
        let issueTime = try readInteger(&scanner, field: 4)
        let mvpdId = try readText(&scanner, field: 5, required: true)
        let proxyMvpdId = scanner.peek(openTag(6)) ? try readText(&scanner, field: 6, required: false) : nil
        try scanner.expect(tokenClose, "</shortAuthorizationToken>")
        let signedEnd = scanner.index
        guard scanner.index == bytes.count else {
            throw MediaTokenError.malformedToken(reason: "\(bytes.count - scanner.index) trailing bytes after </shortAuthorizationToken> at byte \(scanner.index)")
        }
        return ShortMediaToken(sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID, ttl: ttl,
                               issueTime: issueTime, mvpdId: mvpdId, proxyMvpdId: proxyMvpdId, signature: signature,
                               text: text, signedRange: signedStart..<signedEnd)
    }

    /// `<name>text</name>`, unescaped and validated.
    private static func readText(_ scanner: inout Scanner, field index: Int, required: Bool) throws -> String {
        try scanner.expect(openTag(index), "<\(fieldNames[index])>")
        let run = scanner.textRun()
        try scanner.expect(closeTag(index), "</\(fieldNames[index])>")
        let value = try decodeText(UnsafeRawBufferPointer(rebasing: scanner.bytes[run]), field: index, offset: run.lowerBound)
        if required, value.isEmpty { throw MediaTokenError.malformedToken(reason: "\(fieldNames[index]) is empty") }
        return value
    }

    /// `<name>digits</name>`.
    private static func readInteger(_ scanner: inout Scanner, field index: Int) throws -> Int64 {
        try scanner.expect(openTag(index), "<\(fieldNames[index])>")
        let run = scanner.textRun()
        try scanner.expect(closeTag(index), "</\(fieldNames[index])>")
        return try parseInteger(UnsafeRawBufferPointer(rebasing: scanner.bytes[run]), field: fieldNames[index], offset: run.lowerBound)
    }

    /// A forward-only cursor over the token bytes.
    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        func peek(_ literal: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count - index >= literal.count, let base = bytes.baseAddress, let expected = literal.baseAddress else {
                return literal.isEmpty
            }
            return memcmp(expected, base + index, literal.count) == 0
        }

        func peek(_ literal: [UInt8]) -> Bool {
            literal.withUnsafeBytes { peek($0) }
        }

        /// `name` is only built when the literal is missing (an autoclosure: no string work on the success path).
        mutating func expect(_ literal: UnsafeRawBufferPointer, _ name: @autoclosure () -> String) throws {
            guard peek(literal) else {
                throw MediaTokenError.malformedToken(reason: "expected \(name()) at byte \(index)")
            }
            index += literal.count
        }

        mutating func expect(_ literal: [UInt8], _ name: @autoclosure () -> String) throws {
            try literal.withUnsafeBytes { try expect($0, name()) }
        }

        /// Moves past the text up to the next `<` (or the end) and returns its range.
        mutating func textRun() -> Range<Int> {
            let start = index
            guard let base = bytes.baseAddress, index < bytes.count else { return start..<start }
            if let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) {
                index = base.distance(to: UnsafeRawPointer(found))
            } else {
                index = bytes.count
            }
            return start..<index
        }
    }

    /// Decimal ASCII digits, no sign, at most Int64.max.
    static func parseInteger(_ raw: UnsafeRawBufferPointer, field: String, offset: Int) throws -> Int64 {
        guard !raw.isEmpty else { throw MediaTokenError.malformedToken(reason: "\(field) is empty") }
        guard raw.count <= ShortMediaToken.maximumFieldBytes else {
            throw MediaTokenError.inputTooLarge(reason: "\(field) is longer than \(ShortMediaToken.maximumFieldBytes) bytes")
        }
        var value: Int64 = 0
        for (position, byte) in raw.enumerated() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw MediaTokenError.malformedToken(reason: "\(field) has a non-digit at byte \(offset + position)")
            }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else {
                throw MediaTokenError.malformedToken(reason: "\(field) at byte \(offset) does not fit a signed 64-bit integer")
            }
            value = sum
        }
        return value
    }

    static let entities: [(encoded: [UInt8], byte: UInt8)] = [
        (Array("&amp;".utf8), UInt8(ascii: "&")), (Array("&lt;".utf8), UInt8(ascii: "<")), (Array("&gt;".utf8), UInt8(ascii: ">")),
        (Array("&quot;".utf8), UInt8(ascii: "\"")), (Array("&apos;".utf8), UInt8(ascii: "'")),
    ]

    /// Unescapes the five entities, checks the size limit and validates UTF-8.
    static func decodeText(_ raw: UnsafeRawBufferPointer, field index: Int, offset: Int) throws -> String {
        let field = fieldNames[index]
        guard let base = raw.baseAddress, !raw.isEmpty else { return "" }
        if memchr(base, Int32(UInt8(ascii: "&")), raw.count) == nil {
            // ASCII, the usual case: no validation needed beyond the check itself.
            if raw.count <= ShortMediaToken.maximumFieldBytes, isASCII(raw) {
                // Written in place: one allocation at most (none for strings of up to 15 bytes).
                return String(unsafeUninitializedCapacity: raw.count) { buffer in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
                    return raw.count
                }
            }
            guard raw.count <= ShortMediaToken.maximumFieldBytes else {
                throw MediaTokenError.inputTooLarge(reason: "\(field) is \(raw.count) bytes; the limit is \(ShortMediaToken.maximumFieldBytes)")
            }
            return try validatedString(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count),
                                       field: field, offset: offset)
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            let rest = UnsafeRawBufferPointer(rebasing: raw[index...])
            guard let entity = entities.first(where: { rest.starts(with: $0.encoded) }) else {
                throw MediaTokenError.malformedToken(reason: "\(field) has an entity other than &amp; &lt; &gt; &quot; &apos; at byte \(offset + index)")
            }
            out.append(entity.byte)
            index += entity.encoded.count
        }
        guard out.count <= ShortMediaToken.maximumFieldBytes else {
            throw MediaTokenError.inputTooLarge(reason: "\(field) is \(out.count) bytes after unescaping; the limit is \(ShortMediaToken.maximumFieldBytes)")
        }
        return try out.withUnsafeBufferPointer { try validatedString($0, field: field, offset: offset) }
    }

    @inline(__always)
    private static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        var combined: UInt8 = 0
        for byte in raw { combined |= byte }
        return combined < 0x80
    }

    private static func validatedString(_ bytes: UnsafeBufferPointer<UInt8>, field: String, offset: Int) throws -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw MediaTokenError.malformedToken(reason: "\(field) at byte \(offset) is not valid UTF-8")
        }
        return string
    }

    // MARK: Serializing

    /// Appends `value` escaped with the five entities.
    static func appendEscaped(_ value: String, to out: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: entities[0].encoded)
            case UInt8(ascii: "<"): out.append(contentsOf: entities[1].encoded)
            case UInt8(ascii: ">"): out.append(contentsOf: entities[2].encoded)
            case UInt8(ascii: "\""): out.append(contentsOf: entities[3].encoded)
            case UInt8(ascii: "'"): out.append(contentsOf: entities[4].encoded)
            default: out.append(byte)
            }
        }
    }

    /// The `<shortAuthorizationToken>` element for the given fields (the bytes to sign).
    static func signedElement(sessionGUID: String, requestorID: String, resourceID: String, ttl: Int64, issueTime: Int64,
                              mvpdId: String, proxyMvpdId: String?) throws -> [UInt8] {
        for (name, value) in [("sessionGUID", sessionGUID), ("requestorID", requestorID), ("resourceID", resourceID), ("mvpdId", mvpdId)] {
            guard !value.isEmpty else { throw MediaTokenError.invalidField(reason: "\(name) is empty") }
        }
        for (name, value) in [("sessionGUID", sessionGUID), ("requestorID", requestorID), ("resourceID", resourceID),
                              ("mvpdId", mvpdId), ("proxyMvpdId", proxyMvpdId ?? "")] {
            guard value.utf8.count <= ShortMediaToken.maximumFieldBytes else {
                throw MediaTokenError.invalidField(reason: "\(name) is longer than \(ShortMediaToken.maximumFieldBytes) bytes")
            }
        }
        guard ttl >= 0, issueTime >= 0 else { throw MediaTokenError.invalidField(reason: "ttl and issueTime must not be negative") }
        var out: [UInt8] = []
        out.reserveCapacity(256 + sessionGUID.utf8.count + requestorID.utf8.count + resourceID.utf8.count)
        out += tokenOpen
        let strings = [sessionGUID, requestorID, resourceID]
        for index in 0..<3 {
            out += openTags[index]
            appendEscaped(strings[index], to: &out)
            out += closeTags[index]
        }
        out += openTags[3] + Array(String(ttl).utf8) + closeTags[3]
        out += openTags[4] + Array(String(issueTime).utf8) + closeTags[4]
        out += openTags[5]
        appendEscaped(mvpdId, to: &out)
        out += closeTags[5]
        if let proxyMvpdId {
            out += openTags[6]
            appendEscaped(proxyMvpdId, to: &out)
            out += closeTags[6]
        }
        out += tokenClose
        return out
    }

    /// The token text: `<signatureInfo>` with the Base64 signature, then the signed element.
    static func tokenText(signature: [UInt8], signedElement: [UInt8]) -> (text: [UInt8], signedRange: Range<Int>) {
        var text = signatureInfoOpen + Array(Base64.encode(signature).utf8) + signatureInfoClose
        let start = text.count
        text += signedElement
        return (text, start..<text.count)
    }
}
