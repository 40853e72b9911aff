import Foundation

/// A minimal, strict PEM reader (RFC 7468) that works on bytes only.
///
/// It finds `-----BEGIN L-----` / `-----END L-----` blocks and decodes their Base64 bodies. Text outside blocks
/// (comments, OpenSSL's "Bag Attributes") is ignored. No `String` is made of a block's body, so the Base64 of a
/// private key is never copied into memory that cannot be wiped; callers wipe the decoded DER with ``wipe()``.
struct PEMBlock {
    var label: String
    /// True when the block has RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: ...`).
    var hasHeaders: Bool
    /// The bytes of the whole block in the input, from `-----BEGIN` to the end of the `-----END ...-----` line.
    var range: Range<Int>
    var der: [UInt8]

    /// The most blocks one input may hold.
    static let maximumBlocks = 1000

    mutating func wipe() {
        der.withUnsafeMutableBytes { TVECrypto.wipe($0) }
    }

    private static let begin = Array("-----BEGIN ".utf8)
    private static let end = Array("-----END ".utf8)
    private static let dashes = Array("-----".utf8)
    private static let procType = Array("Proc-Type:".utf8)

    /// True when the bytes look like PEM (a BEGIN line within the first 4 KiB).
    static func looksLikePEM(_ bytes: some DataProtocol) -> Bool {
        bytes.withContiguousBytes { raw in
            let window = UnsafeRawBufferPointer(rebasing: raw[0..<Swift.min(raw.count, 4096)])
            return firstIndex(of: begin, in: window, from: 0) != nil
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// Parses every block. Malformed structure (a BEGIN without its END, a mismatched END label, bad Base64)
    /// is an error; the error code is chosen by the caller.
    static func parseAll(_ bytes: some DataProtocol) -> Result<[PEMBlock], PEMParseError> {
        bytes.withContiguousBytes { raw in parseAll(raw) }
    }

    private static func parseAll(_ raw: UnsafeRawBufferPointer) -> Result<[PEMBlock], PEMParseError> {
        var blocks: [PEMBlock] = []
        var cursor = 0
        func fail(_ code: PEMParseError.Code, _ reason: String, line: UInt = #line) -> Result<[PEMBlock], PEMParseError> {
            for index in blocks.indices { blocks[index].wipe() }
            return .failure(PEMParseError(code, reason: reason, line: line))
        }
        while let start = firstIndex(of: begin, in: raw, from: cursor) {
            // A BEGIN marker counts only at the start of a line.
            guard start == 0 || raw[start - 1] == UInt8(ascii: "\n") else {
                cursor = start + 1
                continue
            }
            // The BEGIN line: "-----BEGIN " LABEL "-----", then end of line.
            let labelStart = start + begin.count
            guard let labelEnd = firstIndex(of: dashes, in: raw, from: labelStart) else {
                return fail(.malformed, "a BEGIN line is not closed")
            }
            let labelBytes = [UInt8](raw[labelStart..<labelEnd])
            guard !labelBytes.isEmpty, labelBytes.count <= 64, labelBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "-") })
            else {
                return fail(.malformed, "a BEGIN line has no valid label")
            }
            let label = String(decoding: labelBytes, as: UTF8.self)
            let closing = end + labelBytes + dashes
            guard let closeStart = firstIndex(of: end, in: raw, from: labelEnd + dashes.count) else {
                return fail(.malformed, "the '\(label)' block has no END line")
            }
            guard closeStart + closing.count <= raw.count,
                zip(closing.indices, closing).allSatisfy({ raw[closeStart + $0] == $1 })
            else { return fail(.malformed, "the END line of the '\(label)' block has another label") }
            let bodyStart = labelEnd + dashes.count
            let blockEnd = closeStart + closing.count

            // The body: optional RFC 1421 header lines (with ':'), then Base64 lines.
            var hasHeaders = false
            var body: [UInt8] = []
            body.reserveCapacity(closeStart - bodyStart)
            var lineStart = bodyStart
            var inHeaders = true
            while lineStart < closeStart {
                var lineEnd = lineStart
                while lineEnd < closeStart, raw[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let line = UnsafeRawBufferPointer(rebasing: raw[lineStart..<lineEnd])
                let isBlank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
                // RFC 1421 headers start with a Proc-Type line; a ':' elsewhere is not a header.
                if inHeaders, hasHeaders || line.starts(with: procType), line.contains(UInt8(ascii: ":")) {
                    hasHeaders = true
                } else if !isBlank {
                    inHeaders = false
                    body.append(contentsOf: line)
                } else if hasHeaders {
                    inHeaders = false
                }
                lineStart = lineEnd + 1
            }
            defer { body.withUnsafeMutableBytes { TVECrypto.wipe($0) } }
            guard blocks.count < maximumBlocks else { return fail(.tooManyBlocks, "more than \(maximumBlocks) PEM blocks") }
            guard let der = try? Base64Codec.decode(body, url: false, ignoringWhitespace: true) else {
                return fail(.invalidBase64, "the body of the '\(label)' block is not valid Base64")
            }
            blocks.append(PEMBlock(label: label, hasHeaders: hasHeaders, range: start..<blockEnd, der: der))
            cursor = blockEnd
        }
        return .success(blocks)
    }
}
