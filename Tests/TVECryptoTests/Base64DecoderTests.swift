import Foundation
import Testing
@testable import TVECrypto

/// The Base64 decoder's fast path (whole groups through shifted tables, resumed after whitespace) against the
/// exact symbol-by-symbol decoder it must agree with, on every input: the same bytes, or the same error reason.
@Suite("Base64 decoder fast path")
struct Base64DecoderTests {
    /// The exact decoder alone, as TVECrypto had it before the fast path (its strictness and its messages): the
    /// oracle. `url` selects Base64url (no padding, no whitespace).
    static func referenceDecode(_ text: [UInt8], url: Bool, ignoringWhitespace: Bool) -> Result<[UInt8], TVECryptoError> {
        let alphabet = Array(
            (url
                ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").utf8)
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        table[Int(UInt8(ascii: "="))] = 0xFE
        for space in [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")] { table[Int(space)] = 0xFD }
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var symbols = 0
        var padding = 0
        for (position, character) in text.enumerated() {
            let value = table[Int(character)]
            switch value {
            case 0xFD:
                if !ignoringWhitespace { return .failure(.invalidBase64(reason: "whitespace at offset \(position)")) }
            case 0xFE:
                if url { return .failure(.invalidBase64(reason: "'=' padding at offset \(position) (Base64url takes none)")) }
                padding += 1
                if padding > 2 { return .failure(.invalidBase64(reason: "too much '=' padding at offset \(position)")) }
            case 0xFF:
                return .failure(.invalidBase64(reason: "the byte at offset \(position) is not in the alphabet"))
            default:
                if padding > 0 { return .failure(.invalidBase64(reason: "data after '=' padding at offset \(position)")) }
                accumulator = accumulator << 6 | UInt32(value)
                symbols += 1
                if symbols % 4 == 0 {
                    out += [
                        UInt8(truncatingIfNeeded: accumulator >> 16), UInt8(truncatingIfNeeded: accumulator >> 8),
                        UInt8(truncatingIfNeeded: accumulator),
                    ]
                    accumulator = 0
                }
            }
        }
        let rest = symbols % 4
        if url {
            if rest == 1 { return .failure(.invalidBase64(reason: "the length leaves a single trailing symbol")) }
        } else {
            if (symbols + padding) % 4 != 0 {
                return .failure(.invalidBase64(reason: "the length \(symbols + padding) is not a multiple of 4"))
            }
            if padding > 0 && rest == 0 || rest == 1 || (rest == 2 && padding != 2) || (rest == 3 && padding != 1) {
                return .failure(.invalidBase64(reason: "the '=' padding does not match the length"))
            }
        }
        switch rest {
        case 2:
            guard accumulator & 0x0F == 0 else { return .failure(.invalidBase64(reason: "non-zero bits after the last byte")) }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard accumulator & 0x03 == 0 else { return .failure(.invalidBase64(reason: "non-zero bits after the last byte")) }
            out += [UInt8(truncatingIfNeeded: accumulator >> 10), UInt8(truncatingIfNeeded: accumulator >> 2)]
        default:
            break
        }
        return .success(out)
    }

    /// What the library answers: the bytes, or the error's code and reason.
    enum Outcome: Equatable {
        case bytes([UInt8])
        case error(TVECryptoError.Code, String)

        init(_ body: () throws -> [UInt8]) {
            do {
                self = .bytes(try body())
            } catch let error as TVECryptoError {
                self = .error(error.code, error.reason)
            } catch {
                self = .error(.invalidParameter, "unexpected error type: \(error)")
            }
        }

        init(_ result: Result<[UInt8], TVECryptoError>) {
            switch result {
            case .success(let bytes): self = .bytes(bytes)
            case .failure(let error): self = .error(error.code, error.reason)
            }
        }
    }

    /// SplitMix64, so that every run checks the same inputs.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func check(_ text: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        for ignoringWhitespace in [false, true] {
            let expected = Outcome(referenceDecode(text, url: false, ignoringWhitespace: ignoringWhitespace))
            let options: Base64.DecodingOptions = ignoringWhitespace ? .ignoringWhitespace : []
            let viaBuffer = Outcome { try text.withUnsafeBytes { try Base64.decode(buffer: $0, options: options) } }
            let viaBytes = Outcome { try Base64.decode(bytes: text, options: options) }
            #expect(viaBuffer == expected, "\(String(decoding: text, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
            #expect(viaBytes == expected, "\(String(decoding: text, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
        }
        if let string = String(validating: text, as: UTF8.self) {
            let expected = Outcome(referenceDecode(text, url: true, ignoringWhitespace: false))
            #expect(Outcome { try Base64URL.decode(string) } == expected, "\(string.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test("every length from 0 to 100 bytes round-trips, in both alphabets, with every trailing-bit variant of the last symbol")
    func lengths() throws {
        var generator = Generator(state: 1)
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Array(Base64.encode(bytes).utf8)
            #expect(try Base64.decode(bytes: encoded) == bytes)
            #expect(try Base64.decode(bytes: encoded, options: .ignoringWhitespace) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            Self.check(encoded)
            // Every other symbol in the last data position: only the canonical one decodes.
            if let last = encoded.lastIndex(where: { $0 != UInt8(ascii: "=") }) {
                for symbol in Base64Codec.standardAlphabet {
                    var variant = encoded
                    variant[last] = symbol
                    Self.check(variant)
                }
            }
        }
    }

    @Test("mutated encodings: whitespace, padding, invalid bytes, deletions and insertions anywhere agree with the exact decoder")
    func mutations() {
        var generator = Generator(state: 0x5EED)
        let specials: [UInt8] = Array(" \t\r\n=-_.+/A\0".utf8) + [0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<4000 {
            let length = Int.random(in: 0...120, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var text = Array(Base64.encode(bytes).utf8)
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let special = specials[Int.random(in: 0..<specials.count, using: &generator)]
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    text.insert(special, at: Int.random(in: 0...text.count, using: &generator))
                case 1 where !text.isEmpty:
                    text[Int.random(in: 0..<text.count, using: &generator)] = special
                case 2 where !text.isEmpty:
                    text.remove(at: Int.random(in: 0..<text.count, using: &generator))
                default:
                    text.append(special)
                }
            }
            Self.check(text)
        }
    }

    @Test("whitespace between, inside and around groups, as PEM and e-mail wrap it")
    func whitespace() throws {
        var generator = Generator(state: 7)
        let bytes = (0..<700).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for lineLength in [4, 8, 64, 76] {
            let wrapped = Base64.encode(bytes, lineLength: lineLength)
            #expect(try Base64.decode(wrapped, options: .ignoringWhitespace) == bytes)
            #expect(throws: TVECryptoError.self) { try Base64.decode(wrapped) }
            Self.check(Array(wrapped.utf8))
            Self.check(Array(wrapped.replacingOccurrences(of: "\n", with: "\r\n").utf8))
        }
        let encoded = Array(Base64.encode(bytes).utf8)
        for _ in 0..<300 {
            var text = encoded
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let space = Array(" \t\r\n".utf8)[Int.random(in: 0..<4, using: &generator)]
                text.insert(space, at: Int.random(in: 0...text.count, using: &generator))
            }
            #expect(try Base64.decode(bytes: text, options: .ignoringWhitespace) == bytes)
            Self.check(text)
        }
        for text in [
            " ", "\n\n", "Zm9v ", " Zm9v", "Zm9v\nYmFy", "Zg= =", "Zg =\n=", "Zm9v\n=", "Zm9vYg==\nZm9v", "Zm8=\nZm8=", "Zm9v Y",
            "Zm9v YmFy Zg==",
            // Padding, then whitespace at a group boundary: the fast path must not resume after '='.
            "= Zm9v", "Zm9v= Zm9v", "Zm9v=\nZm9vYmFy", "Zg== Zm9v", "Zm9v = Zm9v",
        ] {
            Self.check(Array(text.utf8))
        }
    }

    @Test("a token-sized input with an error in each position reports the first offending offset")
    func errorOffsets() {
        var generator = Generator(state: 42)
        let bytes = (0..<432).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let encoded = Array(Base64.encode(bytes).utf8)
        #expect(encoded.count == 576)
        for position in stride(from: 0, to: encoded.count, by: 5) {
            for special in Array(".= \n".utf8) {
                var text = encoded
                text[position] = special
                Self.check(text)
            }
        }
    }

    @Test("the group tables give 24 bits for alphabet symbols and 0xFFFFFFFF for everything else")
    func groupTables() {
        for (table, groupTable) in [
            (Base64Codec.standardTable, Base64Codec.standardGroupTable), (Base64Codec.urlTable, Base64Codec.urlGroupTable),
        ] {
            #expect(groupTable.count == 1024)
            for slot in 0..<4 {
                for byte in 0..<256 {
                    let entry = groupTable[slot * 256 + byte]
                    if table[byte] < 64 {
                        #expect(entry == UInt32(table[byte]) << UInt32(18 - 6 * slot))
                    } else {
                        #expect(entry == 0xFFFF_FFFF)
                    }
                }
            }
        }
    }

    /// Decodes `text` (whitespace skipped) with the vector path capped at `vector` (2 AVX2, 1 SSSE3, 0 none).
    static func decode(_ text: [UInt8], vector: Int) -> Outcome {
        Outcome { try text.withUnsafeBytes { try Base64.decode(buffer: $0, options: .ignoringWhitespace, vectorLevel: vector) } }
    }

    @Test(
        "the vector path (AVX2 or SSSE3) agrees with the scalar path for every byte value at every position of texts across its blocks"
    )
    func vectorPathEveryByteEverywhere() async {
        var generator = Generator(state: 0xB10C)
        // 32 and 80 symbols: whole 32- and 16-symbol blocks, and the scalar tail. The scalar path is held to the exact
        // decoder by the tests above (and here on every seventh position); this test is kept light, and yields, because
        // it runs beside the whole suite on the cooperative pool.
        for length in [24, 60] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Array(Base64.encode(bytes).utf8)
            #expect(Self.decode(encoded, vector: 2) == .bytes(bytes) && Self.decode(encoded, vector: 1) == .bytes(bytes))
            for position in 0..<encoded.count {
                for value in 0...255 {
                    var text = encoded
                    text[position] = UInt8(value)
                    let scalar = Self.decode(text, vector: 0)
                    if position % 7 == 0, scalar != Outcome(Self.referenceDecode(text, url: false, ignoringWhitespace: true)) {
                        Issue.record("scalar path, byte \(value) at \(position) of \(encoded.count)")
                        return
                    }
                    // AVX2 (where the processor has it) and SSSE3 against the scalar path.
                    for level in [2, 1] where Self.decode(text, vector: level) != scalar {
                        Issue.record("level \(level), byte \(value) at \(position) of \(encoded.count): expected \(scalar)")
                        return
                    }
                }
                await Task.yield()
            }
        }
        // Which path ran on this processor (both agree whatever it is; on a processor without either, nothing is vector).
        #expect([0, 1, 2].contains(Base64Codec.vectorLevel))
    }

    @Test("the vector path decodes long texts with whitespace, and stops before an output too small for its stores")
    func vectorPathLongTexts() {
        var generator = Generator(state: 0x1046)
        for length in [300, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let wrapped = Array(Base64.encode(bytes, lineLength: 64).utf8)
            for level in [2, 1] {
                #expect(Self.decode(wrapped, vector: level) == .bytes(bytes))
                #expect(Self.decode(Array(Base64.encode(bytes).utf8), vector: level) == .bytes(bytes))
            }
        }
        // The stores stay within the output: a buffer of exactly the decoded size plus the decoder's 3 bytes of room.
        let bytes = (0..<96).map { UInt8($0) }
        let text = Array(Base64.encode(bytes).utf8)
        let out = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Base64Codec.decodedCapacity(text.count))
        defer { out.deallocate() }
        let count = text.withUnsafeBytes { try? Base64Codec.decode($0, url: false, ignoringWhitespace: false, into: out) }
        #expect(count == 96 && Array(out[0..<96]) == bytes)
    }
}
