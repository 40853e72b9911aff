import Foundation
import Testing

@testable import TVEAccessEnabler

/// Adobe's rule for a 429 (``Throttling``): at least one second, at least `Retry-After`, doubling, three retries.
@Suite("Throttling: waiting out a 429 as Adobe asks")
struct ThrottlingTests {
    static let now: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    @Test(
        "Retry-After in both forms; an unreadable one is ignored, a huge one capped",
        arguments: [
            ("1", Duration.seconds(1)), (" 7 ", .seconds(7)), ("Thu, 01 Jan 2026 00:00:05 GMT", .seconds(5)),
            ("99999999999", Throttling.longestWait),
        ] as [(String, Duration)]
    )
    func retryAfterIsRead(_ value: String, _ expected: Duration) {
        #expect(Throttling.parse(value, now: Self.now) == expected)
    }

    @Test("an unreadable Retry-After is ignored", arguments: ["", "-1", "soon", "1.5", String(repeating: "9", count: 100)])
    func unreadableRetryAfterIsIgnored(_ value: String) {
        #expect(Throttling.parse(value, now: Self.now) == nil)
    }

    @Test("the waits: at least 1 s, at least Retry-After, doubling, at most 60 s; none after the third retry")
    func waitsDoubleAndStop() {
        var throttling = Throttling()
        #expect(throttling.wait(retryAfter: nil, now: Self.now) == .seconds(1))
        #expect(throttling.wait(retryAfter: "0", now: Self.now) == .seconds(2))
        #expect(throttling.wait(retryAfter: "3600", now: Self.now) == .seconds(60))
        #expect(throttling.wait(retryAfter: nil, now: Self.now) == nil)
        let error = throttling.error("profiles", enhancedCode: "too_many_requests")
        #expect(error.code == .throttled && error.httpStatus == 429 && error.enhancedCode == "too_many_requests")
        #expect(error.message == "the service provider throttled profiles (HTTP 429 4 times in 63 s)")
    }
}
