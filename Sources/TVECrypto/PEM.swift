import Foundation

/// A minimal, strict PEM reader (RFC 7468): finds `-----BEGIN L-----` / `-----END L-----` blocks and decodes
/// their Base64 bodies. Text outside blocks (comments, OpenSSL's "Bag Attributes") is ignored.
struct PEMBlock {
    var label: String
    /// True when the block has RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: ...`).
    var hasHeaders: Bool
    var der: [UInt8]

    /// The most blocks one input may hold (a certificate bundle of 1,000 certificates is already unusual).
    static let maximumBlocks = 1000

    /// True when the bytes look like PEM (they contain a BEGIN line).
    static func looksLikePEM(_ bytes: some DataProtocol) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        return bytes.withContiguousBytes { raw in
            guard raw.count >= marker.count else { return false }
            // Only the first 4 KiB are searched: a PEM file starts with its first block soon enough.
            let limit = min(raw.count, 4096) - marker.count
            guard limit >= 0 else { return false }
            for start in 0...limit where raw[start] == marker[0] {
                if zip(marker.indices, marker).allSatisfy({ raw[start + $0] == $1 }) { return true }
            }
            return false
        }
    }

    /// Parses every block. Malformed structure (a BEGIN without its END, a mismatched END label, bad Base64)
    /// is an error; the error code is chosen by the caller.
    static func parseAll(_ bytes: some DataProtocol) -> Result<[PEMBlock], PEMParseError> {
        // Split on LF bytes (a CRLF pair is one Swift Character, so splitting the String would miss it).
        let raw = bytes.withContiguousBytes { [UInt8]($0) }
        var blocks: [PEMBlock] = []
        var lines = raw.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { Substring(String(decoding: $0, as: UTF8.self)) }[...]
        while let raw = lines.popFirst() {
            let line = raw.trimmingTrailingCR()
            guard line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 else { continue }
            let label = String(line.dropFirst(11).dropLast(5))
            var body = ""
            var hasHeaders = false
            var closed = false
            var inHeaders = true
            while let next = lines.popFirst() {
                let content = next.trimmingTrailingCR()
                if content.hasPrefix("-----END ") {
                    guard content == "-----END \(label)-----" else {
                        return .failure(.init(reason: "the END line of the '\(label)' block has another label"))
                    }
                    closed = true
                    break
                }
                if inHeaders, content.contains(":") {
                    hasHeaders = true
                    continue
                }
                if content.isEmpty { inHeaders = false; continue }
                inHeaders = false
                body += content
            }
            guard closed else { return .failure(.init(reason: "the '\(label)' block has no END line")) }
            guard blocks.count < maximumBlocks else { return .failure(.init(reason: "more than \(maximumBlocks) PEM blocks")) }
            guard let der = try? Base64.decode(body, options: .ignoringWhitespace) else {
                return .failure(.init(reason: "the body of the '\(label)' block is not valid Base64"))
            }
            blocks.append(PEMBlock(label: label, hasHeaders: hasHeaders, der: der))
        }
        return .success(blocks)
    }
}

struct PEMParseError: Error {
    var reason: String
}

extension Substring {
    fileprivate func trimmingTrailingCR() -> Substring {
        var result = self
        while let last = result.last, last == "\r" || last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
