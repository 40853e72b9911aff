import Foundation
import Testing
@testable import TVECrypto
import TVETestSupport

/// Where the committed test vectors and fixtures live (found from this file's path, so `swift test` works from
/// any directory).
enum Paths {
    static let testVectors = Fixtures.testVectors
    static let fixtures = testVectors.appendingPathComponent("fixtures")
    static let wycheproof = testVectors.appendingPathComponent("wycheproof")
}

enum Fixture {
    static let pkcs12Password = "fixture-password"
    static let keyPassphrase = "key-passphrase"

    static func bytes(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes("TestVectors/fixtures/" + name)
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Decodes hexadecimal text (test helper; trusted input).
    init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return 0
            }
        }
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(nibble(high) << 4 | nibble(low))
        }
        self = bytes
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// Runs `body` and returns the TVECryptoError it throws (or nil).
func cryptoError(_ body: () throws -> Void) -> TVECryptoError? {
    do {
        try body()
        return nil
    } catch let error as TVECryptoError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

extension RSAPublicKey {
    /// The modulus, big-endian in ``modulusByteCount`` bytes, read from the PKCS#1 RSAPublicKey inside the key's
    /// SubjectPublicKeyInfo DER (test helper): the first INTEGER of that many bytes, after an optional leading zero.
    var modulusBytes: [UInt8]? {
        let der = derRepresentation
        for start in der.indices where der[start] == 0x02 {
            var index = start + 1
            guard index < der.count else { break }
            var length = Int(der[index])
            index += 1
            if length & 0x80 != 0 {
                let lengthBytes = length & 0x7F
                guard lengthBytes <= 2, index + lengthBytes <= der.count else { continue }
                length = der[index..<(index + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                index += lengthBytes
            }
            guard index + length <= der.count else { continue }
            var value = Array(der[index..<(index + length)])
            if value.first == 0 { value.removeFirst() }
            if value.count == modulusByteCount { return value }
        }
        return nil
    }
}
