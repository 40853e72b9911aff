import Foundation

/// An opaque handle on the platform's provider picker, which the app presents and dismisses
/// (`presentTvProviderDialog` / `dismissTvProviderDialog`; a `UIViewController` on Apple platforms).
public struct TVProviderDialog: Sendable, Hashable {
    /// Tells one picker from another (a new UUID by default).
    public let id: UUID
    /// What the app shows (on Apple platforms, the view controller the framework hands over).
    public let payload: String

    /// A handle on a picker that shows `payload`.
    public init(id: UUID = UUID(), payload: String) {
        self.id = id
        self.payload = payload
    }
}
