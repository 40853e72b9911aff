import Foundation
import Testing
@testable import TVECrypto

// Project Wycheproof RSA vectors (TestVectors/wycheproof, Apache-2.0). Every case of all 17 files runs.
//
// Policy for "acceptable" cases (documented in the TVECrypto article "What TVECrypto guarantees", "Wycheproof's
// "acceptable" cases"):
// - Signature verification, MissingNull (DigestInfo without the NULL parameters): TVEKit builds the one valid
//   EMSA-PKCS1-v1_5 block, with the NULL parameters, and compares it whole: the signature is REJECTED. The test pins that
//   outcome.
// - Signature generation, WeakHash (SHA-1): RSA signatures with SHA-1 are refused; `pkcs1v15(.sha1)` throws
//   unsupportedAlgorithm. SmallPublicKey (e = 3): accepted, and the signature must equal the vector's.
// - OAEP decryption, SmallIntegerCiphertext: either outcome is allowed by Wycheproof; if we decrypt, the
//   plaintext must be the vector's message.
// - Keys under 2048 bits (1024 and 1536-bit OAEP groups): the safe initialiser must refuse them with
//   keyTooSmall; the case then runs with the `unsafe` initialiser, which accepts them.

struct WycheproofFile<Group: Decodable>: Decodable {
    let algorithm: String
    let numberOfTests: Int
    let testGroups: [Group]

    static func load(_ name: String) throws -> WycheproofFile<Group> {
        let url = Paths.wycheproof.appendingPathComponent(name)
        let data = try #require(FileManager.default.contents(atPath: url.path), "missing \(name)")
        return try JSONDecoder().decode(WycheproofFile<Group>.self, from: data)
    }
}

struct WycheproofSignatureCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let msg: String
    let sig: String
    let result: String
}

struct WycheproofVerifyGroup: Decodable {
    let keySize: Int
    let sha: String
    let publicKeyDer: String
    let tests: [WycheproofSignatureCase]
}

struct WycheproofSignGroup: Decodable {
    let keySize: Int
    let sha: String
    let privateKeyPkcs8: String
    let tests: [WycheproofSignatureCase]
}

struct WycheproofDecryptCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let msg: String
    let ct: String
    let label: String?
    let result: String
}

struct WycheproofDecryptGroup: Decodable {
    let keySize: Int
    let sha: String?
    let mgfSha: String?
    let privateKeyPkcs8: String
    let tests: [WycheproofDecryptCase]
}

/// Counts outcomes per file and prints one summary line.
struct Tally {
    let file: String
    var total = 0
    var passed = 0
    var acceptable = 0

    mutating func record(_ ok: Bool, acceptableCase: Bool = false) {
        total += 1
        if ok { passed += 1 }
        if acceptableCase { acceptable += 1 }
    }

    func report(expected: Int) {
        print("Wycheproof \(file): \(passed)/\(total) cases passed (\(acceptable) acceptable, by policy); file declares \(expected)")
        #expect(total == expected, "\(file): ran \(total) cases, the file declares \(expected)")
        #expect(passed == total, "\(file): \(total - passed) cases failed")
    }
}

@Suite("Wycheproof RSA vectors")
struct WycheproofTests {
    static let verifyFiles = [
        "rsa_signature_2048_sha256_test.json", "rsa_signature_3072_sha256_test.json", "rsa_signature_4096_sha256_test.json",
    ]
    static let signFiles = [
        "rsa_pkcs1_2048_sig_gen_test.json", "rsa_pkcs1_3072_sig_gen_test.json", "rsa_pkcs1_4096_sig_gen_test.json",
    ]
    static let pkcs1DecryptFiles = ["rsa_pkcs1_2048_test.json", "rsa_pkcs1_3072_test.json", "rsa_pkcs1_4096_test.json"]
    static let oaepFiles = [
        "rsa_oaep_2048_sha1_mgf1sha1_test.json", "rsa_oaep_2048_sha256_mgf1sha1_test.json",
        "rsa_oaep_2048_sha256_mgf1sha256_test.json", "rsa_oaep_3072_sha256_mgf1sha1_test.json",
        "rsa_oaep_3072_sha256_mgf1sha256_test.json", "rsa_oaep_4096_sha256_mgf1sha1_test.json",
        "rsa_oaep_4096_sha256_mgf1sha256_test.json", "rsa_oaep_misc_test.json",
    ]

    @Test("all 17 Wycheproof files are run", .tags(.wycheproof))
    func everyFileIsCovered() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Paths.wycheproof.path).filter { $0.hasSuffix(".json") }
        let covered = Self.verifyFiles + Self.signFiles + Self.pkcs1DecryptFiles + Self.oaepFiles
        #expect(Set(onDisk) == Set(covered))
        #expect(covered.count == 17)
    }

    @Test("RSASSA-PKCS1-v1_5 verification", .tags(.wycheproof), arguments: verifyFiles)
    func signatureVerification(file: String) throws {
        let vectors = try WycheproofFile<WycheproofVerifyGroup>.load(file)
        var tally = Tally(file: file)
        for group in vectors.testGroups {
            let hash = try #require(HashFunction(name: group.sha))
            let padding = try RSASignaturePadding.pkcs1v15(hash)
            let key = try RSAPublicKey(derRepresentation: [UInt8](hex: group.publicKeyDer))
            for test in group.tests {
                let valid = key.isValidSignature([UInt8](hex: test.sig), for: [UInt8](hex: test.msg), padding: padding)
                switch test.result {
                case "valid":
                    #expect(valid, "tcId \(test.tcId) (\(test.comment)) should verify")
                    tally.record(valid)
                case "invalid":
                    #expect(!valid, "tcId \(test.tcId) (\(test.comment), \(test.flags)) must be rejected")
                    tally.record(!valid)
                default:
                    // Policy: MissingNull is rejected (OpenSSL compares the full DigestInfo encoding).
                    #expect(test.flags == ["MissingNull"], "tcId \(test.tcId): unexpected acceptable case \(test.flags)")
                    #expect(!valid, "tcId \(test.tcId): policy rejects a DigestInfo without NULL")
                    tally.record(!valid, acceptableCase: true)
                }
            }
        }
        tally.report(expected: vectors.numberOfTests)
    }

    @Test("RSASSA-PKCS1-v1_5 deterministic signature generation", .tags(.wycheproof), arguments: signFiles)
    func signatureGeneration(file: String) throws {
        let vectors = try WycheproofFile<WycheproofSignGroup>.load(file)
        var tally = Tally(file: file)
        for group in vectors.testGroups {
            let hash = try #require(HashFunction(name: group.sha))
            let key = try RSAPrivateKey(derRepresentation: [UInt8](hex: group.privateKeyPkcs8))
            guard hash != .sha1 else {
                // Policy: SHA-1 signatures are refused (WeakHash, "acceptable").
                for test in group.tests {
                    #expect(test.result == "acceptable" && test.flags.contains("WeakHash"), "tcId \(test.tcId)")
                    let error = cryptoError { _ = try RSASignaturePadding.pkcs1v15(hash) }
                    #expect(error?.code == .unsupportedAlgorithm, "tcId \(test.tcId): SHA-1 must be refused")
                    tally.record(error?.code == .unsupportedAlgorithm, acceptableCase: true)
                }
                continue
            }
            let padding = try RSASignaturePadding.pkcs1v15(hash)
            for test in group.tests {
                let message = [UInt8](hex: test.msg)
                let signature = try key.signature(for: message, padding: padding)
                let matches =
                    signature == [UInt8](hex: test.sig) && key.publicKey.isValidSignature(signature, for: message, padding: padding)
                #expect(test.result != "invalid", "tcId \(test.tcId): generation files hold no invalid case")
                #expect(matches, "tcId \(test.tcId) (\(test.comment), \(test.flags)): signature differs from the vector")
                tally.record(matches, acceptableCase: test.result == "acceptable")
            }
        }
        tally.report(expected: vectors.numberOfTests)
    }

    @Test("RSAES-PKCS1-v1_5 decryption", .tags(.wycheproof), arguments: pkcs1DecryptFiles)
    func pkcs1Decryption(file: String) throws {
        let vectors = try WycheproofFile<WycheproofDecryptGroup>.load(file)
        var tally = Tally(file: file)
        for group in vectors.testGroups {
            let key = try RSAPrivateKey(derRepresentation: [UInt8](hex: group.privateKeyPkcs8))
            for test in group.tests {
                let outcome = Result { try key.decrypt([UInt8](hex: test.ct), padding: ._weakAndInsecurePKCS1v15) }
                tally.record(Self.check(test, outcome))
            }
        }
        tally.report(expected: vectors.numberOfTests)
    }

    @Test("RSAES-OAEP decryption", .tags(.wycheproof), arguments: oaepFiles)
    func oaepDecryption(file: String) throws {
        let vectors = try WycheproofFile<WycheproofDecryptGroup>.load(file)
        var tally = Tally(file: file)
        for group in vectors.testGroups {
            let der = [UInt8](hex: group.privateKeyPkcs8)
            let key: RSAPrivateKey
            if group.keySize < 2048 {
                let refused = cryptoError { _ = try RSAPrivateKey(derRepresentation: der) }
                #expect(refused?.code == .keyTooSmall, "\(group.keySize)-bit key must need the unsafe initialiser")
                key = try RSAPrivateKey(unsafeDERRepresentation: der)
            } else {
                key = try RSAPrivateKey(derRepresentation: der)
            }
            let hash = try #require(HashFunction(name: group.sha ?? ""))
            let mgf1 = try #require(HashFunction(name: group.mgfSha ?? ""))
            for test in group.tests {
                let padding = RSAEncryptionPadding.oaep(hash: hash, mgf1Hash: mgf1, label: [UInt8](hex: test.label ?? ""))
                let outcome = Result { try key.decrypt([UInt8](hex: test.ct), padding: padding) }
                tally.record(Self.check(test, outcome), acceptableCase: test.result == "acceptable")
            }
        }
        tally.report(expected: vectors.numberOfTests)
    }

    /// Valid: decrypts to the message. Invalid: the one decryptionFailed error. Acceptable: either, but a
    /// plaintext must be the message.
    static func check(_ test: WycheproofDecryptCase, _ outcome: Result<SecureBytes, any Error>) -> Bool {
        let expected = [UInt8](hex: test.msg)
        switch (test.result, outcome) {
        case ("valid", .success(let plaintext)), ("acceptable", .success(let plaintext)):
            let ok = [UInt8](plaintext) == expected
            #expect(ok, "tcId \(test.tcId) (\(test.comment)): wrong plaintext")
            return ok
        case ("invalid", .failure(let error)), ("acceptable", .failure(let error)):
            let ok = (error as? TVECryptoError)?.code == .decryptionFailed
            #expect(ok, "tcId \(test.tcId) (\(test.comment)): expected decryptionFailed, got \(error)")
            return ok
        case ("valid", .failure(let error)):
            Issue.record("tcId \(test.tcId) (\(test.comment)) should decrypt: \(error)")
            return false
        default:
            Issue.record("tcId \(test.tcId) (\(test.comment), \(test.flags)) must not decrypt")
            return false
        }
    }

    @Test("PKCS#1 v1.5 padding failures are indistinguishable (no padding oracle)", .tags(.wycheproof), arguments: pkcs1DecryptFiles)
    func pkcs1DecryptionFailuresAreIndistinguishable(file: String) throws {
        let vectors = try WycheproofFile<WycheproofDecryptGroup>.load(file)
        var descriptions = Set<String>()
        var reasons = Set<String>()
        var count = 0
        for group in vectors.testGroups {
            let key = try RSAPrivateKey(derRepresentation: [UInt8](hex: group.privateKeyPkcs8))
            for test in group.tests where test.result == "invalid" {
                let error = try #require(
                    cryptoError { _ = try key.decrypt([UInt8](hex: test.ct), padding: ._weakAndInsecurePKCS1v15) },
                    "tcId \(test.tcId) decrypted")
                descriptions.insert(error.description)
                reasons.insert(error.reason)
                #expect(error.openSSLErrors.isEmpty, "tcId \(test.tcId): OpenSSL detail leaks through the error")
                count += 1
            }
        }
        #expect(count > 20)
        #expect(descriptions.count == 1, "decryption errors differ: \(descriptions)")
        #expect(reasons.count == 1)
    }
}

extension Tag {
    @Tag static var wycheproof: Self
}
