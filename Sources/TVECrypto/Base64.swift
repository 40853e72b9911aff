import Foundation

/// Standard Base64 (RFC 4648 §4), strict by default.
///
/// Strict decoding accepts only the canonical form: length a multiple of four, `=` padding only at the end
/// and only as much as needed, and zero bits in the unused part of the last symbol. With
/// ``DecodingOptions/ignoringWhitespace`` it also skips spaces, tabs, CR and LF anywhere (PEM bodies, wrapped
/// tokens, Base64 pasted from an e-mail); everything else stays strict.
public enum Base64 {
    /// Options for ``decode(_:options:)``.
    public struct DecodingOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Skip ASCII space, tab, CR and LF anywhere in the text.
        public static let ignoringWhitespace = DecodingOptions(rawValue: 1 << 0)
    }

    /// Encodes `bytes` as padded standard Base64.
    /// - Parameter lineLength: when given (a positive multiple of 4, such as 64 or 76), inserts `\n` after every
    ///   `lineLength` characters (no trailing newline).
    public static func encode(_ bytes: some DataProtocol, lineLength: Int? = nil) -> String {
        Base64Codec.encode(bytes, alphabet: Base64Codec.standardAlphabet, padding: true, lineLength: lineLength)
    }

    /// Decodes standard Base64.
    /// - Throws: ``TVECryptoError/Code/invalidBase64`` naming the offending position.
    public static func decode(_ text: some StringProtocol, options: DecodingOptions = []) throws -> [UInt8] {
        try Base64Codec.decode(Array(text.utf8), url: false, ignoringWhitespace: options.contains(.ignoringWhitespace))
    }

    /// Decodes standard Base64 from its ASCII bytes.
    @inlinable
    public static func decode(bytes: some Collection<UInt8>, options: DecodingOptions = []) throws -> [UInt8] {
        let whitespace = options.contains(.ignoringWhitespace)
        if let result = try bytes.withContiguousStorageIfAvailable({ try _decode(UnsafeRawBufferPointer($0), ignoringWhitespace: whitespace) }) {
            return result
        }
        return try [UInt8](bytes).withUnsafeBytes { try _decode($0, ignoringWhitespace: whitespace) }
    }

    /// Decodes standard Base64 from a raw buffer (no copy of the input).
    public static func decode(buffer: UnsafeRawBufferPointer, options: DecodingOptions = []) throws -> [UInt8] {
        try Base64Codec.decode(buffer, url: false, ignoringWhitespace: options.contains(.ignoringWhitespace))
    }

    @usableFromInline
    static func _decode(_ bytes: UnsafeRawBufferPointer, ignoringWhitespace: Bool) throws -> [UInt8] {
        try Base64Codec.decode(bytes, url: false, ignoringWhitespace: ignoringWhitespace)
    }
}

/// Base64url without padding (RFC 4648 §5, as JOSE uses it, RFC 7515 §2).
///
/// Decoding is strict: only the URL-safe alphabet, no `=`, no whitespace, canonical trailing bits.
public enum Base64URL {
    /// Encodes `bytes` as unpadded Base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Base64Codec.encode(bytes, alphabet: Base64Codec.urlAlphabet, padding: false, lineLength: nil)
    }

    /// Decodes unpadded Base64url.
    /// - Throws: ``TVECryptoError/Code/invalidBase64``.
    public static func decode(_ text: some StringProtocol) throws -> [UInt8] {
        try Base64Codec.decode(Array(text.utf8), url: true, ignoringWhitespace: false)
    }
}

enum Base64Codec {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for alphabet symbols, 0xFE for `=`, 0xFD for whitespace, 0xFF for anything else.
    static let standardTable: [UInt8] = makeTable(standardAlphabet)
    static let urlTable: [UInt8] = makeTable(urlAlphabet)

    private static func makeTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        table[Int(UInt8(ascii: "="))] = 0xFE
        for space in [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")] {
            table[Int(space)] = 0xFD
        }
        return table
    }

    static func encode(_ input: some DataProtocol, alphabet: [UInt8], padding: Bool, lineLength: Int?) -> String {
        input.withContiguousBytes { bytes in
            let count = encodedCount(bytes.count, padding: padding, lineLength: lineLength)
            let encoded = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = encode(bytes, into: UnsafeMutableRawBufferPointer(buffer), alphabet: alphabet, padding: padding,
                                     lineLength: lineLength)
            }
            return String(decoding: encoded, as: UTF8.self)
        }
    }

    /// Encodes into a buffer that is wiped when released (for private-key PEM).
    static func encodeSecure(_ input: some DataProtocol, lineLength: Int?) -> SecureBytes {
        input.withContiguousBytes { bytes in
            SecureBytes(capacity: encodedCount(bytes.count, padding: true, lineLength: lineLength)) { buffer in
                encode(bytes, into: buffer, alphabet: standardAlphabet, padding: true, lineLength: lineLength)
            }
        }
    }

    /// The length of the encoding of `count` bytes, with `\n` every `lineLength` characters (none at the end).
    static func encodedCount(_ count: Int, padding: Bool, lineLength: Int?) -> Int {
        let symbols = padding ? (count + 2) / 3 * 4 : (count * 4 + 2) / 3
        guard let lineLength, lineLength > 0, symbols > 0 else { return symbols }
        return symbols + (symbols - 1) / lineLength
    }

    /// Writes the encoding of `bytes` into `output`, which has room for ``encodedCount(_:padding:lineLength:)``
    /// bytes; returns the number written.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, alphabet: [UInt8],
                       padding: Bool, lineLength: Int?) -> Int {
        let wrap = (lineLength ?? 0) > 0 ? lineLength ?? 0 : Int.max
        var written = 0
        var symbols = 0
        func put(_ symbol: UInt8) {
            if symbols > 0, symbols % wrap == 0 {
                output[written] = UInt8(ascii: "\n")
                written += 1
            }
            output[written] = symbol
            written += 1
            symbols += 1
        }
        let count = bytes.count
        var index = 0
        while index + 3 <= count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            put(alphabet[Int(value >> 18 & 63)])
            put(alphabet[Int(value >> 12 & 63)])
            put(alphabet[Int(value >> 6 & 63)])
            put(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = count - index
        if rest == 1 {
            let value = UInt32(bytes[index]) << 16
            put(alphabet[Int(value >> 18 & 63)])
            put(alphabet[Int(value >> 12 & 63)])
            if padding { put(UInt8(ascii: "=")); put(UInt8(ascii: "=")) }
        } else if rest == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            put(alphabet[Int(value >> 18 & 63)])
            put(alphabet[Int(value >> 12 & 63)])
            put(alphabet[Int(value >> 6 & 63)])
            if padding { put(UInt8(ascii: "=")) }
        }
        return written
    }

    /// Decodes; on any error the partly decoded output is wiped first (it may be private-key DER).
    static func decode(_ text: [UInt8], url: Bool, ignoringWhitespace: Bool) throws -> [UInt8] {
        try text.withUnsafeBytes { try decode($0, url: url, ignoringWhitespace: ignoringWhitespace) }
    }

    /// Decodes from raw bytes. Full groups of four alphabet symbols take a fast path; the first group with anything
    /// else (whitespace, padding, an invalid byte) continues on the exact path, which reports errors by offset.
    static func decode(_ text: UnsafeRawBufferPointer, url: Bool, ignoringWhitespace: Bool) throws -> [UInt8] {
        let table = url ? urlTable : standardTable
        var failure: TVECryptoError? = nil
        let capacity = text.count / 4 * 3 + 3
        let result = table.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                var position = 0
                var count = 0
                if let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                    // Eight symbols (six bytes) per step while the input is plain alphabet.
                    while position + 8 <= text.count {
                        let a = UInt32(table[Int(base[position])]), b = UInt32(table[Int(base[position + 1])])
                        let c = UInt32(table[Int(base[position + 2])]), d = UInt32(table[Int(base[position + 3])])
                        let e = UInt32(table[Int(base[position + 4])]), f = UInt32(table[Int(base[position + 5])])
                        let g = UInt32(table[Int(base[position + 6])]), h = UInt32(table[Int(base[position + 7])])
                        guard (a | b | c | d | e | f | g | h) < 64 else { break }
                        let first = a << 18 | b << 12 | c << 6 | d
                        let second = e << 18 | f << 12 | g << 6 | h
                        out[count] = UInt8(truncatingIfNeeded: first >> 16)
                        out[count + 1] = UInt8(truncatingIfNeeded: first >> 8)
                        out[count + 2] = UInt8(truncatingIfNeeded: first)
                        out[count + 3] = UInt8(truncatingIfNeeded: second >> 16)
                        out[count + 4] = UInt8(truncatingIfNeeded: second >> 8)
                        out[count + 5] = UInt8(truncatingIfNeeded: second)
                        count += 6
                        position += 8
                    }
                    while position + 4 <= text.count {
                        let a = UInt32(table[Int(base[position])]), b = UInt32(table[Int(base[position + 1])])
                        let c = UInt32(table[Int(base[position + 2])]), d = UInt32(table[Int(base[position + 3])])
                        guard (a | b | c | d) < 64 else { break }
                        let value = a << 18 | b << 12 | c << 6 | d
                        out[count] = UInt8(truncatingIfNeeded: value >> 16)
                        out[count + 1] = UInt8(truncatingIfNeeded: value >> 8)
                        out[count + 2] = UInt8(truncatingIfNeeded: value)
                        count += 3
                        position += 4
                    }
                }
                do {
                    count = try decodeRest(text, from: position, symbolsSoFar: position, url: url, ignoringWhitespace: ignoringWhitespace,
                                           table: table, into: out, count: count)
                } catch {
                    failure = error as? TVECryptoError ?? TVECryptoError.invalidBase64()
                    wipe(UnsafeMutableRawBufferPointer(out))
                    count = 0
                }
                written = count
            }
        }
        if let failure { throw failure }
        return result
    }

    /// The exact decoder, from `start` on, appending to `out` after `count` bytes; returns the new count.
    private static func decodeRest(_ text: UnsafeRawBufferPointer, from start: Int, symbolsSoFar: Int, url: Bool, ignoringWhitespace: Bool,
                                   table: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, count: Int) throws -> Int {
        var count = count
        var accumulator: UInt32 = 0
        var symbols = symbolsSoFar  // alphabet symbols seen (a multiple of 4 at `start`)
        var padding = 0             // `=` seen
        var position = start
        while position < text.count {
            let character = text[position]
            let value = table[Int(character)]
            switch value {
            case 0xFD:
                if !ignoringWhitespace { throw TVECryptoError.invalidBase64(reason: "whitespace at offset \(position)") }
            case 0xFE:
                if url { throw TVECryptoError.invalidBase64(reason: "'=' padding at offset \(position) (Base64url takes none)") }
                padding += 1
                if padding > 2 { throw TVECryptoError.invalidBase64(reason: "too much '=' padding at offset \(position)") }
            case 0xFF:
                // The offset only, not the byte: the text might be a secret passed by mistake.
                throw TVECryptoError.invalidBase64(reason: "the byte at offset \(position) is not in the alphabet")
            default:
                if padding > 0 { throw TVECryptoError.invalidBase64(reason: "data after '=' padding at offset \(position)") }
                accumulator = accumulator << 6 | UInt32(value)
                symbols += 1
                if symbols % 4 == 0 {
                    out[count] = UInt8(truncatingIfNeeded: accumulator >> 16)
                    out[count + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                    out[count + 2] = UInt8(truncatingIfNeeded: accumulator)
                    count += 3
                    accumulator = 0
                }
            }
            position += 1
        }
        let rest = symbols % 4
        if url {
            if rest == 1 { throw TVECryptoError.invalidBase64(reason: "the length leaves a single trailing symbol") }
        } else {
            if (symbols + padding) % 4 != 0 {
                throw TVECryptoError.invalidBase64(reason: "the length \(symbols + padding) is not a multiple of 4")
            }
            if padding > 0 && rest == 0 || rest == 1 || (rest == 2 && padding != 2) || (rest == 3 && padding != 1) {
                throw TVECryptoError.invalidBase64(reason: "the '=' padding does not match the length")
            }
        }
        switch rest {
        case 2:
            guard accumulator & 0x0F == 0 else { throw TVECryptoError.invalidBase64(reason: "non-zero bits after the last byte") }
            out[count] = UInt8(truncatingIfNeeded: accumulator >> 4)
            count += 1
        case 3:
            guard accumulator & 0x03 == 0 else { throw TVECryptoError.invalidBase64(reason: "non-zero bits after the last byte") }
            out[count] = UInt8(truncatingIfNeeded: accumulator >> 10)
            out[count + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
            count += 2
        default:
            break
        }
        return count
    }
}
