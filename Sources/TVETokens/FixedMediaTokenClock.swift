import Foundation

/// A clock that always says the same time.
public struct FixedMediaTokenClock: MediaTokenClock {
    public let nowMilliseconds: Int64
    /// A clock whose time is always `milliseconds` since the Unix epoch.
    public init(milliseconds: Int64) { nowMilliseconds = milliseconds }
}
