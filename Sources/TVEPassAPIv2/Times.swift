import Foundation

extension Components.Schemas.SessionResponse.NotBeforePayload {
    /// Epoch milliseconds, as Adobe writes them in sessions (a string).
    public init(milliseconds: Int64) { self.init(value1: String(milliseconds)) }
    /// The time in epoch milliseconds, from either wire form.
    public var milliseconds: Int64? { value2 ?? value1.flatMap { Int64($0) } }
}

extension Components.Schemas.SessionResponse.NotAfterPayload {
    /// Epoch milliseconds, as Adobe writes them in sessions (a string).
    public init(milliseconds: Int64) { self.init(value1: String(milliseconds)) }
    /// The time in epoch milliseconds, from either wire form.
    public var milliseconds: Int64? { value2 ?? value1.flatMap { Int64($0) } }
}

extension Components.Schemas.SessionStatusResponse.NotBeforePayload {
    /// Epoch milliseconds, as Adobe writes them in sessions (a string).
    public init(milliseconds: Int64) { self.init(value1: String(milliseconds)) }
    /// The time in epoch milliseconds, from either wire form.
    public var milliseconds: Int64? { value2 ?? value1.flatMap { Int64($0) } }
}

extension Components.Schemas.SessionStatusResponse.NotAfterPayload {
    /// Epoch milliseconds, as Adobe writes them in sessions (a string).
    public init(milliseconds: Int64) { self.init(value1: String(milliseconds)) }
    /// The time in epoch milliseconds, from either wire form.
    public var milliseconds: Int64? { value2 ?? value1.flatMap { Int64($0) } }
}
