import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto
import TVEJSON

/// An app's delegate that records every callback, in order, and lets a test or a scenario wait for one: event-driven
/// (a waiter sleeps until a callback arrives or its deadline passes), never polling. `tvekit demo` and the tests share
/// it.
public final class RecordingDelegate: EntitlementDelegate, EntitlementStatus, Sendable {
    /// The events; the ``next(_:timeout:_:)`` cursor; the waits sleeping until the next event or their deadline.
    private struct State {
        var events: [EntitlementEvent] = []
        var consumed = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var expired: Set<Int> = []
        var nextWaiter = 0
    }
    private let state = Locked(State())
    private let onEvent: (@Sendable (EntitlementEvent) -> Void)?

    /// - Parameter onEvent: called with each event as it is recorded (a transcript printer), on the callback's thread.
    public init(onEvent: (@Sendable (EntitlementEvent) -> Void)? = nil) {
        self.onEvent = onEvent
    }

    /// Every event so far.
    public var all: [EntitlementEvent] { state.withLock { $0.events } }
    /// The events without tracking data.
    public var flow: [EntitlementEvent] { all.filter { if case .tracking = $0 { false } else { true } } }
    /// Forgets the events so far.
    public func reset() {
        state.withLock {
            $0.events = []
            $0.consumed = 0
        }
    }

    private func add(_ event: EntitlementEvent) {
        onEvent?(event)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits (up to `timeout`) for any recorded event that matches, and returns it; nil when none came in time.
    public func wait(for match: @escaping @Sendable (EntitlementEvent) -> Bool, timeout: Duration = .seconds(10)) async -> EntitlementEvent?
    {
        await waitUntil(timeout: timeout) { state in state.events.first(where: match) }
    }

    /// Waits (up to `timeout`) for the next event after the last one `next` returned that `match` accepts, consumes it
    /// and the events before it, and returns what `match` made of it: a scenario waits for one thing at a time.
    /// - Throws: ``SandboxError`` `.callbackMissing` when none came in time; `what` names the callback.
    public func next<T: Sendable>(
        _ what: String, timeout: Duration = .seconds(30), _ match: @escaping @Sendable (EntitlementEvent) -> T?
    ) async throws(SandboxError) -> T {
        let found = await waitUntil(timeout: timeout) { state -> T? in
            for index in state.consumed..<state.events.count {
                if let value = match(state.events[index]) {
                    state.consumed = index + 1
                    return value
                }
            }
            return nil
        }
        guard let found else { throw SandboxError(.callbackMissing, "no \(what) callback arrived within \(timeout)") }
        return found
    }

    /// Runs `find` under the lock after each event until it gives a value or the deadline passes.
    private func waitUntil<T: Sendable>(timeout: Duration, _ find: @escaping @Sendable (inout State) -> T?) async -> T? {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [state] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.expired.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume()
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        while true {
            let (found, seen, expired) = state.withLock { state in (find(&state), state.events.count, state.expired.contains(id)) }
            if let found { return found }
            if expired { return nil }
            // Sleep until an event arrives after the look (checked under the lock, so none is missed) or time is up.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wake = state.withLock { state -> Bool in
                    if state.events.count != seen || state.expired.contains(id) { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if wake { continuation.resume() }
            }
        }
    }

    /// The last navigation URL.
    public var lastNavigation: URL? {
        all.reversed().compactMap { if case .navigate(let url, _) = $0 { url } else { nil } }.first
    }

    /// The last registration code reported (the `REGCODE` status).
    public var lastRegistrationCode: String? {
        all.reversed().compactMap { if case .status("REGCODE", let code) = $0 { code } else { nil } }.first
    }

    // MARK: EntitlementDelegate, EntitlementStatus

    public func setRequestorComplete(_ status: Int) { add(.requestorComplete(status)) }
    public func setAuthenticationStatus(_ status: Int, errorCode: String) { add(.authenticationStatus(status, errorCode)) }
    public func displayProviderDialog(_ mvpds: [MVPD]) { add(.providerDialog(mvpds.map(\.id))) }
    public func navigateToUrl(_ url: URL) { add(.navigate(url, useSVC: false)) }
    public func navigateToUrl(_ url: URL, useSVC: Bool) { add(.navigate(url, useSVC: useSVC)) }
    public func setToken(_ token: String, forResource resource: String) { add(.token(token, resource: resource)) }
    public func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        add(.failed(resource, code: errorCode, description: errorDescription))
    }
    public func preauthorizedResources(_ resources: [String]) { add(.preauthorized(resources)) }
    public func selectedProvider(_ mvpd: MVPD?) { add(.selected(mvpd?.id)) }
    public func setMetadataStatus(
        _ metadata: JSONValue?, encrypted: Bool, forKey key: MetadataOpcode, andArguments arguments: MetadataRequest
    ) {
        add(.metadata(metadata, encrypted: encrypted, key: key))
    }
    public func sendTrackingData(_ data: [String], forEventType event: TrackingEventType) { add(.tracking(event, data)) }
    public func presentTvProviderDialog(_ dialog: TVProviderDialog) { add(.present) }
    public func dismissTvProviderDialog(_ dialog: TVProviderDialog) { add(.dismiss) }
    /// Records an advanced status as ``EntitlementEvent/status(_:_:)``: its ID and message.
    public func status(_ status: AdvancedStatus) { add(.status(status.id, status.message)) }
}
