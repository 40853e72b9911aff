import Foundation
import Testing
@testable import TVECrypto
import TVETestSupport

/// TVEKit verifies RSA signatures with its own exponentiation (square-and-multiply over OpenSSL's Montgomery
/// multiplications, ending outside the Montgomery domain). These keys have the exponents and modulus sizes where
/// such code goes wrong: e = 3 (no squaring loop), 17, 2^32 + 15, 2^63 + 1, 2^64 − 1 (a multiplication per bit),
/// and moduli that do not fill their top 64-bit word or are not a multiple of 512 bits. Each signature is made by
/// OpenSSL's private-key operation, so a wrong exponentiation cannot agree with it by accident.
@Suite("RSA public exponents and modulus sizes")
struct RSAExponentTests {
    static let keyNames = [
        "e3-1024", "e17-2048", "e65537-2080", "e65537-1032", "e2pow32plus15-1536", "e64ones-2048", "e64top-1024",
    ]

    static func privateKey(_ name: String) throws -> RSAPrivateKey {
        let pem = String(decoding: try Fixtures.bytes("TestVectors/rsa-exponents/\(name).pem"), as: UTF8.self)
        return try RSAPrivateKey(unsafePEMRepresentation: pem)
    }

    /// Messages of several lengths, so that the digests, and so the signatures, differ in every byte.
    static let messages: [[UInt8]] = (0..<12).map { index in
        Array("message \(index) ".utf8) + [UInt8](repeating: UInt8(index), count: index * 37)
    }

    @Test("OpenSSL's signatures verify, for every exponent and modulus size", arguments: keyNames)
    func signaturesVerify(name: String) throws {
        let key = try Self.privateKey(name)
        let publicKey = key.publicKey
        for (index, message) in Self.messages.enumerated() {
            let signature = try key.signature(for: message)
            #expect(publicKey.isValidSignature(signature, for: message), "\(name): message \(index)")
            var digest = [UInt8](repeating: 0, count: 32)
            try message.withUnsafeBytes { bytes in
                try digest.withUnsafeMutableBufferPointer { out in
                    guard let base = out.baseAddress else { return }
                    try HashFunction.sha256.digest(bytes, into: base)
                }
            }
            let viaDigest = signature.withUnsafeBytes { signatureBytes in
                digest.withUnsafeBytes { publicKey.isValidSignature(signatureBytes, digest: $0, padding: .pkcs1v15SHA256) }
            }
            #expect(viaDigest, "\(name): message \(index), digest path")
        }
    }

    @Test("rejectsAlteredSignature: a changed signature or message fails, for every exponent and modulus size", arguments: keyNames)
    func alteredSignaturesFail(name: String) throws {
        let key = try Self.privateKey(name)
        let publicKey = key.publicKey
        for (index, message) in Self.messages.enumerated() {
            let signature = try key.signature(for: message)
            var altered = signature
            altered[altered.count - 1 - index] ^= 0x01
            #expect(!publicKey.isValidSignature(altered, for: message), "\(name): message \(index), flipped bit")
            #expect(!publicKey.isValidSignature(signature, for: message + [0]), "\(name): message \(index), longer message")
            let other = Self.messages[(index + 1) % Self.messages.count]
            #expect(!publicKey.isValidSignature(signature, for: other), "\(name): message \(index), another message")
        }
    }

    @Test("rejectsDegenerateSignature: s = 0, 1, n − 1 and n fail, for every exponent and modulus size", arguments: keyNames)
    func degenerateSignaturesFail(name: String) throws {
        let publicKey = try Self.privateKey(name).publicKey
        let count = publicKey.modulusByteCount
        let modulus = try #require(publicKey.modulusBytes, "\(name): no modulus in the key's DER")
        var modulusMinusOne = modulus
        modulusMinusOne[count - 1] -= 1  // n is odd: no borrow
        let candidates: [(String, [UInt8])] = [
            ("0", [UInt8](repeating: 0, count: count)),
            ("1", [UInt8](repeating: 0, count: count - 1) + [1]),
            ("n - 1", modulusMinusOne),
            ("n", modulus),
        ]
        for (label, signature) in candidates {
            for message in Self.messages.prefix(2) {
                #expect(!publicKey.isValidSignature(signature, for: message), "\(name): s = \(label)")
            }
        }
    }
}
