import Foundation
import TVECrypto

/// The strict parser of short media tokens (see ``ShortMediaToken`` and `FORMATS.md` §1 for the grammar).
///
/// The parser works on bytes with a single forward scan: no XML parser, no backtracking, and no allocation beyond
/// the token's own bytes, its signature and its field strings (plus one buffer for a field that needs decoding).
enum MediaTokenCodec {
    static let signatureInfoOpen = Array("<signatureInfo>".utf8)
    static let signatureInfoClose = Array("</signatureInfo>".utf8)

    /// The children of the root, in order.
    static let fieldNames = ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId", "proxyMvpdId"]
    static let sessionGUID = 0, requestorID = 1, resourceID = 2, ttl = 3, issueTime = 4, mvpdId = 5, proxyMvpdId = 6

    /// Every literal the parser looks for, in one buffer that lives for the process, with tables of pointers into
    /// it: the hot path touches no reference-counted storage.
    struct Tags {
        let fieldOpen: UnsafeBufferPointer<UnsafeRawBufferPointer>
        let fieldClose: UnsafeBufferPointer<UnsafeRawBufferPointer>
        let rootOpen: UnsafeBufferPointer<UnsafeRawBufferPointer>
        let rootClose: UnsafeBufferPointer<UnsafeRawBufferPointer>
        let signatureInfoOpen: UnsafeRawBufferPointer
        let signatureInfoClose: UnsafeRawBufferPointer
        let cdataOpen: UnsafeRawBufferPointer
    }

    // nonisolated(unsafe): the buffers are written once in this initialiser and only read afterwards.
    nonisolated(unsafe) static let tags: Tags = {
        let roots = ShortMediaToken.Form.Root.allCases.map(\.rawValue)
        let literals =
            fieldNames.map { "<\($0)>" } + fieldNames.map { "</\($0)>" } + roots.map { "<\($0)>" } + roots.map { "</\($0)>" }
            + ["<signatureInfo>", "</signatureInfo>", "<![CDATA["]
        let bytes = Array(literals.joined().utf8)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        let pointers = UnsafeMutableBufferPointer<UnsafeRawBufferPointer>.allocate(capacity: literals.count)
        var start = 0
        for (index, literal) in literals.enumerated() {
            let end = start + literal.utf8.count
            pointers[index] = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<end])
            start = end
        }
        let all = UnsafeBufferPointer(pointers)
        let fields = fieldNames.count
        return Tags(
            fieldOpen: UnsafeBufferPointer(rebasing: all[0..<fields]),
            fieldClose: UnsafeBufferPointer(rebasing: all[fields..<(2 * fields)]),
            rootOpen: UnsafeBufferPointer(rebasing: all[(2 * fields)..<(2 * fields + 2)]),
            rootClose: UnsafeBufferPointer(rebasing: all[(2 * fields + 2)..<(2 * fields + 4)]),
            signatureInfoOpen: all[2 * fields + 4], signatureInfoClose: all[2 * fields + 5], cdataOpen: all[2 * fields + 6])
    }()

    // MARK: Parsing

    static func parse(_ input: UnsafeRawBufferPointer) throws -> ShortMediaToken {
        let tags = Self.tags
        let text = try tokenText(input, tags: tags)
        return try text.withUnsafeBytes { bytes in
            var scanner = Scanner(bytes: bytes, tags: tags)
            let (token, signatureText) = try parseText(&scanner, owning: text)
            // The signature's Base64 is checked by decoding it into temporary storage; the token keeps only where it is.
            try withSignature(UnsafeRawBufferPointer(rebasing: bytes[signatureText])) { _ in }
            return token
        }
    }

    /// Parses, then calls `body` with the token and its signature bytes, decoded once into temporary storage (the
    /// verifier's path: the signature's Base64 is decoded once, not checked here and decoded again later).
    static func parse<R>(_ input: UnsafeRawBufferPointer, _ body: (ShortMediaToken, UnsafeRawBufferPointer) throws -> R) throws -> R {
        let tags = Self.tags
        let text = try tokenText(input, tags: tags)
        return try text.withUnsafeBytes { bytes in
            var scanner = Scanner(bytes: bytes, tags: tags)
            let (token, signatureText) = try parseText(&scanner, owning: text)
            return try withSignature(UnsafeRawBufferPointer(rebasing: bytes[signatureText])) { try body(token, $0) }
        }
    }

    /// Decodes a signature's Base64 into temporary storage for `body`.
    @inline(__always)
    static func withSignature<R>(_ encoded: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try withUnsafeTemporaryAllocation(byteCount: Base64.maximumDecodedCount(forEncodedCount: encoded.count), alignment: 1) { buffer in
            let count: Int
            do {
                count = try Base64.decode(buffer: encoded, into: buffer)
            } catch let error as TVECryptoError {
                throw MediaTokenError.malformedToken(reason: "signatureInfo is not canonical Base64 (\(error.reason))")
            }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The token text: the input itself when it starts with `<signatureInfo>`, else its Base64 decoding.
    private static func tokenText(_ input: UnsafeRawBufferPointer, tags: Tags) throws -> [UInt8] {
        let count = input.count
        guard count > 0 else { throw MediaTokenError.malformedToken(reason: "the token is empty") }
        guard count <= ShortMediaToken.maximumInputBytes else {
            throw MediaTokenError.inputTooLarge(reason: "the token is \(count) bytes; the limit is \(ShortMediaToken.maximumInputBytes)")
        }
        if Scanner(bytes: input, tags: tags).peek(tags.signatureInfoOpen) { return [UInt8](input) }
        let text: [UInt8]
        do {
            text = try Base64.decode(buffer: input, options: .ignoringWhitespace)
        } catch let error as TVECryptoError {
            throw MediaTokenError.malformedToken(reason: "the token is neither token text nor valid Base64: \(error.reason)")
        }
        guard text.withUnsafeBytes({ Scanner(bytes: $0, tags: tags).peek(tags.signatureInfoOpen) }) else {
            throw MediaTokenError.malformedToken(reason: "the decoded token does not start with <signatureInfo>")
        }
        return text
    }

    /// `signatureInfo`, then the root element: the token, and where the signature's Base64 text is.
    private static func parseText(_ scanner: inout Scanner, owning text: [UInt8]) throws -> (ShortMediaToken, Range<Int>) {
        let tags = scanner.tags
        try scanner.expect(tags.signatureInfoOpen, "<signatureInfo>")
        let signatureText = scanner.textRun()
        let signatureInfoEnd: ShortMediaToken.Form.SignatureInfoEnd
        if scanner.peek(tags.signatureInfoOpen) {
            signatureInfoEnd = .unslashed
            scanner.index += tags.signatureInfoOpen.count
        } else {
            try scanner.expect(tags.signatureInfoClose, "<signatureInfo> or </signatureInfo>")
            signatureInfoEnd = .slashed
        }
        let token = try parseFields(&scanner, owning: text, tags: tags, signatureInfoEnd: signatureInfoEnd, signatureText: signatureText)
        return (token, signatureText)
    }

    /// The root element and its fields, after `signatureInfo`.
    private static func parseFields(
        _ scanner: inout Scanner, owning text: [UInt8], tags: Tags,
        signatureInfoEnd: ShortMediaToken.Form.SignatureInfoEnd, signatureText: Range<Int>
    ) throws -> ShortMediaToken {
        let bytes = scanner.bytes

        let signedStart = scanner.index
        let rootIndex: Int
        if scanner.peek(tags.rootOpen[0]) {
            rootIndex = 0
        } else if scanner.peek(tags.rootOpen[1]) {
            rootIndex = 1
        } else {
            throw MediaTokenError.malformedToken(reason: "expected <authToken> or <shortAuthorizationToken> at byte \(scanner.index)")
        }
        scanner.index += tags.rootOpen[rootIndex].count
        let root: ShortMediaToken.Form.Root = rootIndex == 0 ? .authToken : .shortAuthorizationToken

        let sessionGUID = try readString(&scanner, field: sessionGUID, required: true)
        let requestorID = try readString(&scanner, field: requestorID, required: true)
        let resourceID = try readString(&scanner, field: resourceID, required: true)
        let ttlText = try readField(&scanner, field: ttl)
        let ttl = try ttlText.withBytes(in: bytes) { try MediaTokenTime.parseInteger($0, field: "ttl", offset: ttlText.offset) }
        let issueTimeField = try readField(&scanner, field: issueTime)
        let (issueTime, encoding) = try issueTimeField.withBytes(in: bytes) { try MediaTokenTime.parse($0, offset: issueTimeField.offset) }
        // The shape checks above leave only ASCII digits, spaces, '-', ':' and '+' in the text.
        let issueTimeText: ShortMediaToken.Field
        switch issueTimeField.storage {
        case .slice(let range, _): issueTimeText = .inText(range)
        case .decoded(let decoded): issueTimeText = .decoded(String(decoding: decoded, as: UTF8.self))
        }
        let mvpdId = try readString(&scanner, field: mvpdId, required: true)
        let proxyMvpdId = scanner.peek(tags.fieldOpen[proxyMvpdId]) ? try readString(&scanner, field: proxyMvpdId, required: false) : nil
        try scanner.expect(tags.rootClose[rootIndex], "</\(root.rawValue)>")
        let signedEnd = scanner.index
        guard scanner.index == bytes.count else {
            throw MediaTokenError.malformedToken(
                reason: "\(bytes.count - scanner.index) trailing bytes after </\(root.rawValue)> at byte \(scanner.index)")
        }
        let form = ShortMediaToken.Form(root: root, signatureInfoEnd: signatureInfoEnd, issueTimeEncoding: encoding)
        return ShortMediaToken(
            sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID, ttl: ttl,
            issueTime: issueTime, issueTimeText: issueTimeText, mvpdId: mvpdId, proxyMvpdId: proxyMvpdId,
            signatureTextRange: signatureText, text: text, signedRange: signedStart..<signedEnd, form: form)
    }

    /// `<name>text</name>`, validated: left in the text when it is ASCII and needed no decoding, else a string.
    private static func readString(_ scanner: inout Scanner, field index: Int, required: Bool) throws -> ShortMediaToken.Field {
        let field = try readField(&scanner, field: index)
        if required, field.isEmpty { throw MediaTokenError.malformedToken(reason: "\(fieldNames[index]) at byte \(field.offset) is empty") }
        if case .slice(let range, true) = field.storage { return .inText(range) }
        return .decoded(try field.string(in: scanner.bytes, field: index))
    }

    /// `<name>text</name>`: the text's decoded bytes, in place when it needs no decoding.
    private static func readField(_ scanner: inout Scanner, field index: Int) throws -> FieldText {
        try scanner.expect(scanner.tags.fieldOpen[index], "<\(fieldNames[index])>")
        let start = scanner.index
        let (run, kind) = scanner.classifiedTextRun()
        let close = scanner.tags.fieldClose[index]
        if scanner.peek(close) {
            scanner.index += close.count
            let raw = UnsafeRawBufferPointer(rebasing: scanner.bytes[run])
            if kind.isPlain {
                guard run.count <= ShortMediaToken.maximumFieldBytes else { throw fieldTooLarge(index, run.count) }
                return FieldText(storage: .slice(run, ascii: kind.isASCII), offset: start)
            }
            var out: [UInt8] = []
            try MediaTokenText.appendCharacterData(raw, offset: run.lowerBound, field: fieldNames[index], to: &out)
            guard out.count <= ShortMediaToken.maximumFieldBytes else { throw fieldTooLarge(index, out.count) }
            return FieldText(storage: .decoded(out), offset: start)
        }
        // Character data mixed with CDATA sections.
        var out: [UInt8] = []
        var run2 = run
        while true {
            try MediaTokenText.appendCharacterData(
                UnsafeRawBufferPointer(rebasing: scanner.bytes[run2]), offset: run2.lowerBound,
                field: fieldNames[index], to: &out)
            guard out.count <= ShortMediaToken.maximumFieldBytes else { throw fieldTooLarge(index, out.count) }
            if scanner.peek(close) {
                scanner.index += close.count
                return FieldText(storage: .decoded(out), offset: start)
            }
            guard scanner.peek(scanner.tags.cdataOpen) else {
                throw MediaTokenError.malformedToken(reason: "expected </\(fieldNames[index])> or <![CDATA[ at byte \(scanner.index)")
            }
            let contentStart = scanner.index + scanner.tags.cdataOpen.count
            guard let end = MediaTokenText.cdataEnd(in: scanner.bytes, from: contentStart) else {
                throw MediaTokenError.malformedToken(
                    reason: "the CDATA section in \(fieldNames[index]) at byte \(scanner.index) is not closed")
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: scanner.bytes[contentStart..<end]))
            guard out.count <= ShortMediaToken.maximumFieldBytes else { throw fieldTooLarge(index, out.count) }
            scanner.index = end + 3
            run2 = scanner.textRun()
        }
    }

    private static func fieldTooLarge(_ index: Int, _ count: Int) -> MediaTokenError {
        .inputTooLarge(reason: "\(fieldNames[index]) is \(count) bytes after decoding; the limit is \(ShortMediaToken.maximumFieldBytes)")
    }

    /// The decoded text of one field.
    struct FieldText {
        enum Storage {
            /// The text needs no decoding: these bytes of the token, ASCII or not (not yet validated).
            case slice(Range<Int>, ascii: Bool)
            /// The decoded bytes (not yet validated as UTF-8).
            case decoded([UInt8])
        }
        let storage: Storage
        /// Where the field's text starts in the token text.
        let offset: Int

        var isEmpty: Bool {
            switch storage {
            case .slice(let range, _): range.isEmpty
            case .decoded(let bytes): bytes.isEmpty
            }
        }

        func withBytes<R>(in text: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            switch storage {
            case .slice(let range, _): try body(UnsafeRawBufferPointer(rebasing: text[range]))
            case .decoded(let bytes): try bytes.withUnsafeBytes(body)
            }
        }

        /// The text as a validated string (the rare path: decoded or not ASCII).
        func string(in text: UnsafeRawBufferPointer, field index: Int) throws -> String {
            try withBytes(in: text) { raw in
                guard let string = String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self) else {
                    throw MediaTokenError.malformedToken(
                        reason: "\(MediaTokenCodec.fieldNames[index]) at byte \(offset) is not valid UTF-8")
                }
                return string
            }
        }
    }
}
