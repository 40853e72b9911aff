import Foundation

/// Field text of a media token (`FORMATS.md` §1): character data with the five predefined entities, and CDATA
/// sections. Shared by the token codec and the MRSS reader.
enum MediaTokenText {
    /// What a run of character data holds, from one pass over it.
    struct Kind {
        /// No `&` and no `]`: the bytes are the text as they are.
        let isPlain: Bool
        /// Every byte is below 0x80.
        let isASCII: Bool
    }

    /// One pass, eight bytes at a time: any `&` or `]` (a word has a zero byte after XOR with the repeated
    /// character), and the OR of every byte for the ASCII test.
    @inline(__always)
    static func classify(_ raw: UnsafeRawBufferPointer) -> Kind {
        guard let base = raw.baseAddress else { return Kind(isPlain: true, isASCII: true) }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var combined: UInt64 = 0
        var special = false
        var offset = 0
        let count = raw.count
        while offset + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            combined |= word
            if hasZeroByte(word ^ (ones &* 0x26)) || hasZeroByte(word ^ (ones &* 0x5D)) { special = true }
            offset += 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            combined |= UInt64(byte)
            if byte == UInt8(ascii: "&") || byte == UInt8(ascii: "]") { special = true }
            offset += 1
        }
        return Kind(isPlain: !special, isASCII: combined & highs == 0)
    }

    static let entities: [(encoded: [UInt8], byte: UInt8)] = [
        (Array("&amp;".utf8), UInt8(ascii: "&")), (Array("&lt;".utf8), UInt8(ascii: "<")), (Array("&gt;".utf8), UInt8(ascii: ">")),
        (Array("&quot;".utf8), UInt8(ascii: "\"")), (Array("&apos;".utf8), UInt8(ascii: "'")),
    ]

    /// Appends the decoded character data `raw` (which holds no `<`) to `out`: the five entities are replaced,
    /// any other `&` and any `]]>` are errors. `offset` is where `raw` starts in the token, for messages.
    static func appendCharacterData(_ raw: UnsafeRawBufferPointer, offset: Int, field: String, to out: inout [UInt8]) throws {
        var index = 0
        let count = raw.count
        while index < count {
            let byte = raw[index]
            if byte == UInt8(ascii: "&") {
                let rest = UnsafeRawBufferPointer(rebasing: raw[index...])
                guard let entity = entities.first(where: { rest.starts(with: $0.encoded) }) else {
                    throw MediaTokenError.malformedToken(
                        reason: "\(field) has an entity other than &amp; &lt; &gt; &quot; &apos; at byte \(offset + index)")
                }
                out.append(entity.byte)
                index += entity.encoded.count
                continue
            }
            if byte == UInt8(ascii: "]"), index + 2 < count, raw[index + 1] == UInt8(ascii: "]"), raw[index + 2] == UInt8(ascii: ">") {
                throw MediaTokenError.malformedToken(reason: "\(field) has ]]> outside a CDATA section at byte \(offset + index)")
            }
            out.append(byte)
            index += 1
        }
    }

    /// The index of the `]]>` that ends a CDATA section whose content starts at `start`, or `nil`.
    static func cdataEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index + 2 < bytes.count {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "]")), bytes.count - 2 - index) else { return nil }
            let position = base.distance(to: UnsafeRawPointer(found))
            if bytes[position + 1] == UInt8(ascii: "]"), bytes[position + 2] == UInt8(ascii: ">") { return position }
            index = position + 1
        }
        return nil
    }

    // MARK: Writing

    static let cdataOpen = Array("<![CDATA[".utf8)
    static let cdataClose = Array("]]>".utf8)

    /// Appends `value` as field text: as it is when it holds none of `<`, `&`, `>`, else as CDATA with every `]]>`
    /// split (how Adobe writes an MRSS resource).
    static func append(_ value: String, to out: inout [UInt8]) {
        let utf8 = value.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: ">") }) else {
            out.append(contentsOf: utf8)
            return
        }
        out += cdataOpen
        var pending = 0  // how many ']' at the end of what was written
        for byte in utf8 {
            if byte == UInt8(ascii: ">"), pending >= 2 {
                // The last two bytes written are "]]": end the section between them and the '>'.
                out += Array("]]><![CDATA[".utf8)
            }
            out.append(byte)
            pending = byte == UInt8(ascii: "]") ? pending + 1 : 0
        }
        out += cdataClose
    }
}
