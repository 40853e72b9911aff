import Foundation

/// Where the verifier and the issuer read the time, in milliseconds since the Unix epoch. Inject a
/// ``FixedMediaTokenClock`` in tests.
public protocol MediaTokenClock: Sendable {
    /// The current time in milliseconds since the Unix epoch.
    var nowMilliseconds: Int64 { get }
}
