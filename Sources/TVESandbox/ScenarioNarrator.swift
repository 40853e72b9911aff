/// Who hears a scenario's steps: the app's calls, notes about what happens outside the app, and each callback.
public struct ScenarioNarrator: Sendable {
    public var call: @Sendable (String) -> Void
    public var note: @Sendable (String) -> Void
    public var callback: @Sendable (EntitlementEvent) -> Void

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
