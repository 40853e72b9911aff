import Foundation
import TVECrypto
import TVETestSupport
import TVETokens

/// The body of the media-token fuzzer (`Fuzz/FuzzMediaToken`), shared with the test suite, which replays the
/// regression inputs in `Fuzz/Regressions/FuzzMediaToken` through it.
///
/// Besides "never crash", it checks invariants on every input and traps when one breaks, so that libFuzzer
/// reports it: the Base64 decoder's vector paths (AVX2, SSSE3) and its scalar path decode the input alike; a token
/// that parses has its signed bytes inside its text; parsing and verifying agree about the format; a parsed token
/// survives serialization and re-parsing unchanged; a forged token is never valid.
public enum MediaTokenFuzzing {
    /// The committed fixture key (fuzzed inputs never carry a valid signature, so any key would do; this one is
    /// deterministic).
    private static let key: RSAPublicKey? = Fixtures.leafKey.publicKey

    private static let verifier: MediaTokenVerifier? = key.flatMap {
        try? MediaTokenVerifier(
            trustedKeys: [$0], requestorID: "tvekit-fuzz", clockSkew: .seconds(60),
            clock: FixedMediaTokenClock(milliseconds: 1_767_225_600_000), replayGuard: InMemoryTokenReplayGuard(capacity: 1024))
    }

    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ data: UnsafeRawBufferPointer) {
        // The Base64 decoder's vector paths (AVX2, SSSE3) and its scalar paths give the same bytes or the same error.
        let decodings = [2, 1, 0].map { level -> Result<[UInt8], TVECryptoError> in
            do {
                return .success(try Base64.decode(buffer: data, options: .ignoringWhitespace, vectorLevel: level))
            } catch let error as TVECryptoError {
                return .failure(error)
            } catch {
                return .failure(TVECryptoError.invalidBase64())
            }
        }
        check(decodings.allSatisfy { $0 == decodings[0] }, "the vector and scalar Base64 paths disagree")
        let parsed = try? ShortMediaToken(parsing: data)
        if let verifier {
            let outcome = verifier.verify(data, resourceID: "r")
            check((parsed == nil) == (outcome.result == .invalidTokenFormat), "parse and verify disagree about the format")
            check(outcome.result != .validToken, "a fuzzed token verified")
            check(outcome.token == nil || outcome.isValid, "fields returned for an invalid token")
        }
        guard let token = parsed else { return }
        check(token.signedRange.lowerBound >= 0 && token.signedRange.upperBound == token.text.count, "signed range out of place")
        check(
            token.signedBytes.starts(with: Array("<\(token.form.root.rawValue)>".utf8))
                && token.signedBytes.reversed().starts(with: Array("</\(token.form.root.rawValue)>".utf8).reversed()),
            "signed bytes are not the root element")
        check(token.ttl >= 0 && token.issueTime >= 0, "negative integer accepted")
        if case .dateTime = token.form.issueTimeEncoding {
            check(token.issueTime % 1000 == 0 && token.issueTimeText.utf8.count == 25, "dated issueTime out of shape")
            // The writer gives back the same text for the parsed instant and offset (a zero offset is written `+0000`;
            // `-0000` is read as the same offset).
            let sent = token.issueTimeText.hasSuffix(" -0000") ? String(token.issueTimeText.dropLast(5)) + "+0000" : token.issueTimeText
            check(
                (try? MediaTokenWriter.issueTimeText(token.issueTime, token.form.issueTimeEncoding)) == sent,
                "dated issueTime does not round-trip")
        } else {
            check(Int64(token.issueTimeText) == token.issueTime, "epoch issueTime does not round-trip")
        }
        // The resource comparison never traps and a value always matches itself.
        check(MRSSResource.resource(token.resourceID, matches: token.resourceID), "a resource does not match itself")
        _ = MRSSResource.resource(token.resourceID, matches: "r")
        for field in [token.sessionGUID, token.requestorID, token.resourceID, token.mvpdId] {
            check(!field.isEmpty && field.utf8.count <= ShortMediaToken.maximumFieldBytes, "field size rule broken")
        }
        // Round trips: the serialized form and the raw text parse to the same token.
        let again = try? ShortMediaToken(parsing: token.serialized)
        check(again == token, "serialized form does not parse back to the same token")
        let raw = try? ShortMediaToken(parsing: token.text)
        check(raw == token, "token text does not parse back to the same token")
    }

    @inline(__always)
    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            // Reached only when the parser itself is wrong; the fuzzer needs a crash to report it.
            preconditionFailure("MediaTokenFuzzing invariant broken: \(message())")
        }
    }
}
