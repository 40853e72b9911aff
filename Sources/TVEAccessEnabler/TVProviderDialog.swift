import Foundation

/// An opaque handle on the platform's provider picker, which the app presents and dismisses
/// (`presentTvProviderDialog` / `dismissTvProviderDialog`; a `UIViewController` on Apple platforms).
public struct TVProviderDialog: Sendable, Hashable {
    public let id: UUID
    /// What the app shows (on Apple platforms, the view controller the framework hands over).
    public let payload: String

    public init(id: UUID = UUID(), payload: String) {
        self.id = id
        self.payload = payload
    }
}
