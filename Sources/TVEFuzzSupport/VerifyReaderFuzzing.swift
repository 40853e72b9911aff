import Foundation
import TVECrypto
import TVEJSON
import TVETestSupport
import TVETokens
import TVEVerification

/// The body of the `/verify` request-reader fuzzer (`Fuzz/FuzzVerifyReader`), shared with the test suite, which
/// replays its corpus and regressions.
///
/// Invariants, checked on every input: when the one-pass reader accepts a body, it reads exactly what the strict
/// reader (TVEJSON's parser) reads, item for item; the service's answer is JSON (one document, or one per line for JSON
/// lines), with a status the service documents; a fuzzed token is never valid.
public enum VerifyReaderFuzzing {
    private static let service: VerificationService? = try? VerificationService(
        trustedKeys: [Fixtures.leafKey.publicKey], requestorIDs: ["tvekit-fuzz", "other"],
        clock: FixedMediaTokenClock(milliseconds: 1_767_225_600_000),
        replayGuard: InMemoryTokenReplayGuard(capacity: 1024))

    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ data: UnsafeRawBufferPointer) {
        for maximum in [VerificationService.maximumBatchCount, 2] {
            let (fast, strict) = VerificationRequestReading.readings(data, maximumItems: maximum)
            if let fast { check(fast == strict, "the one-pass reader read \(fast) where the strict reader read \(strict)") }
        }
        guard let service else { return }
        let answer = service.verify(data)
        check([200, 400, 413, 503].contains(answer.status), "undocumented status \(answer.status)")
        check(answer.result != MediaTokenVerification.Result.validToken.rawValue, "a fuzzed token verified")
        let documents: [String] =
            answer.contentType == "application/x-ndjson" ? answer.body.split(separator: "\n").map(String.init) : [answer.body]
        for document in documents {
            var copy = document
            let parsed = copy.withUTF8 { try? JSONValue.parse(UnsafeRawBufferPointer($0)) }
            check(parsed != nil, "the answer is not JSON: \(document.prefix(200))")
        }
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { preconditionFailure("FuzzVerifyReader invariant broken: \(message())") }
    }
}
