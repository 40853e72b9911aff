import Foundation
import Testing
@testable import TVECrypto

@Suite("Base64")
struct Base64Tests {
    // RFC 4648 §10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 test vectors")
    func rfcVectors() throws {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64.decode(encoded) == Array(plain.utf8))
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded.replacingOccurrences(of: "=", with: ""))
            #expect(try Base64URL.decode(encoded.replacingOccurrences(of: "=", with: "")) == Array(plain.utf8))
        }
    }

    @Test(
        "strict decoding refuses non-canonical text",
        arguments: [
            "Zg", "Zg=", "Zg===", "Zh==", "Zm9=", "Z===", "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v=", "Zg==Zg==", "Zm9-", "Zm9_", "Zm9v\u{0}",
            "é===",
        ])
    func strictRejects(text: String) {
        #expect(cryptoError { _ = try Base64.decode(text) }?.code == .invalidBase64, "\(text.debugDescription)")
    }

    @Test("whitespace-tolerant decoding skips only whitespace")
    func lenient() throws {
        #expect(try Base64.decode(" Zm9v\r\nYmFy\t", options: .ignoringWhitespace) == Array("foobar".utf8))
        #expect(cryptoError { _ = try Base64.decode("Zm9v.YmFy", options: .ignoringWhitespace) }?.code == .invalidBase64)
    }

    @Test("Base64url uses its own alphabet and no padding")
    func url() throws {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(cryptoError { _ = try Base64URL.decode("+/8") }?.code == .invalidBase64)
        #expect(cryptoError { _ = try Base64URL.decode("-_8=") }?.code == .invalidBase64)
        #expect(cryptoError { _ = try Base64URL.decode("A") }?.code == .invalidBase64)
    }

    @Test("line wrapping")
    func wrapping() throws {
        let bytes = [UInt8](repeating: 0xAB, count: 100)
        let wrapped = Base64.encode(bytes, lineLength: 76)
        #expect(wrapped.split(separator: "\n").map(\.count) == [76, 60])
        #expect(try Base64.decode(wrapped, options: .ignoringWhitespace) == bytes)
    }

    @Test("random round trips agree with Foundation")
    func roundTrips() throws {
        for length in 0..<70 {
            let bytes = try SecureRandom.bytes(count: length)
            let encoded = Base64.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString())
            #expect(try Base64.decode(encoded) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}

@Suite("Hashes, HMAC, AES, random, constant time, secret bytes")
struct PrimitiveTests {
    @Test("SHA digests of 'abc' (FIPS 180-4 examples)")
    func digests() throws {
        let abc = Array("abc".utf8)
        #expect(try HashFunction.sha1.hash(abc).hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(try HashFunction.sha256.hash(abc).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try HashFunction.sha384.hash(abc).hex.hasPrefix("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"))
        #expect(try HashFunction.sha512.hash(abc).hex.hasPrefix("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea2"))
        #expect(try HashFunction.sha224.hash(abc).hex == "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
    }

    @Test("MD5 (RFC 1321 test suite) is only an InsecureDigest, never a HashFunction")
    func md5() throws {
        #expect(try InsecureDigest.md5([UInt8]()).hex == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(try InsecureDigest.md5(Array("abc".utf8)).hex == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try InsecureDigest.md5(Array("message digest".utf8)).hex == "f96b697d7cb7938d525a2f31aaf161d0")
        #expect(HashFunction(name: "MD5") == nil)
    }

    @Test("HMAC: RFC 4231 case 2 (SHA-256) and RFC 2202 case 2 (SHA-1)")
    func hmac() throws {
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        let sha256 = try HMAC.authenticationCode(for: data, key: key, hash: .sha256)
        #expect(sha256.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let sha1 = try HMAC.authenticationCode(for: data, key: key, hash: .sha1)
        #expect(sha1.hex == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(HMAC.isValidAuthenticationCode(sha1, for: data, key: key, hash: .sha1))
        #expect(!HMAC.isValidAuthenticationCode(sha1.dropLast(), for: data, key: key, hash: .sha1))
        #expect(try HMAC.authenticationCode(for: data, key: [UInt8](), hash: .sha256).count == 32)
    }

    @Test("AES-GCM: NIST GCM test case 4 (AES-128), and tampering is authenticationFailed")
    func gcm() throws {
        let key = [UInt8](hex: "feffe9928665731c6d6a8f9467308308")
        let nonce = [UInt8](hex: "cafebabefacedbaddecaf888")
        let plaintext = [UInt8](
            hex: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let aad = [UInt8](hex: "feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let box = try AES.GCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(
            box.ciphertext.hex
                == "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
        )
        #expect(box.tag.hex == "5bc94fbc3221a5db94fae95ae7121a47")
        #expect([UInt8](try AES.GCM.open(box, key: key, nonce: nonce, authenticating: aad)) == plaintext)
        var tampered = box
        tampered.ciphertext[0] ^= 1
        #expect(cryptoError { _ = try AES.GCM.open(tampered, key: key, nonce: nonce, authenticating: aad) }?.code == .authenticationFailed)
        #expect(cryptoError { _ = try AES.GCM.open(box, key: key, nonce: nonce, authenticating: [UInt8]()) }?.code == .authenticationFailed)
        #expect(cryptoError { _ = try AES.GCM.seal(plaintext, key: key, nonce: [0, 1], authenticating: aad) }?.code == .invalidParameter)
    }

    @Test("AES-CBC: RFC 3602 case 1 without padding block, round trips, and bad padding is decryptionFailed")
    func cbc() throws {
        let key = [UInt8](hex: "06a9214036b8a15b512e03d534120006")
        let iv = [UInt8](hex: "3dafba429d9eb430b422da802c9fac41")
        let ciphertext = try AES.CBC.encrypt(Array("Single block msg".utf8), key: key, iv: iv)
        #expect(Array(ciphertext.prefix(16)).hex == "e353779c1079aeb82708942dbe77181a")
        #expect(ciphertext.count == 32)
        #expect([UInt8](try AES.CBC.decrypt(ciphertext, key: key, iv: iv)) == Array("Single block msg".utf8))
        for keySize in [16, 24, 32] {
            let k = try SecureRandom.bytes(count: keySize)
            for length in [0, 1, 15, 16, 17, 100] {
                let plain = try SecureRandom.bytes(count: length)
                #expect([UInt8](try AES.CBC.decrypt(AES.CBC.encrypt(plain, key: k, iv: iv), key: k, iv: iv)) == plain)
            }
        }
        var broken = ciphertext
        broken[31] ^= 0xFF
        #expect(cryptoError { _ = try AES.CBC.decrypt(broken, key: key, iv: iv) }?.code == .decryptionFailed)
        #expect(cryptoError { _ = try AES.CBC.decrypt(ciphertext.dropLast(), key: key, iv: iv) }?.code == .decryptionFailed)
        #expect(cryptoError { _ = try AES.CBC.encrypt([1], key: [1, 2, 3], iv: iv) }?.code == .invalidParameter)
    }

    @Test("constant-time comparison")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test("random bytes differ and respect limits")
    func random() throws {
        #expect(try SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        #expect(cryptoError { _ = try SecureRandom.bytes(count: -1) }?.code == .invalidParameter)
        #expect(try SecureRandom.secureBytes(count: 16).count == 16)
    }

    @Test("secretsAreNotPrinted: SecureBytes never shows its contents")
    func secretsAreNotPrinted() {
        let secret = SecureBytes(utf8: "hunter2")
        #expect(secret.description == "SecureBytes(7 bytes)")
        #expect(!"\(secret)".contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
        #expect(secret == SecureBytes(Array("hunter2".utf8)))
        #expect([UInt8](secret) == Array("hunter2".utf8))
    }

    @Test("error codes are stable and equality is by code")
    func errorCodes() {
        #expect(TVECryptoError.wrongPassword(reason: "a") == TVECryptoError.wrongPassword(reason: "b"))
        #expect(TVECryptoError.wrongPassword() != TVECryptoError.malformedKey())
        #expect(TVECryptoError.Code.decryptionFailed.description == "decryptionFailed")
        #expect(TVECryptoError.Code.decryptionFailed.number == 1052)
    }
}
