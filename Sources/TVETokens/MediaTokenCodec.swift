import Foundation
import TVECrypto

/// The strict parser of short media tokens (see ``ShortMediaToken`` and `FORMATS.md` §1 for the grammar).
///
/// The parser works on bytes with a single forward scan: no XML parser, no backtracking, and no allocation beyond
/// the token's own bytes, its signature and its field strings (plus one buffer for a field that needs decoding).
enum MediaTokenCodec {
    static let signatureInfoOpen = Array("<signatureInfo>".utf8)
    static let signatureInfoClose = Array("</signatureInfo>".utf8)
    static let cdataOpen = Array("<![CDATA[".utf8)

    /// The children of the root, in order.
    static let fieldNames = ["sessionGUID", "requestorID", "resourceID", "ttl", "issueTime", "mvpdId", "proxyMvpdId"]
    static let sessionGUID = 0, requestorID = 1, resourceID = 2, ttl = 3, issueTime = 4, mvpdId = 5, proxyMvpdId = 6

    /// Every tag the parser looks for, in one buffer that lives for the process: slicing it costs no reference
    /// counting on the hot path.
    struct Tags {
        let buffer: UnsafeRawBufferPointer
        let fieldOpen: [Range<Int>]
        let fieldClose: [Range<Int>]
        let rootOpen: [Range<Int>]
        let rootClose: [Range<Int>]
    }

    // nonisolated(unsafe): the buffer is written once in this initialiser and only read afterwards.
    nonisolated(unsafe) static let tags: Tags = {
        var bytes: [UInt8] = []
        func add(_ text: String) -> Range<Int> {
            let start = bytes.count
            bytes += Array(text.utf8)
            return start..<bytes.count
        }
        let fieldOpen = fieldNames.map { add("<\($0)>") }
        let fieldClose = fieldNames.map { add("</\($0)>") }
        let roots = ShortMediaToken.Form.Root.allCases
        let rootOpen = roots.map { add("<\($0.rawValue)>") }
        let rootClose = roots.map { add("</\($0.rawValue)>") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        return Tags(buffer: UnsafeRawBufferPointer(buffer), fieldOpen: fieldOpen, fieldClose: fieldClose, rootOpen: rootOpen,
                    rootClose: rootClose)
    }()

    static func fieldOpenTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.fieldOpen[index]]) }
    static func fieldCloseTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.fieldClose[index]]) }
    static func rootOpenTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.rootOpen[index]]) }
    static func rootCloseTag(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: tags.buffer[tags.rootClose[index]]) }

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
        let signatureInfoEnd: ShortMediaToken.Form.SignatureInfoEnd
        if scanner.peek(signatureInfoOpen) {
            signatureInfoEnd = .unslashed
            scanner.index += signatureInfoOpen.count
        } else {
            try scanner.expect(signatureInfoClose, "<signatureInfo> or </signatureInfo>")
            signatureInfoEnd = .slashed
        }
        let signature: [UInt8]
        do {
            signature = try Base64.decode(buffer: UnsafeRawBufferPointer(rebasing: bytes[signatureText]))
        } catch let error as TVECryptoError {
            throw MediaTokenError.malformedToken(reason: "signatureInfo is not canonical Base64 (\(error.reason))")
        }

        let signedStart = scanner.index
        let rootIndex: Int
        if scanner.peek(rootOpenTag(0)) {
            rootIndex = 0
        } else if scanner.peek(rootOpenTag(1)) {
            rootIndex = 1
        } else {
            throw MediaTokenError.malformedToken(reason: "expected <authToken> or <shortAuthorizationToken> at byte \(scanner.index)")
        }
        scanner.index += rootOpenTag(rootIndex).count
        let root: ShortMediaToken.Form.Root = rootIndex == 0 ? .authToken : .shortAuthorizationToken

        let sessionGUID = try readString(&scanner, field: sessionGUID, required: true)
        let requestorID = try readString(&scanner, field: requestorID, required: true)
        let resourceID = try readString(&scanner, field: resourceID, required: true)
        let ttlText = try readField(&scanner, field: ttl)
        let ttl = try ttlText.withBytes(in: bytes) { try MediaTokenTime.parseInteger($0, field: "ttl", offset: ttlText.offset) }
        let issueTimeField = try readField(&scanner, field: issueTime)
        let (issueTime, encoding) = try issueTimeField.withBytes(in: bytes) { try MediaTokenTime.parse($0, offset: issueTimeField.offset) }
        // The shape checks above leave only ASCII digits, spaces, '-', ':' and '+' in the text.
        let issueTimeText = issueTimeField.withBytes(in: bytes) { String(decoding: $0, as: UTF8.self) }
        let mvpdId = try readString(&scanner, field: mvpdId, required: true)
        let proxyMvpdId = scanner.peek(fieldOpenTag(proxyMvpdId)) ? try readString(&scanner, field: proxyMvpdId, required: false) : nil
        try scanner.expect(rootCloseTag(rootIndex), "</\(root.rawValue)>")
        let signedEnd = scanner.index
        guard scanner.index == bytes.count else {
            throw MediaTokenError.malformedToken(reason: "\(bytes.count - scanner.index) trailing bytes after </\(root.rawValue)> at byte \(scanner.index)")
        }
        let form = ShortMediaToken.Form(root: root, signatureInfoEnd: signatureInfoEnd, issueTimeEncoding: encoding)
        return ShortMediaToken(sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resourceID, ttl: ttl,
                               issueTime: issueTime, issueTimeText: issueTimeText, mvpdId: mvpdId, proxyMvpdId: proxyMvpdId,
                               signature: signature, text: text, signedRange: signedStart..<signedEnd, form: form)
    }

    /// `<name>text</name>` as a validated string.
    private static func readString(_ scanner: inout Scanner, field index: Int, required: Bool) throws -> String {
        let field = try readField(&scanner, field: index)
        if required, field.isEmpty { throw MediaTokenError.malformedToken(reason: "\(fieldNames[index]) at byte \(field.offset) is empty") }
        return try field.string(in: scanner.bytes, field: index)
    }

    /// `<name>text</name>`: the text's decoded bytes, in place when it needs no decoding.
    private static func readField(_ scanner: inout Scanner, field index: Int) throws -> FieldText {
        try scanner.expect(fieldOpenTag(index), "<\(fieldNames[index])>")
        let start = scanner.index
        let run = scanner.textRun()
        let close = fieldCloseTag(index)
        if scanner.peek(close) {
            scanner.index += close.count
            let raw = UnsafeRawBufferPointer(rebasing: scanner.bytes[run])
            let kind = MediaTokenText.classify(raw)
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
            try MediaTokenText.appendCharacterData(UnsafeRawBufferPointer(rebasing: scanner.bytes[run2]), offset: run2.lowerBound,
                                                   field: fieldNames[index], to: &out)
            guard out.count <= ShortMediaToken.maximumFieldBytes else { throw fieldTooLarge(index, out.count) }
            if scanner.peek(close) {
                scanner.index += close.count
                return FieldText(storage: .decoded(out), offset: start)
            }
            guard scanner.peek(cdataOpen) else {
                throw MediaTokenError.malformedToken(reason: "expected </\(fieldNames[index])> or <![CDATA[ at byte \(scanner.index)")
            }
            let contentStart = scanner.index + cdataOpen.count
            guard let end = MediaTokenText.cdataEnd(in: scanner.bytes, from: contentStart) else {
                throw MediaTokenError.malformedToken(reason: "the CDATA section in \(fieldNames[index]) at byte \(scanner.index) is not closed")
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

        func string(in text: UnsafeRawBufferPointer, field index: Int) throws -> String {
            if case .slice(let range, true) = storage {
                // ASCII, the usual case: written in place, one allocation at most (none up to 15 bytes).
                let raw = UnsafeRawBufferPointer(rebasing: text[range])
                return String(unsafeUninitializedCapacity: raw.count) { buffer in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
                    return raw.count
                }
            }
            return try withBytes(in: text) { raw in
                guard let string = String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self) else {
                    throw MediaTokenError.malformedToken(reason: "\(MediaTokenCodec.fieldNames[index]) at byte \(offset) is not valid UTF-8")
                }
                return string
            }
        }
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
}
