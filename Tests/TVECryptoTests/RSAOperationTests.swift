import Foundation
import Testing
@testable import TVECrypto
import TVETestSupport

@Suite("RSA signatures and encryption")
struct RSAOperationTests {
    // The committed fixture keys: loading is deterministic and fast.
    static let key = Fixtures.leafKey
    static let otherKey = Fixtures.otherKey
    static let message = Array("<shortAuthorizationToken>...</shortAuthorizationToken>".utf8)

    @Test("sign then verify", arguments: [RSASignaturePadding.pkcs1v15SHA256, .pkcs1v15SHA384, .pkcs1v15SHA512, .pkcs1v15SHA224])
    func signVerify(padding: RSASignaturePadding) throws {
        let signature = try Self.key.signature(for: Self.message, padding: padding)
        #expect(signature.count == 256)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Self.message, padding: padding))
        #expect(!Self.otherKey.publicKey.isValidSignature(signature, for: Self.message, padding: padding))
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Self.message + [0], padding: padding))
    }

    static func adding(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8]? {
        var sum = [UInt8](repeating: 0, count: lhs.count)
        var carry = 0
        for index in lhs.indices.reversed() {
            let value = Int(lhs[index]) + Int(rhs[index]) + carry
            sum[index] = UInt8(value & 0xFF)
            carry = value >> 8
        }
        return carry == 0 ? sum : nil
    }

    @Test("rejectsSignatureMalleability: s + n and s = n, congruent or out of range, are refused (RFC 8017 RSAVP1 step 1)")
    func rejectsSignatureMalleability() throws {
        let publicKey = Self.key.publicKey
        let der = publicKey.derRepresentation
        try #require(der.count == 294 && der[28] == 0x02 && der[32] == 0x00, "the fixture is not a 2048-bit SPKI")
        let n = try #require(publicKey.modulusBytes)
        #expect(!publicKey.isValidSignature(n, for: Self.message))
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0xFF, count: 256), for: Self.message))
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0, count: 256), for: Self.message))
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0, count: 255) + [1], for: Self.message))
        // s + n is congruent to s: without the range check it would "verify" as a second signature.
        var tried = 0
        for counter in 0..<4096 {
            let message = Self.message + Array("\(counter)".utf8)
            let signature = try Self.key.signature(for: message)
            guard let shifted = Self.adding(signature, n) else { continue }
            tried += 1
            #expect(publicKey.isValidSignature(signature, for: message))
            #expect(!publicKey.isValidSignature(shifted, for: message), "s + n verified for message \(counter)")
            if tried == 3 { break }
        }
        #expect(tried > 0, "no signature below 2^2048 - n was found")
    }

    @Test("a signature with another hash does not verify")
    func hashConfusionIsRejected() throws {
        let signature = try Self.key.signature(for: Self.message, padding: .pkcs1v15SHA384)
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Self.message, padding: .pkcs1v15SHA256))
    }

    @Test("rejectsFlippedBit: one flipped bit anywhere in the signature fails", arguments: [0, 1, 31, 128, 254, 255])
    func rejectsFlippedBit(at index: Int) throws {
        var signature = try Self.key.signature(for: Self.message)
        signature[index] ^= 0x80
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Self.message))
    }

    @Test("signatures of the wrong length fail without throwing")
    func wrongLengthSignatures() throws {
        let signature = try Self.key.signature(for: Self.message)
        for candidate in [[], [0] + signature, signature + [0], Array(signature.dropFirst()), [UInt8](repeating: 0, count: 256)] {
            #expect(!Self.key.publicKey.isValidSignature(candidate, for: Self.message))
        }
    }

    @Test("SHA-1 signatures are refused")
    func sha1SignaturesAreRefused() {
        #expect(cryptoError { _ = try RSASignaturePadding.pkcs1v15(.sha1) }?.code == .unsupportedAlgorithm)
    }

    @Test(
        "encrypt then decrypt",
        arguments: [
            RSAEncryptionPadding.oaepSHA256, .oaepSHA1, ._weakAndInsecurePKCS1v15,
            .oaep(hash: .sha256, mgf1Hash: .sha1, label: Array("label".utf8)),
        ])
    func encryptDecrypt(padding: RSAEncryptionPadding) throws {
        let plaintext = Array("12345".utf8)
        let ciphertext = try Self.key.publicKey.encrypt(plaintext, padding: padding)
        #expect(ciphertext.count == 256)
        #expect([UInt8](try Self.key.decrypt(ciphertext, padding: padding)) == plaintext)
    }

    @Test("a plaintext too long for the key is invalidParameter")
    func plaintextTooLong() {
        let error = cryptoError {
            _ = try Self.key.publicKey.encrypt([UInt8](repeating: 1, count: 246), padding: ._weakAndInsecurePKCS1v15)
        }
        #expect(error?.code == .invalidParameter)
    }

    @Test(
        "wrongKeyDecryptionIsAnError: PKCS#1 v1.5 and OAEP with the wrong key never yield a plaintext",
        arguments: [RSAEncryptionPadding._weakAndInsecurePKCS1v15, .oaepSHA256, .oaepSHA1])
    func wrongKeyDecryptionIsAnError(padding: RSAEncryptionPadding) throws {
        for _ in 0..<20 {
            let ciphertext = try Self.key.publicKey.encrypt(try SecureRandom.bytes(count: 16), padding: padding)
            let error = cryptoError { _ = try Self.otherKey.decrypt(ciphertext, padding: padding) }
            #expect(error?.code == .decryptionFailed)
        }
    }

    @Test("oaepLabelMismatchIsRejected")
    func oaepLabelMismatchIsRejected() throws {
        let ciphertext = try Self.key.publicKey.encrypt([1, 2, 3], padding: .oaep(hash: .sha256, mgf1Hash: .sha256, label: [9]))
        #expect(cryptoError { _ = try Self.key.decrypt(ciphertext, padding: .oaepSHA256) }?.code == .decryptionFailed)
    }

    @Test("concatenated PKCS#1 v1.5 blocks round-trip", arguments: [0, 1, 244, 245, 246, 490, 2000])
    func blocks(length: Int) throws {
        let plaintext = [UInt8]((0..<length).map { UInt8(truncatingIfNeeded: $0) })
        let ciphertext = try Self.key.publicKey.encryptPKCS1v15Blocks(plaintext)
        #expect(ciphertext.count == 256 * max(1, (length + 244) / 245))
        #expect([UInt8](try Self.key.decryptPKCS1v15Blocks(ciphertext)) == plaintext)
    }

    @Test("blocks of the wrong length, or one bad block, are decryptionFailed")
    func badBlocks() throws {
        let ciphertext = try Self.key.publicKey.encryptPKCS1v15Blocks([UInt8](repeating: 7, count: 600))
        #expect(cryptoError { _ = try Self.key.decryptPKCS1v15Blocks(ciphertext.dropLast()) }?.code == .decryptionFailed)
        #expect(cryptoError { _ = try Self.key.decryptPKCS1v15Blocks([UInt8]()) }?.code == .decryptionFailed)
        var tampered = ciphertext
        tampered[300] ^= 1
        #expect(cryptoError { _ = try Self.key.decryptPKCS1v15Blocks(tampered) }?.code == .decryptionFailed)
        #expect(cryptoError { _ = try Self.otherKey.decryptPKCS1v15Blocks(ciphertext) }?.code == .decryptionFailed)
    }

    @Test("one key object is safe to share between many concurrent tasks")
    func concurrentUse() async throws {
        let key = Self.key
        let signature = try key.signature(for: Self.message)
        let ciphertext = try key.publicKey.encrypt([42], padding: .oaepSHA256)
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for index in 0..<64 {
                group.addTask {
                    for _ in 0..<20 where !key.publicKey.isValidSignature(signature, for: Self.message) { return false }
                    if index % 8 == 0 {
                        guard let produced = try? key.signature(for: Self.message), produced == signature else { return false }
                        guard let plaintext = try? key.decrypt(ciphertext, padding: .oaepSHA256), [UInt8](plaintext) == [42] else {
                            return false
                        }
                    }
                    // A bad signature on the same key must not disturb the others.
                    return !key.publicKey.isValidSignature(signature, for: [0])
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}

@Suite("RSA public exponent policy")
struct RSAExponentPolicyTests {
    static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 128 {
            length = [UInt8(content.count)]
        } else if content.count < 256 {
            length = [0x81, UInt8(content.count)]
        } else {
            length = [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
        }
        return [tag] + length + content
    }

    /// A SubjectPublicKeyInfo with the fixture key's modulus and the exponent `e` (big-endian bytes).
    static func spki(exponent e: [UInt8]) -> [UInt8] {
        let modulus = [0] + (RSAOperationTests.key.publicKey.modulusBytes ?? [])  // empty: the control test fails
        let rsaKey = der(0x30, der(0x02, modulus) + der(0x02, e))
        let algorithm = der(0x30, der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]) + [0x05, 0x00])
        return der(0x30, algorithm + der(0x03, [0] + rsaKey))
    }

    @Test("the fixture modulus with e = 65537 and e = 3 loads (the builder is right)")
    func control() throws {
        _ = try RSAPublicKey(derRepresentation: Self.spki(exponent: [0x01, 0x00, 0x01]))
        _ = try RSAPublicKey(derRepresentation: Self.spki(exponent: [0x03]))
    }

    @Test(
        "rejectsDegenerateExponent: e = 1 (every encoding verifies), even e and e over 64 bits are refused",
        arguments: [[0x01], [0x02], [0x01, 0x00, 0x00], [0x01] + [UInt8](repeating: 0, count: 8) + [0x01]] as [[UInt8]])
    func rejectsDegenerateExponent(exponent: [UInt8]) {
        #expect(throws: TVECryptoError.self) { try RSAPublicKey(derRepresentation: Self.spki(exponent: exponent)) }
    }
}
