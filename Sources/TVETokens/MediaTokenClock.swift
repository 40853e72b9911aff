import Foundation

/// Where the verifier and the issuer read the time, in milliseconds since the Unix epoch. Inject a
/// ``FixedMediaTokenClock`` in tests.
public protocol MediaTokenClock: Sendable {
    /// The current time in milliseconds since the Unix epoch.
    var nowMilliseconds: Int64 { get }
}

/// The system's wall clock.
public struct SystemMediaTokenClock: MediaTokenClock {
    public init() {}
    public var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// A clock that always says the same time.
public struct FixedMediaTokenClock: MediaTokenClock {
    public let nowMilliseconds: Int64
    public init(milliseconds: Int64) { nowMilliseconds = milliseconds }
}
