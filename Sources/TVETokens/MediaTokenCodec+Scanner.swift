import Foundation

extension MediaTokenCodec {
    /// A forward-only cursor over the token bytes.
    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        /// The literals, fetched once per token (a global's every access costs a `swift_once` check).
        let tags: Tags
        var index = 0

        @inline(__always)
        func peek(_ literal: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count - index >= literal.count, let base = bytes.baseAddress, let expected = literal.baseAddress else {
                return literal.isEmpty
            }
            return Self.equal(base + index, expected, literal.count)
        }

        /// Byte equality for short literals (tags are 5 to 26 bytes): unaligned 8-byte words, the last one overlapping,
        /// instead of a call to `memcmp` per tag.
        @inline(__always)
        static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
            if count >= 8 {
                var offset = 0
                while offset + 8 <= count {
                    if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    {
                        return false
                    }
                    offset += 8
                }
                return offset == count
                    || a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                        == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            }
            if count >= 4 {
                return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                    && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                        == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            }
            for offset in 0..<count where a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) {
                return false
            }
            return true
        }

        func peek(_ literal: [UInt8]) -> Bool {
            literal.withUnsafeBytes { peek($0) }
        }

        /// `name` is only built when the literal is missing (an autoclosure: no string work on the success path).
        @inline(__always)
        mutating func expect(_ literal: UnsafeRawBufferPointer, _ name: @autoclosure () -> String) throws {
            guard peek(literal) else {
                throw MediaTokenError.malformedToken(reason: "expected \(name()) at byte \(index)")
            }
            index += literal.count
        }

        mutating func expect(_ literal: [UInt8], _ name: @autoclosure () -> String) throws {
            try literal.withUnsafeBytes { try expect($0, name()) }
        }

        /// ``textRun()`` and ``MediaTokenText/classify(_:)`` of the run in one pass over its words: the first 64 bytes
        /// eight at a time, each word checked for `<`, `&` and `]` and ORed for the ASCII test (the word holding the `<`
        /// up to it only); a longer run is found with `memchr` and classified whole.
        @inline(__always)
        mutating func classifiedTextRun() -> (Range<Int>, MediaTokenText.Kind) {
            let start = index
            guard let base = bytes.baseAddress, index < bytes.count else { return (start..<start, .init(isPlain: true, isASCII: true)) }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always) func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
            var combined: UInt64 = 0
            var special: UInt64 = 0
            let limit = min(bytes.count, index + 64)
            while index + 8 <= limit {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let less = zeroBytes(word ^ (ones &* 0x3C))
                // The bytes before the first '<' (all of them when there is none): masked-off bytes read as zero, which
                // is neither '&' nor ']' nor above 0x7F.
                let before = less == 0 ? word : word & ((1 &<< UInt64(less.trailingZeroBitCount & ~7)) &- 1)
                combined |= before
                special |= zeroBytes(before ^ (ones &* 0x26)) | zeroBytes(before ^ (ones &* 0x5D))
                if less != 0 {
                    index += less.trailingZeroBitCount / 8
                    return (start..<index, .init(isPlain: special == 0, isASCII: combined & highs == 0))
                }
                index += 8
            }
            let run = textRun(from: start)
            return (run, MediaTokenText.classify(UnsafeRawBufferPointer(rebasing: bytes[run])))
        }

        /// The rest of a run begun at `start`, from ``index`` on, with `memchr`.
        private mutating func textRun(from start: Int) -> Range<Int> {
            guard let base = bytes.baseAddress, index < bytes.count else { return start..<index }
            if let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) {
                index = base.distance(to: UnsafeRawPointer(found))
            } else {
                index = bytes.count
            }
            return start..<index
        }

        /// Moves past the text up to the next `<` (or the end) and returns its range. Fields are short: the first
        /// 64 bytes are searched eight at a time inline, the rest with `memchr`.
        @inline(__always)
        mutating func textRun() -> Range<Int> {
            let start = index
            guard let base = bytes.baseAddress, index < bytes.count else { return start..<start }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let limit = min(bytes.count, index + 64)
            while index + 8 <= limit {
                // In little-endian order the first byte in memory is the lowest; the lowest flagged byte is then the
                // first '<' (the borrow can only flag bytes after a real match).
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ (ones &* 0x3C)
                let zeros = (word &- ones) & ~word & (ones &* 0x80)
                if zeros != 0 {
                    index += zeros.trailingZeroBitCount / 8
                    return start..<index
                }
                index += 8
            }
            return textRun(from: start)
        }
    }
}
