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
