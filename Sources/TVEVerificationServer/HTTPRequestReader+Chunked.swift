import NIOCore
import NIOHTTP1

/// Chunked bodies and the byte-level helpers of ``HTTPRequestReader``.
extension HTTPRequestReader {
    // MARK: Chunked bodies

    /// A chunk-size line's size (its extensions are checked and dropped), nil when the line has not come whole.
    func readChunkLine(_ bytes: inout ByteBuffer) throws(Failure) -> Int? {
        let limit = limits.maximumChunkLineBytes
        let parsed = try bytes.withUnsafeReadableBytes { (raw) throws(Failure) -> (size: Int, length: Int)? in
            guard let lf = raw.prefix(limit).firstIndex(of: 0x0A) else {
                if raw.count >= limit { throw .bad("a chunk-size line over \(limit) bytes") }
                return nil
            }
            guard lf > 0, raw[lf - 1] == 0x0D else { throw .bad("a chunk-size line ends in a bare LF") }
            var size = 0
            var index = 0
            while index < lf - 1, let digit = Self.hexValue(raw[index]) {
                guard index < 8 else { throw .bad("a chunk over 4 GiB") }
                size = size << 4 | digit
                index += 1
            }
            guard index > 0 else { throw .bad("a chunk size that is not hexadecimal") }
            while index < lf - 1, raw[index] == 0x20 || raw[index] == 0x09 { index += 1 }
            if index < lf - 1 {
                guard raw[index] == UInt8(ascii: ";") else { throw .bad("a chunk size that is not hexadecimal") }
                for byte in raw[index..<(lf - 1)] where byte < 0x20 && byte != 0x09 || byte == 0x7F {
                    throw .bad("a control byte in a chunk extension")
                }
            }
            return (size, lf + 1)
        }
        guard let parsed else { return nil }
        bytes.moveReaderIndex(forwardBy: parsed.length)
        return parsed.size
    }

    /// The trailer section after the last chunk, read line by line and dropped; `.end` after its empty line.
    mutating func readTrailers(_ bytes: inout ByteBuffer, read: Int) throws(Failure) -> Part? {
        var read = read
        let limit = limits.maximumTrailerBytes
        while true {
            let line = try bytes.withUnsafeReadableBytes { (raw) throws(Failure) -> Int? in
                guard let lf = raw.prefix(limit - read + 1).firstIndex(of: 0x0A) else {
                    if raw.count > limit - read { throw .bad("trailers over \(limit) bytes") }
                    return nil
                }
                guard lf > 0, raw[lf - 1] == 0x0D else { throw .bad("a trailer line ends in a bare LF") }
                if lf == 1 { return 2 }
                guard raw[0] != 0x20, raw[0] != 0x09 else { throw .bad("a folded trailer line (obs-fold)") }
                var index = 0
                while index < lf, Self.isTokenByte(raw[index]) { index += 1 }
                guard index > 0, raw[index] == UInt8(ascii: ":") else { throw .bad("a trailer field's name") }
                for byte in raw[index..<(lf - 1)] where byte < 0x20 && byte != 0x09 || byte == 0x7F {
                    throw .bad("a control byte in a trailer field")
                }
                return lf + 1
            }
            guard let line else {
                state = .trailers(read: read)
                return nil
            }
            bytes.moveReaderIndex(forwardBy: line)
            read += line
            if line == 2 {
                state = .head(scanned: 0)
                return .end
            }
        }
    }

    // MARK: Bytes

    /// RFC 9110's `tchar`.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// A token equals `lowercase` (lowercase letters and `-`) ignoring case; the caller checked the lengths.
    static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard bytes.count == expected.count else { return false }
        for index in 0..<bytes.count where bytes[index] | 0x20 != expected[index] { return false }
        return true
    }

    static func matches(_ raw: UnsafeRawBufferPointer, at offset: Int, _ text: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard offset + expected.count <= raw.count else { return false }
        for index in 0..<expected.count where raw[offset + index] != expected[index] { return false }
        return true
    }

    static func method(_ name: UnsafeRawBufferPointer) -> HTTPMethod {
        switch name.count {
        case 3 where matches(name, at: 0, "GET"): .GET
        case 4 where matches(name, at: 0, "POST"): .POST
        case 4 where matches(name, at: 0, "HEAD"): .HEAD
        default: HTTPMethod(rawValue: String(decoding: name, as: UTF8.self))
        }
    }
}
