import Foundation
import Testing
import TVECrypto
@testable import TVETokens

@Suite("Signed requestor IDs, clientless signatures and software statements")
struct IdentityTests {
    static let key = TokenFixtures.key

    @Test("a signed requestor ID verifies, unwrapped and wrapped at 76 columns")
    func requestorSignVerify() throws {
        let plain = try SignedRequestorID.sign("nbcentertainment", with: Self.key)
        let wrapped = try SignedRequestorID.sign("nbcentertainment", with: Self.key, wrapped: true)
        #expect(!plain.contains("\n"))
        #expect(wrapped.split(separator: "\n").map(\.count) == [76, 76, 76, 76, 40])
        #expect(wrapped.replacingOccurrences(of: "\n", with: "") == plain)
        for text in [plain, wrapped, wrapped.replacingOccurrences(of: "\n", with: "\r\n")] {
            #expect(try SignedRequestorID.isValid(text, for: "nbcentertainment", publicKey: Self.key.publicKey))
        }
        #expect(try !SignedRequestorID.isValid(plain, for: "nbcentertainmenT", publicKey: Self.key.publicKey))
        #expect(try !SignedRequestorID.isValid(plain, for: "nbcentertainment", publicKey: TokenFixtures.otherKey.publicKey))
    }

    @Test("an empty requestor ID or non-Base64 signature is malformedSignature")
    func requestorMalformed() {
        #expect(tokenError { _ = try SignedRequestorID.sign("", with: Self.key) }?.code == .malformedSignature)
        #expect(
            tokenError { _ = try SignedRequestorID.isValid("@@@", for: "x", publicKey: Self.key.publicKey) }?.code == .malformedSignature)
    }

    static func signer() throws -> ClientlessRequestSigner {
        try ClientlessRequestSigner(
            requestorID: "nbcsports", publicKey: "pk-123", secret: SecureBytes(utf8: "s3cret"),
            clock: FixedMediaTokenClock(milliseconds: 1_700_000_000_000), nonce: { "00000000-0000-4000-8000-000000000000" })
    }

    @Test("the clientless header has the fields of FORMATS.md §4 and verifies with the secret")
    func clientlessSignVerify() throws {
        let header = try Self.signer().authorizationHeader(method: "GET", requestURI: "/api/v1/authorize")
        let message =
            "GET requestor_id=nbcsports, nonce=00000000-0000-4000-8000-000000000000, signature_method=HMAC-SHA1, request_time=1700000000000, request_uri=/api/v1/authorize"
        let mac = try HMAC.authenticationCode(for: Array(message.utf8), key: Array("s3cret".utf8), hash: .sha1)
        #expect(header == message + ", public_key=pk-123, signature=" + Base64.encode(mac))
        let parsed = try ClientlessAuthorization(header: header)
        #expect(parsed.requestTime == 1_700_000_000_000)
        #expect(parsed.requestURI == "/api/v1/authorize")
        #expect(parsed.isValid(secret: SecureBytes(utf8: "s3cret")))
        #expect(!parsed.isValid(secret: SecureBytes(utf8: "s3creT")))
        #expect(!parsed.isValid(secret: SecureBytes(utf8: "")))
        #expect(parsed.isFresh(now: 1_700_000_100_000) && !parsed.isFresh(now: 1_700_000_400_001))
        #expect(tokenError { _ = try Self.signer().authorizationHeader(method: "get", requestURI: "/x") }?.code == .invalidField)
        #expect(tokenError { _ = try Self.signer().authorizationHeader(method: "GET", requestURI: "/x, y") }?.code == .invalidField)
    }

    @Test("rejectsTamperedClientlessHeader: a changed field no longer verifies; malformed headers are refused")
    func rejectsTamperedClientlessHeader() throws {
        let header = try Self.signer().authorizationHeader(method: "POST", requestURI: "/regcode")
        let tampered = header.replacingOccurrences(of: "request_time=1700000000000", with: "request_time=1700000000001")
        #expect(try !ClientlessAuthorization(header: tampered).isValid(secret: SecureBytes(utf8: "s3cret")))
        for bad in [
            header.replacingOccurrences(of: "HMAC-SHA1", with: "HMAC-SHA256"), header.replacingOccurrences(of: "POST", with: "post"),
            header.replacingOccurrences(of: "request_time=1700000000000", with: "request_time=17x"),
            header + ", extra=1", String(header.prefix(40)),
        ] {
            #expect(tokenError { _ = try ClientlessAuthorization(header: bad) }?.code == .malformedHeader, "\(bad)")
        }
    }

    @Test("a software statement verifies; claims are read")
    func softwareStatement() throws {
        let statement = try SoftwareStatement.issue(
            subject: "9f7a0c1e-0000-4000-8000-000000000001", issuedAt: 1_700_000_000, signingKey: Self.key)
        let verified = try SoftwareStatement.verified(compact: statement.compact, publicKey: Self.key.publicKey)
        #expect(verified.subject == "9f7a0c1e-0000-4000-8000-000000000001")
        #expect(verified.issuer == "auth.adobe.com")
        #expect(verified.issuedAt == 1_700_000_000)
        #expect(
            tokenError { _ = try SoftwareStatement.verified(compact: statement.compact, publicKey: TokenFixtures.otherKey.publicKey) }?.code
                == .invalidSignature)
        #expect(verified.isValid(at: 1_700_000_000) && !verified.isValid(at: 1_699_999_999))
    }

    @Test("rejectsAlgNone: an unsigned JWT is refused")
    func rejectsAlgNone() {
        let jwt = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"x"}"#.utf8)) + "."
        #expect(tokenError { _ = try SoftwareStatement(compact: jwt) }?.code == .unsupportedAlgorithm)
    }

    @Test("rejectsAlgorithmConfusion: HS256 keyed with the public key is refused")
    func rejectsAlgorithmConfusion() throws {
        let input =
            Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"x","iss":"auth.adobe.com"}"#.utf8))
        let mac = try HMAC.authenticationCode(for: Array(input.utf8), key: Array(Self.key.publicKey.pemRepresentation.utf8), hash: .sha256)
        let jwt = input + "." + Base64URL.encode(mac)
        #expect(
            tokenError { _ = try SoftwareStatement.verified(compact: jwt, publicKey: Self.key.publicKey) }?.code == .unsupportedAlgorithm)
    }

    @Test("rejectsCriticalExtensions: a correctly signed RS256 statement whose header names \"crit\" is refused")
    func rejectsCriticalExtensions() throws {
        let input =
            Base64URL.encode(Array(#"{"alg":"RS256","crit":["exp"],"exp":1}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"sub":"x","iss":"auth.adobe.com","iat":1}"#.utf8))
        let jwt = input + "." + Base64URL.encode(try Self.key.signature(for: Array(input.utf8)))
        let error = tokenError { _ = try SoftwareStatement.verified(compact: jwt, publicKey: Self.key.publicKey) }
        #expect(error?.code == .unsupportedAlgorithm)
        #expect(error.map { "\($0)".contains("crit") } == true, "the message names the header: \(String(describing: error))")
    }

    @Test("rejectsTamperedClaims: changing a claim breaks the signature")
    func rejectsTamperedClaims() throws {
        let statement = try SoftwareStatement.issue(subject: "a", issuedAt: 1, signingKey: Self.key)
        let parts = statement.compact.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"sub":"b","iss":"auth.adobe.com","iat":1,"nbf":1}"#.utf8)) + "." + parts[2]
        #expect(
            tokenError { _ = try SoftwareStatement.verified(compact: forged, publicKey: Self.key.publicKey) }?.code == .invalidSignature)
        let duplicate = Base64URL.encode(Array(#"{"alg":"RS256","alg":"none"}"#.utf8)) + "." + parts[1] + "." + parts[2]
        #expect(tokenError { _ = try SoftwareStatement(compact: duplicate) }?.code == .malformedStatement)
        for bad in ["a.b", "a.b.c.d", "!!.e30.AA", parts[0] + ".bm90IGpzb24." + parts[2]] {
            #expect(tokenError { _ = try SoftwareStatement(compact: bad) } != nil, "\(bad)")
        }
    }
}
