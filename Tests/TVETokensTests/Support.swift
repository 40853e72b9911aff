import Foundation
import TVECrypto
import TVETestSupport
@testable import TVETokens

enum TokenFixtures {
    static func bytes(_ relativePath: String) throws -> [UInt8] { try Fixtures.bytes(relativePath) }

    /// The committed leaf key and certificate of TestVectors/fixtures.
    static let key = Fixtures.leafKey
    static let otherKey = Fixtures.otherKey

    static let now: Int64 = 1_767_225_600_000
    static let issuer = MediaTokenIssuer(privateKey: key, clock: FixedMediaTokenClock(milliseconds: now))

    static func token(
        requestor: String = "tvekit-test", resource: String = "tvekit-resource", mvpd: String = "TestMVPD",
        proxy: String? = nil, ttl: Int64 = 420_000, issueTime: Int64? = nil,
        form: ShortMediaToken.Form = .adobe
    ) throws -> ShortMediaToken {
        try MediaTokenIssuer(privateKey: key, clock: FixedMediaTokenClock(milliseconds: now), form: form).issue(
            requestorID: requestor, resourceID: resource, mvpdId: mvpd, sessionGUID: "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
            proxyMvpdId: proxy, ttl: ttl, issueTime: issueTime ?? now - 100_000)
    }

    static func verifier(
        now: Int64 = TokenFixtures.now, skewSeconds: Int64 = 0, replayGuard: (any TokenReplayGuard)? = nil,
        keys: [RSAPublicKey] = [key.publicKey]
    ) throws -> MediaTokenVerifier {
        try MediaTokenVerifier(
            trustedKeys: keys, requestorID: "tvekit-test", clockSkew: .seconds(skewSeconds),
            clock: FixedMediaTokenClock(milliseconds: now), replayGuard: replayGuard)
    }
}

func tokenError(_ body: () throws -> Void) -> MediaTokenError? {
    do {
        try body()
        return nil
    } catch {
        return error as? MediaTokenError
    }
}
