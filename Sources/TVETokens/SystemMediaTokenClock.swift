import Foundation

/// The system's wall clock.
public struct SystemMediaTokenClock: MediaTokenClock {
    /// A clock that reads the system time (`Date()`) each time ``MediaTokenClock/nowMilliseconds`` is read, rounded down
    /// to the millisecond.
    public init() {}
    public var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
