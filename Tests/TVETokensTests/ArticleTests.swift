import Foundation
import Testing
import TVECrypto
import TVETestSupport
import TVETokens

/// The code of the TVETokens articles `VerifyingMediaTokens.md` and `SigningRequestorIDs.md`, line for line
/// (`scripts/check-snippets.py` holds them to it). The committed fixtures stand in for Adobe's signing certificate,
/// the programmer's PKCS#12 file and the secrets; tokens are issued with the fixture key, then verified.
@Suite("Articles: verifying media tokens, signing requestor IDs")
struct ArticleTests {
    /// Adobe's signing certificate, in the articles: the fixture certificate of the key that issues the test tokens.
    static func certificate() throws -> [UInt8] { try Fixtures.bytes("TestVectors/fixtures/leaf.cert.pem") }

    /// Issues a token for `my-requestor` with the fixture key (the system clock's now, unless `issueTime` is given).
    static func issue(
        requestorID: String = "my-requestor", resourceID: String = "my-channel", sessionGUID: String = "session-1",
        issueTime: Int64? = nil, key: RSAPrivateKey = Fixtures.leafKey
    ) throws -> ShortMediaToken {
        try MediaTokenIssuer(privateKey: key).issue(
            requestorID: requestorID, resourceID: resourceID, mvpdId: "my-mvpd", sessionGUID: sessionGUID, issueTime: issueTime)
    }

    // MARK: Verifying a media token

    @Test("configure one verifier, verify before playback: each token gets its result")
    func verifyBeforePlayback() throws {
        let certificateBytes = try Self.certificate()

        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: certificateBytes)
        let verifier = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")

        var sessions: [String] = []
        var refusals: [String] = []
        func allowPlayback(session: String) { sessions.append(session) }
        func denyPlayback(_ code: String, reason: String) {
            #expect(!reason.isEmpty)
            refusals.append(code)
        }
        let now = SystemMediaTokenClock().nowMilliseconds
        let tokens = [
            try Self.issue().serialized,
            "not a token",
            try Self.issue(key: Fixtures.otherKey).serialized,
            try Self.issue(requestorID: "other-requestor").serialized,
            try Self.issue(resourceID: "other-channel").serialized,
            try Self.issue(issueTime: now + 60_000).serialized,
            try Self.issue(issueTime: now - 600_000).serialized,
        ]
        for serializedToken in tokens {
            let outcome = verifier.verify(serializedToken, resourceID: "my-channel")
            if let token = outcome.token {
                allowPlayback(session: token.userSessionGUID)
            } else {
                denyPlayback(outcome.result.rawValue, reason: outcome.reason)
            }
        }
        #expect(sessions == ["session-1"])
        #expect(
            refusals == [
                "INVALID_TOKEN_FORMAT", "INVALID_SIGNATURE", "INVALID_REQUESTOR_ID", "INVALID_RESOURCE_ID", "TOKEN_NOT_YET_VALID",
                "TOKEN_EXPIRED",
            ])
        // No resource skips that check; the raw token text verifies as its Base64 does.
        let token = try Self.issue(resourceID: "other-channel")
        #expect(verifier.verify(token.serialized).isValid)
        #expect(verifier.verify(String(decoding: token.text, as: UTF8.self), resourceID: "other-channel").isValid)
    }

    @Test("a verified token carries the Java getters' fields")
    func verifiedFields() throws {
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let verifier = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")
        let issued = try Self.issue()
        let token = try #require(verifier.verify(issued.serialized, resourceID: "my-channel").token)
        #expect(token.requestorID == "my-requestor")
        #expect(token.resourceID == "my-channel")
        #expect(token.mvpdId == "my-mvpd")
        #expect(token.proxyMvpdId == nil)
        #expect(token.timeToLive == MediaTokenIssuer.defaultTTL)
        #expect(token.timeIssued == issued.issueTime)
        #expect(token.issueTimeText.hasSuffix(" +0000"))
    }

    @Test("one-time use: the in-memory guard accepts a token once")
    func oneTimeUse() throws {
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let issued = try Self.issue()
        let serializedToken = issued.serialized

        let verifier = try MediaTokenVerifier(
            trustedKeys: keys, requestorID: "my-requestor", replayGuard: InMemoryTokenReplayGuard())
        let first = verifier.verify(serializedToken, resourceID: "my-channel")  // VALID_TOKEN
        let second = verifier.verify(serializedToken, resourceID: "my-channel")  // TOKEN_REPLAYED

        #expect(first.result == .validToken)
        #expect(second.result == .tokenReplayed)
        // The key is the signed bytes: the raw text of the same token is a replay too.
        #expect(verifier.verify(String(decoding: issued.text, as: UTF8.self)).result == .tokenReplayed)

        // A token that fails a check is not recorded.
        let other = try Self.issue(sessionGUID: "session-2").serialized
        #expect(verifier.verify(other, resourceID: "other-channel").result == .invalidResourceID)
        #expect(verifier.verify(other, resourceID: "my-channel").result == .validToken)

        // A full guard fails closed.
        let small = try MediaTokenVerifier(
            trustedKeys: keys, requestorID: "my-requestor", replayGuard: InMemoryTokenReplayGuard(capacity: 1))
        #expect(small.verify(serializedToken).result == .validToken)
        #expect(small.verify(other).result == .tokenReplayed)
    }

    @Test("clock skew widens the validity window at both ends")
    func clockSkew() throws {
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let strict = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")
        let now = SystemMediaTokenClock().nowMilliseconds
        let early = try Self.issue(issueTime: now + 20_000).serialized
        let late = try Self.issue(issueTime: now - MediaTokenIssuer.defaultTTL - 10_000).serialized

        let tolerant = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor", clockSkew: .seconds(30))

        #expect(strict.verify(early).result == .tokenNotYetValid)
        #expect(strict.verify(late).result == .tokenExpired)
        #expect(tolerant.verify(early).result == .validToken)
        #expect(tolerant.verify(late).result == .validToken)
        #expect(tolerant.clockSkewMilliseconds == 30_000)
        let error = #expect(throws: MediaTokenError.self) {
            try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor", clockSkew: .seconds(86_401))
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("Adobe's RSA-1024 key of 2015-2017 is trusted only with the opt-in, on the key and on the verifier")
    func adobe2017Key() throws {
        let adobeKeyBytes = try Fixtures.bytes("TestVectors/media-token/real/adobe-2015-2017-public-key.pem")
        let realToken = try Fixtures.text("TestVectors/media-token/real/token-A.txt")

        let adobe2017 = try RSAPublicKey(encodedKeyOrCertificate: adobeKeyBytes, allowing1024BitKeys: true)
        let legacy = try MediaTokenVerifier(
            trustedKeys: [adobe2017], requestorID: "MML",
            clock: FixedMediaTokenClock(milliseconds: 1_489_621_306_000),  // 2017-03-15, within the token's 7 minutes
            allowing1024BitKeys: true)
        let outcome = legacy.verify(realToken, resourceID: "truTV")

        #expect(outcome.result == .validToken)
        #expect(outcome.token?.issueTimeText == "2017-03-15 16:40:46 -0700")
        #expect(outcome.token?.timeIssued == 1_489_621_246_000)
        #expect(outcome.token?.mvpdId == "TWC")
        #expect(adobe2017.keySizeInBits == 1024)

        let keyError = #expect(throws: TVECryptoError.self) { try RSAPublicKey(encodedKeyOrCertificate: adobeKeyBytes) }
        #expect(keyError?.code == .keyTooSmall)
        let verifierError = #expect(throws: MediaTokenError.self) {
            try MediaTokenVerifier(trustedKeys: [adobe2017], requestorID: "MML")
        }
        #expect(verifierError?.code == .invalidConfiguration)
        // Today the token is long expired.
        let today = try MediaTokenVerifier(trustedKeys: [adobe2017], requestorID: "MML", allowing1024BitKeys: true)
        #expect(today.verify(realToken, resourceID: "truTV").result == .tokenExpired)
    }

    @Test("MRSS resources: an item of a channel plays on a request for the channel, not the other way round")
    func mrssResources() throws {
        let episode = #"<rss version="2.0"><channel><title>TNT</title><item><title>Episode 1</title></item></channel></rss>"#
        let forChannel = MRSSResource.resource(episode, matches: "TNT")  // true: an item of the channel plays on a request for it
        let forEpisode = MRSSResource.resource("TNT", matches: episode)  // false: a channel token does not name the episode
        let channel = try MRSSResource(parsing: episode).channelTitle  // "TNT"

        #expect(forChannel)
        #expect(!forEpisode)
        #expect(channel == "TNT")
        #expect(MRSSResource.resource("TNT", matches: #"<rss version="2.0"><channel><title>TNT</title></channel></rss>"#))
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let verifier = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")
        let episodeToken = try Self.issue(resourceID: episode).serialized
        let channelToken = try Self.issue(resourceID: "TNT").serialized
        #expect(verifier.verify(episodeToken, resourceID: "TNT").isValid)
        #expect(verifier.verify(channelToken, resourceID: episode).result == .invalidResourceID)
    }

    /// A replay store that cannot answer (a database that is down).
    struct UnavailableStore: AsyncTokenReplayGuard {
        func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) async -> ReplayDecision {
            .unavailable(reason: "the database does not answer")
        }
    }

    @Test("a fleet: one-time use in an asynchronous store, failing closed")
    func fleet() async throws {
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let verifier = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")
        let serializedToken = try Self.issue().serialized

        let store: any AsyncTokenReplayGuard = AsyncReplayGuardAdapter(InMemoryTokenReplayGuard())
        let outcome = await verifier.verify(serializedToken, resourceID: "my-channel", replayGuard: store)

        #expect(outcome.result == .validToken)
        #expect(await verifier.verify(serializedToken, resourceID: "my-channel", replayGuard: store).result == .tokenReplayed)
        let another = try Self.issue(sessionGUID: "session-2").serialized
        let down = await verifier.verify(another, replayGuard: UnavailableStore())
        #expect(down.result == .replayCheckFailed)
        #expect(down.token == nil)
    }

    @Test("a fleet: every check but one-time use, then the store's decision")
    func fleetAwaitingReplayCheck() async throws {
        let keys = try RSAPublicKey.keys(encodedKeysOrCertificates: Self.certificate())
        let verifier = try MediaTokenVerifier(trustedKeys: keys, requestorID: "my-requestor")
        let store: any AsyncTokenReplayGuard = AsyncReplayGuardAdapter(InMemoryTokenReplayGuard())
        let tokens = [try Self.issue(resourceID: "other-channel").serialized, try Self.issue().serialized]
        var results: [MediaTokenVerification.Result] = []
        for serializedToken in tokens {
            let outcome: MediaTokenVerification
            switch verifier.verifyAwaitingReplayCheck(serializedToken, resourceID: "my-channel") {
            case .decided(let verification):
                outcome = verification  // failed an earlier check: the store is not asked
            case .awaitingReplayCheck(let check):
                if let key = check.key {
                    outcome = check.complete(with: await store.recordFirstUse(of: key, expiresAt: check.expiresAt, now: check.now))
                } else {
                    outcome = check.complete(with: .unavailable(reason: "the token's replay key cannot be computed"))
                }
            }
            results.append(outcome.result)
        }
        #expect(results == [.invalidResourceID, .validToken])
    }

    // MARK: The media token wire form

    @Test("issue tokens in the real and the documented form; parse one without verifying it")
    func issueAndParse() throws {
        let signingKey = Fixtures.leafKey

        let issuer = MediaTokenIssuer(privateKey: signingKey)  // the real form, issueTime at +0000
        let pacific = MediaTokenIssuer(privateKey: signingKey, form: .adobe(utcOffsetMinutes: -420))  // issueTime at -0700
        let documented = MediaTokenIssuer(privateKey: signingKey, form: .documented)  // the form of Adobe's documentation
        let token = try issuer.issue(requestorID: "my-requestor", resourceID: "my-channel", mvpdId: "my-mvpd")
        let serializedToken = token.serialized  // Base64: what REST APIs carry in serializedToken

        let parsed = try ShortMediaToken(parsing: serializedToken)  // UNVERIFIED: parse only
        let root = parsed.form.root  // .authToken or .shortAuthorizationToken

        #expect(root == .authToken)
        #expect(parsed.form == .adobe)
        #expect(parsed.issueTimeText.hasSuffix(" +0000"))
        #expect(parsed.issueTime % 1000 == 0)
        #expect(parsed.proxyMvpdId == nil)
        let pacificToken = try pacific.issue(requestorID: "my-requestor", resourceID: "my-channel", mvpdId: "my-mvpd")
        #expect(pacificToken.issueTimeText.hasSuffix(" -0700"))
        let documentedToken = try documented.issue(requestorID: "my-requestor", resourceID: "my-channel", mvpdId: "my-mvpd")
        #expect(try ShortMediaToken(parsing: documentedToken.serialized).form == .documented)
        #expect(try ShortMediaToken(parsing: documentedToken.serialized).form.root == .shortAuthorizationToken)
        let text = String(decoding: token.text, as: UTF8.self)
        #expect(text.hasPrefix("<signatureInfo>") && text.contains("<signatureInfo><authToken>"))
    }

    // MARK: Signing a requestor ID

    @Test("sign a requestor ID with the PKCS#12 key; verify it with the certificate")
    func signedRequestorID() throws {
        let p12Bytes = try Fixtures.bytes("TestVectors/fixtures/modern.p12")
        let password = Fixtures.pkcs12Password
        let certificateBytes = try Fixtures.bytes("TestVectors/fixtures/leaf.cert.pem")

        let bundle = try PKCS12Bundle(derRepresentation: p12Bytes, password: password)
        let signed = try SignedRequestorID.sign("my-requestor", with: bundle)

        let programmerKey = try RSAPublicKey(encodedKeyOrCertificate: certificateBytes)
        let valid = try SignedRequestorID.isValid(signed, for: "my-requestor", publicKey: programmerKey)

        #expect(valid)
        #expect(!signed.contains("\n"))
        #expect(try SignedRequestorID.isValid(signed, for: "my-requestor", certificate: bundle.certificate))
        #expect(try !SignedRequestorID.isValid(signed, for: "other-requestor", publicKey: programmerKey))
        #expect(try !SignedRequestorID.isValid(signed, for: "my-requestor", publicKey: Fixtures.otherKey.publicKey))
        let wrapped = try SignedRequestorID.sign("my-requestor", with: bundle, wrapped: true)
        #expect(wrapped.split(separator: "\n").allSatisfy { $0.count <= 76 } && wrapped.contains("\n"))
        #expect(try SignedRequestorID.isValid(wrapped, for: "my-requestor", publicKey: programmerKey))
        let error = #expect(throws: MediaTokenError.self) {
            try SignedRequestorID.isValid("@@@", for: "my-requestor", publicKey: programmerKey)
        }
        #expect(error?.code == .malformedSignature)
    }

    @Test("the clientless header: the client signs, the service checks")
    func clientlessHeader() throws {
        let secret = "my-secret"

        let signer = try ClientlessRequestSigner(
            requestorID: "my-requestor", publicKey: "my-public-key", secret: SecureBytes(utf8: secret))
        let header = try signer.authorizationHeader(method: "POST", requestURI: "/api/v1/authorize")

        let authorization = try ClientlessAuthorization(header: header)
        let now = SystemMediaTokenClock().nowMilliseconds
        let accepted =
            authorization.requestorID == "my-requestor" && authorization.method == "POST"
            && authorization.isFresh(now: now) && authorization.isValid(secret: SecureBytes(utf8: secret), publicKey: "my-public-key")

        #expect(accepted)
        #expect(header.hasPrefix("POST requestor_id=my-requestor, nonce="))
        #expect(header.contains(", signature_method=HMAC-SHA1, request_time="))
        #expect(header.contains(", request_uri=/api/v1/authorize, public_key=my-public-key, signature="))
        let next = try ClientlessAuthorization(header: signer.authorizationHeader(method: "POST", requestURI: "/x"))
        #expect(next.nonce != authorization.nonce, "a fresh nonce for every request")
        #expect(!authorization.isValid(secret: SecureBytes(utf8: "other-secret")))
        #expect(!authorization.isValid(secret: SecureBytes(utf8: secret), publicKey: "other-public-key"))
        #expect(!authorization.isFresh(now: now + 600_000))
        let tampered = header.replacingOccurrences(of: "request_uri=/api/v1/authorize", with: "request_uri=/api/v1/preauthorize")
        #expect(try !ClientlessAuthorization(header: tampered).isValid(secret: SecureBytes(utf8: secret)))
        let error = #expect(throws: MediaTokenError.self) { try ClientlessAuthorization(header: "Bearer abc") }
        #expect(error?.code == .malformedHeader)
    }

    @Test("a software statement: RS256 verified, claims read")
    func softwareStatement() throws {
        let jwt = try SoftwareStatement.issue(
            subject: "9f7a0c1e-0000-4000-8000-000000000001", issuedAt: 1_700_000_000, signingKey: Fixtures.leafKey
        ).compact
        let statementKey = Fixtures.leafKey.publicKey

        let statement = try SoftwareStatement.verified(compact: jwt, publicKey: statementKey)
        let softwareID = statement.subject  // the statement's identifier, a UUID

        #expect(softwareID == "9f7a0c1e-0000-4000-8000-000000000001")
        #expect(statement.issuer == "auth.adobe.com")
        #expect(statement.algorithm == "RS256")
        #expect(statement.isValid(at: 1_700_000_000))
        let forged = #expect(throws: MediaTokenError.self) {
            try SoftwareStatement.verified(compact: jwt, publicKey: Fixtures.otherKey.publicKey)
        }
        #expect(forged?.code == .invalidSignature)
        let unsigned =
            Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"x"}"#.utf8)) + "."
        let refused = #expect(throws: MediaTokenError.self) { try SoftwareStatement(compact: unsigned) }
        #expect(refused?.code == .unsupportedAlgorithm)
    }
}
