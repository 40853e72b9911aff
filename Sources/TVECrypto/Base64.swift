import Foundation
internal import CTVEBase64

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
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - lineLength: when given (a positive multiple of 4, such as 64 or 76), inserts `\n` after every `lineLength`
    ///     characters (no trailing newline).
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
        if let result = try bytes.withContiguousStorageIfAvailable({
            try _decode(UnsafeRawBufferPointer($0), ignoringWhitespace: whitespace)
        }) {
            return result
        }
        return try [UInt8](bytes).withUnsafeBytes { try _decode($0, ignoringWhitespace: whitespace) }
    }

    /// Decodes standard Base64 from a raw buffer (no copy of the input).
    public static func decode(buffer: UnsafeRawBufferPointer, options: DecodingOptions = []) throws -> [UInt8] {
        try Base64Codec.decode(buffer, url: false, ignoringWhitespace: options.contains(.ignoringWhitespace))
    }

    /// The output room ``decode(buffer:into:options:)`` needs for `count` bytes of Base64 text.
    public static func maximumDecodedCount(forEncodedCount count: Int) -> Int { Base64Codec.decodedCapacity(count) }

    /// Decodes standard Base64 into a caller's buffer, with no allocation (the same rules and errors as
    /// ``decode(buffer:options:)``).
    /// - Parameters:
    ///   - buffer: the Base64 text.
    ///   - output: at least ``maximumDecodedCount(forEncodedCount:)`` bytes; wiped on an error.
    ///   - options: what to skip in the text (nothing by default).
    /// - Returns: the number of bytes written.
    /// - Throws: ``TVECryptoError/Code/invalidBase64``, or ``TVECryptoError/Code/invalidParameter`` when `output`
    ///   is too small.
    public static func decode(
        buffer: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        options: DecodingOptions = []
    ) throws -> Int {
        try Base64Codec.decode(
            buffer, url: false, ignoringWhitespace: options.contains(.ignoringWhitespace),
            into: output.bindMemory(to: UInt8.self))
    }

    /// Decodes with the vector path capped at `vectorLevel` (2: AVX2 where the processor has it, 1: SSSE3 at most,
    /// 0: the scalar paths alone), for the fuzzer and the tests that compare the paths; the same rules and errors as
    /// ``decode(buffer:options:)``.
    package static func decode(buffer: UnsafeRawBufferPointer, options: DecodingOptions = [], vectorLevel: Int) throws -> [UInt8] {
        try Base64Codec.decode(buffer, url: false, ignoringWhitespace: options.contains(.ignoringWhitespace), vectorLevel: vectorLevel)
    }

    @usableFromInline
    static func _decode(_ bytes: UnsafeRawBufferPointer, ignoringWhitespace: Bool) throws -> [UInt8] {
        try Base64Codec.decode(bytes, url: false, ignoringWhitespace: ignoringWhitespace)
    }
}

enum Base64Codec {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ input: some DataProtocol, alphabet: [UInt8], padding: Bool, lineLength: Int?) -> String {
        input.withContiguousBytes { bytes in
            let count = encodedCount(bytes.count, padding: padding, lineLength: lineLength)
            let encoded = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = encode(
                    bytes, into: UnsafeMutableRawBufferPointer(buffer), alphabet: alphabet, padding: padding,
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
    static func encode(
        _ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, alphabet: [UInt8],
        padding: Bool, lineLength: Int?
    ) -> Int {
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

    /// Decodes from raw bytes.
    ///
    /// Full groups of four alphabet symbols take a fast path: four table look-ups, one validity check and one
    /// store per group (two groups per step while eight symbols remain). The first group with anything else
    /// (whitespace, padding, an invalid byte) continues on the exact path, which reports errors by offset; when
    /// that path has skipped whitespace at a group boundary, before any padding, and an alphabet symbol follows, the
    /// fast path takes over again. Both paths decode a group of four alphabet symbols alike, so the result and the
    /// errors are those of the exact path alone.
    static func decode(_ text: UnsafeRawBufferPointer, url: Bool, ignoringWhitespace: Bool, vectorLevel: Int = 2) throws -> [UInt8] {
        var failure: TVECryptoError? = nil
        let result = [UInt8](unsafeUninitializedCapacity: decodedCapacity(text.count)) { out, written in
            do {
                written = try decode(text, url: url, ignoringWhitespace: ignoringWhitespace, into: out, vectorLevel: vectorLevel)
            } catch {
                failure = error as? TVECryptoError ?? TVECryptoError.invalidBase64()
                written = 0
            }
        }
        if let failure { throw failure }
        return result
    }

    /// The vector instructions the decoder uses on this processor: 2 for AVX2, 1 for SSSE3, 0 for none (`vectorLevel`
    /// of ``decode(_:url:ignoringWhitespace:into:vectorLevel:)`` caps it, for the tests of each).
    static var vectorLevel: Int { Int(ctvebase64_level()) }

    /// The output room ``decode(_:url:ignoringWhitespace:into:vectorLevel:)`` needs for `count` input bytes.
    @inline(__always)
    static func decodedCapacity(_ count: Int) -> Int { count / 4 * 3 + 3 }

    /// Decodes into `out`, which holds at least ``decodedCapacity(_:)`` bytes; returns the bytes written. On an
    /// error `out` is wiped.
    static func decode(
        _ text: UnsafeRawBufferPointer, url: Bool, ignoringWhitespace: Bool,
        into out: UnsafeMutableBufferPointer<UInt8>, vectorLevel: Int = 2
    ) throws -> Int {
        guard out.count >= decodedCapacity(text.count) else {
            throw TVECryptoError.invalidParameter(reason: "the output buffer is too small for the Base64 text")
        }
        let tables = url ? urlTables : standardTables
        var state = DecodingState()
        do {
            while true {
                if vectorLevel > 0, !url { decodeBlocks(text, into: out, level: vectorLevel, state: &state) }
                decodeGroups(text, groupTable: tables.groupTable, into: out, state: &state)
                if state.position == text.count { break }
                if try decodeRest(text, url: url, ignoringWhitespace: ignoringWhitespace, table: tables.table, into: out, state: &state) {
                    break
                }
            }
        } catch {
            wipe(UnsafeMutableRawBufferPointer(out))
            throw error
        }
        return state.count
    }

    /// Where decoding stands between the two paths: always at a group boundary with no padding seen.
    struct DecodingState {
        /// The next input byte.
        var position = 0
        /// Bytes written.
        var count = 0
        /// Alphabet symbols seen (a multiple of 4 here).
        var symbols = 0
    }

    /// The vector path (`CTVEBase64`: AVX2 or SSSE3, standard alphabet): decodes blocks of 16 or 32 alphabet symbols
    /// from `state.position` on (at most the implementation of `level`) and stops where
    /// ``decodeGroups(_:groupTable:into:state:)`` takes over: before the
    /// first block holding anything else, near the end of the text or of the output. It decodes a block of alphabet
    /// symbols as that path does (the tests compare both on every byte value at every position).
    @inline(__always)
    private static func decodeBlocks(
        _ text: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>, level: Int, state: inout DecodingState
    ) {
        guard text.count - state.position >= 16, let input = text.baseAddress, let output = out.baseAddress else { return }
        let read = ctvebase64_decode_blocks_up_to(
            Int32(level), input.assumingMemoryBound(to: UInt8.self) + state.position, text.count - state.position, output + state.count,
            out.count - state.count)
        state.position += read
        state.count += read / 4 * 3
        state.symbols += read
    }

    /// The fast path: decodes full groups of four alphabet symbols from `state.position` on and stops before the
    /// first group that holds anything else, or fewer than four bytes before the end.
    ///
    /// `count` never exceeds `position / 4 * 3` and the output holds `text.count / 4 * 3 + 3` bytes, so there is
    /// always room for the stores below; the loop conditions check the room anyway.
    @inline(__always)
    private static func decodeGroups(
        _ text: UnsafeRawBufferPointer, groupTable: UnsafeBufferPointer<UInt32>,
        into out: UnsafeMutableBufferPointer<UInt8>, state: inout DecodingState
    ) {
        guard let input = text.baseAddress?.assumingMemoryBound(to: UInt8.self), let output = out.baseAddress,
            let t = groupTable.baseAddress, groupTable.count == 1024
        else { return }
        let end = text.count
        var position = state.position
        var count = state.count
        // Four groups (sixteen symbols, twelve bytes) per step, as two big-endian 8-byte stores whose last two bytes
        // the next store overwrites; then two groups per step.
        while end &- position >= 16, out.count &- count >= 14 {
            let p = input + position
            let g0 = t[Int(p[0])] | t[256 + Int(p[1])] | t[512 + Int(p[2])] | t[768 + Int(p[3])]
            let g1 = t[Int(p[4])] | t[256 + Int(p[5])] | t[512 + Int(p[6])] | t[768 + Int(p[7])]
            let g2 = t[Int(p[8])] | t[256 + Int(p[9])] | t[512 + Int(p[10])] | t[768 + Int(p[11])]
            let g3 = t[Int(p[12])] | t[256 + Int(p[13])] | t[512 + Int(p[14])] | t[768 + Int(p[15])]
            guard (g0 | g1 | g2 | g3) < 0x0100_0000 else { break }
            UnsafeMutableRawPointer(output + count).storeBytes(of: (UInt64(g0) << 40 | UInt64(g1) << 16).bigEndian, as: UInt64.self)
            UnsafeMutableRawPointer(output + count + 6).storeBytes(of: (UInt64(g2) << 40 | UInt64(g3) << 16).bigEndian, as: UInt64.self)
            count &+= 12
            position &+= 16
        }
        while end &- position >= 8, out.count &- count >= 8 {
            let p = input + position
            let first = t[Int(p[0])] | t[256 + Int(p[1])] | t[512 + Int(p[2])] | t[768 + Int(p[3])]
            let second = t[Int(p[4])] | t[256 + Int(p[5])] | t[512 + Int(p[6])] | t[768 + Int(p[7])]
            guard (first | second) < 0x0100_0000 else { break }
            let bytes = UInt64(first) << 40 | UInt64(second) << 16
            UnsafeMutableRawPointer(output + count).storeBytes(of: bytes.bigEndian, as: UInt64.self)
            count &+= 6
            position &+= 8
        }
        while end &- position >= 4, out.count &- count >= 3 {
            let p = input + position
            let group = t[Int(p[0])] | t[256 + Int(p[1])] | t[512 + Int(p[2])] | t[768 + Int(p[3])]
            guard group < 0x0100_0000 else { break }
            output[count] = UInt8(truncatingIfNeeded: group >> 16)
            output[count + 1] = UInt8(truncatingIfNeeded: group >> 8)
            output[count + 2] = UInt8(truncatingIfNeeded: group)
            count &+= 3
            position &+= 4
        }
        state.symbols += position - state.position
        state.position = position
        state.count = count
    }

    /// The exact decoder, from `state.position` on (a group boundary, no padding seen). Returns `true` when it has
    /// read the whole text and checked the end, `false` when it stops after whitespace at a group boundary,
    /// before any padding, with an alphabet symbol next, for the fast path to go on.
    private static func decodeRest(
        _ text: UnsafeRawBufferPointer, url: Bool, ignoringWhitespace: Bool,
        table: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
        state: inout DecodingState
    ) throws -> Bool {
        var count = state.count
        var accumulator: UInt32 = 0
        var symbols = state.symbols  // alphabet symbols seen (a multiple of 4 at the start)
        var padding = 0  // `=` seen
        var position = state.position
        while position < text.count {
            let character = text[position]
            let value = table[Int(character)]
            switch value {
            case 0xFD:
                if !ignoringWhitespace { throw TVECryptoError.invalidBase64(reason: "whitespace at offset \(position)") }
                if symbols % 4 == 0, padding == 0, position + 1 < text.count, table[Int(text[position + 1])] < 64 {
                    state = DecodingState(position: position + 1, count: count, symbols: symbols)
                    return false
                }
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
        state = DecodingState(position: position, count: count, symbols: symbols)
        return true
    }
}
