import Foundation

/// A clock that always says the same time.
public struct FixedMediaTokenClock: MediaTokenClock {
    public let nowMilliseconds: Int64
    public init(milliseconds: Int64) { nowMilliseconds = milliseconds }
}
