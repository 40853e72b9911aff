import Foundation

/// The system's wall clock.
public struct SystemMediaTokenClock: MediaTokenClock {
    public init() {}
    public var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
