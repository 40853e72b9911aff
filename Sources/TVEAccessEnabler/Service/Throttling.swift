import Foundation

/// Adobe's rule for a throttled call (HTTP 429), kept by both REST APIs and client registration: wait at least one
/// second, and at least what `Retry-After` asks, then ask again; the wait doubles with each 429, and after
/// ``maximumRetries`` retries the call fails with ``AccessEnablerError/Code/throttled`` (`CFG429`).
///
/// **Choice:** `Retry-After` is read in both of its forms (seconds, or an HTTP date against the flow layer's clock) and
/// honoured up to ``longestWait``; a longer or unreadable one is taken as ``longestWait`` or ignored.
struct Throttling: Sendable {
    /// Retries after a 429 before the call fails.
    static let maximumRetries = 3
    /// The longest one wait; a service provider that asks more is waited this long.
    static let longestWait = Duration.seconds(60)

    /// The 429 answers seen so far.
    private(set) var throttles = 0
    /// The wait so far, for the error's message.
    private(set) var waited = Duration.zero
    private var next = Duration.seconds(1)

    /// The wait before asking again after a 429 whose `Retry-After` is `retryAfter` (nil when it has none), at `now`
    /// (milliseconds); nil when the retries are spent or the task is cancelled.
    mutating func wait(retryAfter: String?, now: Int64) -> Duration? {
        throttles += 1
        guard throttles <= Self.maximumRetries, !Task.isCancelled else { return nil }
        let asked = retryAfter.flatMap { Self.parse($0, now: now) }
        let wait = min(max(asked ?? next, next), Self.longestWait)
        next = min(next * 2, Self.longestWait)
        waited += wait
        return wait
    }

    /// A `Retry-After` value (RFC 9110 §10.2.3): delay seconds, or an HTTP date (IMF-fixdate) less `now`.
    static func parse(_ value: String, now: Int64) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return text.utf8.count > 9 ? longestWait : Int64(text).map { .seconds($0) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) - now
        return .milliseconds(max(0, min(milliseconds, 3_600_000)))
    }

    /// The error of a call whose 429 answers outlasted the retries.
    func error(_ what: String, enhancedCode: String? = nil) -> AccessEnablerError {
        let seconds = waited.components.seconds
        return AccessEnablerError(
            .throttled,
            "the service provider throttled \(what) (HTTP 429 \(throttles) times in \(seconds) s)",
            httpStatus: 429, enhancedCode: enhancedCode.map { String($0.prefix(100)) },
            advancedStatus: AccessEnablerError.Code.throttled.rawValue)
    }
}
