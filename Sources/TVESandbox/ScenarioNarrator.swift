/// Who hears a scenario's steps: the app's calls, notes about what happens outside the app, and each callback.
public struct ScenarioNarrator: Sendable {
    /// Hears each call the app makes, as a transcript shows it (`getAuthentication()`).
    public var call: @Sendable (String) -> Void
    /// Hears what happens outside the app: the user, the web view, the player's back end checking a token.
    public var note: @Sendable (String) -> Void
    /// Hears each delegate callback, tracking data excepted, on the thread the callback arrives on.
    public var callback: @Sendable (EntitlementEvent) -> Void

    /// A narrator that hands each kind of step to its closure.
    public init(
        call: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void,
        callback: @escaping @Sendable (EntitlementEvent) -> Void
    ) {
        self.call = call
        self.note = note
        self.callback = callback
    }

    /// Hears nothing.
    public static let silent = ScenarioNarrator(call: { _ in }, note: { _ in }, callback: { _ in })
}
