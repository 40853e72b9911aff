import Foundation
import TVECrypto
import TVEMetadata
import TVESAML
import TVETokens
import TVEVerification

/// What `tvekit speed` measures: every operation with its fixture material (keys loaded once, as a server holds
/// them) and the bare OpenSSL call it is paired with.
package enum SpeedSuite {
    package static let operationNames = [
        "rsa2048-verify", "rsa1024-verify", "rsa2048-sign", "rsa2048-decrypt-pkcs1",
        "rsa2048-decrypt-oaep-sha256", "base64-decode", "token-parse", "token-parse-text",
        "token-verify", "service-verify", "token-verify-1024", "token-verify-1024-text",
        "token-verify-1024-glue", "metadata-decrypt",
        "saml-verify-5k", "saml-verify-50k",
    ]

    /// Makes every operation (in `operationNames` order); `progress` hears about the slow steps.
    package static func operations(progress: (String) -> Void) throws -> [SpeedOperation] {
        progress("generating an RSA-2048 key...")
        let key = try RSAPrivateKey(keySizeInBits: 2048)
        let publicKey = key.publicKey
        let message = try SecureRandom.bytes(count: 400)
        let signature = try key.signature(for: message)
        let secret = try SecureRandom.bytes(count: 32)
        let pkcs1Ciphertext = try publicKey.encrypt(secret, padding: ._weakAndInsecurePKCS1v15)
        let oaepCiphertext = try publicKey.encrypt(secret, padding: .oaepSHA256)
        let baseline = try OpenSSLBaseline(key: key, message: message)
        let now = SystemMediaTokenClock().nowMilliseconds
        let token = try MediaTokenIssuer(privateKey: key).issue(
            requestorID: "tvekit-speed", resourceID: "tvekit-resource",
            mvpdId: "SpeedMVPD", issueTime: now)
        let serializedToken = Array(token.serialized.utf8)
        let verifier = try MediaTokenVerifier(
            trustedKeys: [publicKey], requestorID: "tvekit-speed",
            clock: FixedMediaTokenClock(milliseconds: now))
        let base64Baseline = try OpenSSLBase64Baseline(encoded: serializedToken)
        // The bare verification of the token's own signed bytes (SHA-256, then EVP_PKEY_verify).
        let tokenBaseline = try OpenSSLVerifyBaseline(publicKey: publicKey, signature: token.signature, message: Array(token.signedBytes))
        // The verification service answering a `POST /verify` body with the same token, in process: the body's reader,
        // the requestor, the verification, one-time use in memory (the first answer is valid, every other a replay, as
        // most of `make fleet-bench`'s are), the JSON answer and the metrics.
        let service = try VerificationService(
            trustedKeys: [publicKey], requestorIDs: ["tvekit-speed"], clock: FixedMediaTokenClock(milliseconds: now))
        let verifyBody = Array(#"{"token":"\#(token.serialized)","requestor":"tvekit-speed","resource":"tvekit-resource"}"#.utf8)

        // RSA-1024: a key pair made by OpenSSL directly (TVEKit generates no keys under 2048 bits).
        progress("generating an RSA-1024 key...")
        let rsa1024 = try OpenSSLVerifyBaseline.generatingKeyPair(keySizeInBits: 1024, message: message)

        // The real Adobe token, verified with the recovered key at a time within its lifetime, as raw text and as
        // Base64 (the serialized form); its baseline is the bare verify of its signature with the same key.
        let adobeText = Array(AdobeEvidence.token.utf8)
        let adobeSerialized = Array(Base64.encode(adobeText).utf8)
        let adobeKey = try RSAPublicKey(encodedKeyOrCertificate: Array(AdobeEvidence.keyPEM.utf8), allowing1024BitKeys: true)
        let adobeVerifier = try MediaTokenVerifier(
            trustedKeys: [adobeKey], requestorID: "MML",
            clock: FixedMediaTokenClock(milliseconds: AdobeEvidence.tokenValidAt),
            allowing1024BitKeys: true)
        let adobeBaseline = try AdobeEvidence.baseline()
        let adobeBareVerification = try AdobeEvidence.tvekitBaseline()
        for (form, bytes) in [("raw", adobeText), ("Base64", adobeSerialized)] {
            let outcome = adobeVerifier.verify(bytes, resourceID: "truTV")
            guard outcome.isValid else {
                throw SpeedError.setUp(reason: "the real Adobe token (\(form)) does not verify: \(outcome.result) \(outcome.reason)")
            }
        }

        // A REST v1 document with five encrypted keys (one RSA block each) and two plain ones.
        let plainMetadata = UserMetadata(
            updated: 1_334_243_471,
            values: [
                "zip": .array([.string("12345"), .string("34567")]), "householdID": .string("household-0001"),
                "maxRating": .object([
                    "MPAA": .string("PG-13"), "VCHIP": .string("TV-Y"), "URL": .string("http://exam.pl/e/manage/ratings"),
                ]),
                "userID": .string("user-0001"), "channelID": .array([.string("channel-1"), .string("channel-2")]),
                "tokenSource": .string("Apple"), "hba_status": .bool(false),
            ])
        let metadataDocument = Array(
            try MetadataEncryptor(publicKey: publicKey)
                .encryptDocument(plainMetadata, encrypting: ["zip", "householdID", "maxRating", "userID", "channelID"]).jsonText.utf8)
        let decryptor = MetadataDecryptor(privateKey: key)
        // Signed SAML responses of about 5 KB and 50 KB (the Assertion signed), verified with the key pinned.
        let samlIssued = Date()
        func samlResponse(bytes target: Int) throws -> [UInt8] {
            var builder = SAMLResponseBuilder(
                issuer: "https://idp.mvpd.example/saml", destination: "https://sp.tvekit.example/saml/acs",
                audience: "https://sp.tvekit.example/saml", inResponseTo: "_req-0001",
                nameID: "user-0001@mvpd.example", issueInstant: samlIssued)
            while builder.xml().utf8.count < target - 1_900 {  // the signature adds about 1.9 KB
                let index = builder.attributes.count
                builder.attributes.append(SSOAttribute(name: "attribute-\(index)", values: ["value-\(index)-a", "value-\(index)-b"]))
            }
            return try SAMLSigner(privateKey: key).sign(Array(builder.xml().utf8), targets: .assertion)
        }
        let saml5k = try samlResponse(bytes: 5_000)
        let saml50k = try samlResponse(bytes: 50_000)
        let samlVerifier = try SAMLResponseVerifier(
            configuration: SAMLVerifierConfiguration(
                idpKeys: [publicKey], idpEntityID: "https://idp.mvpd.example/saml", spEntityID: "https://sp.tvekit.example/saml",
                acsURL: "https://sp.tvekit.example/saml/acs", requestID: "_req-0001", clock: { samlIssued.addingTimeInterval(60) }))

        return [
            SpeedOperation(name: "rsa2048-verify", batch: 32, baseline: baseline.verify, openssl: .verify(2048)) {
                publicKey.isValidSignature(signature, for: message)
            },
            SpeedOperation(name: "rsa1024-verify", batch: 64, baseline: rsa1024.baseline.verify, openssl: .verify(1024)) {
                rsa1024.publicKey.isValidSignature(rsa1024.signature, for: message)
            },
            SpeedOperation(name: "rsa2048-sign", batch: 2, baseline: baseline.sign, openssl: .sign(2048)) {
                try key.signature(for: message).count == 256
            },
            SpeedOperation(name: "rsa2048-decrypt-pkcs1", batch: 2, baseline: baseline.decrypt, openssl: .sign(2048)) {
                try key.decrypt(pkcs1Ciphertext, padding: ._weakAndInsecurePKCS1v15).count == 32
            },
            SpeedOperation(name: "rsa2048-decrypt-oaep-sha256", batch: 2, baseline: baseline.decryptOAEP, openssl: .sign(2048)) {
                try key.decrypt(oaepCiphertext, padding: .oaepSHA256).count == 32
            },
            SpeedOperation(name: "base64-decode", batch: 256, baseline: base64Baseline.decode) {
                try serializedToken.withUnsafeBytes { try Base64.decode(buffer: $0, options: .ignoringWhitespace) }.count
                    == token.text.count
            },
            SpeedOperation(name: "token-parse", batch: 256, baseline: base64Baseline.decode, goal: 0.8) {
                try ShortMediaToken(parsing: serializedToken).ttl == MediaTokenIssuer.defaultTTL
            },
            SpeedOperation(name: "token-parse-text", batch: 256, baseline: nil) {
                try ShortMediaToken(parsing: token.text).ttl == MediaTokenIssuer.defaultTTL
            },
            SpeedOperation(name: "token-verify", batch: 32, baseline: tokenBaseline.verifyMessage, openssl: .verify(2048), goal: 0.95) {
                verifier.verify(serializedToken, resourceID: "tvekit-resource").isValid
            },
            SpeedOperation(
                name: "service-verify", batch: 32,
                baseline: { verifier.verify(serializedToken, resourceID: "tvekit-resource").isValid }
            ) {
                verifyBody.withUnsafeBytes { service.verify($0) }.status == 200
            },
            SpeedOperation(
                name: "token-verify-1024", batch: 64, baseline: adobeBaseline.verifyMessage, openssl: .verify(1024), goal: 0.95
            ) {
                adobeVerifier.verify(adobeSerialized, resourceID: "truTV").isValid
            },
            SpeedOperation(name: "token-verify-1024-text", batch: 64, baseline: adobeBaseline.verifyMessage, openssl: .verify(1024)) {
                adobeVerifier.verify(adobeText, resourceID: "truTV").isValid
            },
            // Against TVEKit's own bare verification of the signed bytes: what the decode, the parse and the checks
            // cost, which token-verify-1024's ratio to OpenSSL no longer shows once TVEKit's RSA is the faster.
            SpeedOperation(name: "token-verify-1024-glue", batch: 64, baseline: adobeBareVerification) {
                adobeVerifier.verify(adobeSerialized, resourceID: "truTV").isValid
            },
            SpeedOperation(
                name: "metadata-decrypt", batch: 1,
                baseline: {
                    baseline.decrypt() && baseline.decrypt() && baseline.decrypt() && baseline.decrypt() && baseline.decrypt()
                }, openssl: .sign(2048), opensslOperations: 5
            ) {
                try decryptor.decrypt(jsonText: metadataDocument).values.count == 7
            },
            SpeedOperation(name: "saml-verify-5k", batch: 8, baseline: nil) {
                try samlVerifier.verify(saml5k).nameID == "user-0001@mvpd.example"
            },
            SpeedOperation(name: "saml-verify-50k", batch: 1, baseline: nil) {
                try samlVerifier.verify(saml50k).nameID == "user-0001@mvpd.example"
            },
        ]
    }
}
