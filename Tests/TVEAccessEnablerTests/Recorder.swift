import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEJSON

/// One callback, as recorded.
enum Event: Sendable, Hashable, CustomStringConvertible {
    case requestorComplete(Int)
    case authenticationStatus(Int, String)
    case providerDialog([String])
    case navigate(URL, useSVC: Bool)
    case token(String, resource: String)
    case failed(String, code: String, description: String)
    case preauthorized([String])
    case selected(String?)
    case metadata(JSONValue?, encrypted: Bool, key: MetadataOpcode)
    case tracking(TrackingEventType, [String])
    case present
    case dismiss
    case status(String, String)

    var description: String {
        switch self {
        case .requestorComplete(let status): "setRequestorComplete(\(status))"
        case .authenticationStatus(let status, let code): "setAuthenticationStatus(\(status), \"\(code)\")"
        case .providerDialog(let ids): "displayProviderDialog(\(ids))"
        case .navigate(let url, let svc): "navigateToUrl(\(url.path), useSVC: \(svc))"
        case .token(_, let resource): "setToken(…, \(resource))"
        case .failed(let resource, let code, let text): "tokenRequestFailed(\(resource), \(code), \"\(text)\")"
        case .preauthorized(let ids): "preauthorizedResources(\(ids))"
        case .selected(let id): "selectedProvider(\(id ?? "nil"))"
        case .metadata(let value, let encrypted, let key): "setMetadataStatus(\(value?.jsonText ?? "nil"), \(encrypted), \(key))"
        case .tracking(let type, let data): "sendTrackingData(\(type.rawValue), \(data.prefix(2)))"
        case .present: "presentTvProviderDialog"
        case .dismiss: "dismissTvProviderDialog"
        case .status(let id, let message): "status(\(id), \(message))"
        }
    }
}

/// Records every callback, in order.
final class Recorder: EntitlementDelegate, EntitlementStatus, Sendable {
    /// The events, and the `wait(for:)` calls sleeping until the next one (or their deadline).
    private struct State {
        var events: [Event] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var expired: Set<Int> = []
        var nextWaiter = 0
    }
    private let state = Locked(State())
    var all: [Event] { state.withLock { $0.events } }
    /// The events without tracking data.
    var flow: [Event] { all.filter { if case .tracking = $0 { false } else { true } } }
    func reset() { state.withLock { $0.events = [] } }
    private func add(_ event: Event) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func setRequestorComplete(_ status: Int) { add(.requestorComplete(status)) }
    func setAuthenticationStatus(_ status: Int, errorCode: String) { add(.authenticationStatus(status, errorCode)) }
    func displayProviderDialog(_ mvpds: [MVPD]) { add(.providerDialog(mvpds.map(\.id))) }
    func navigateToUrl(_ url: URL) { add(.navigate(url, useSVC: false)) }
    func navigateToUrl(_ url: URL, useSVC: Bool) { add(.navigate(url, useSVC: useSVC)) }
    func setToken(_ token: String, forResource resource: String) { add(.token(token, resource: resource)) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        add(.failed(resource, code: errorCode, description: errorDescription))
    }
    func preauthorizedResources(_ resources: [String]) { add(.preauthorized(resources)) }
    func selectedProvider(_ mvpd: MVPD?) { add(.selected(mvpd?.id)) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: MetadataOpcode, andArguments arguments: MetadataRequest) {
        add(.metadata(metadata, encrypted: encrypted, key: key))
    }
    func sendTrackingData(_ data: [String], forEventType event: TrackingEventType) { add(.tracking(event, data)) }
    func presentTvProviderDialog(_ dialog: TVProviderDialog) { add(.present) }
    func dismissTvProviderDialog(_ dialog: TVProviderDialog) { add(.dismiss) }
    func status(_ status: AdvancedStatus) { add(.status(status.id, status.message)) }

    /// Waits (up to 10 s) for an event that matches. Event-driven: it sleeps until an event arrives or the time is up.
    func wait(for match: @Sendable (Event) -> Bool) async -> Event? {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [state] in
            try? await Task.sleep(for: .seconds(10))
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
            let (found, seen, expired) = state.withLock { state in
                (state.events.first(where: match), state.events.count, state.expired.contains(id))
            }
            if let found { return found }
            if expired { return nil }
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
    var lastNavigation: URL? {
        all.reversed().compactMap { if case .navigate(let url, _) = $0 { url } else { nil } }.first
    }

    /// The last registration code reported.
    var lastRegistrationCode: String? {
        all.reversed().compactMap { if case .status("REGCODE", let code) = $0 { code } else { nil } }.first
    }
}

/// An AccessEnabler whose callbacks run synchronously (so `drain()` means "all callbacks recorded").
func makeEnabler(_ core: AsyncAccessEnabler, _ recorder: Recorder) -> AccessEnabler {
    let enabler = AccessEnabler(core: core, deliver: { $0() })
    enabler.delegate = recorder
    enabler.statusDelegate = recorder
    return enabler
}
