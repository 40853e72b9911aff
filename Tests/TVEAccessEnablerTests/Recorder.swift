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
    private let events = Locked<[Event]>([])
    var all: [Event] { events.withLock { $0 } }
    /// The events without tracking data.
    var flow: [Event] { all.filter { if case .tracking = $0 { false } else { true } } }
    func reset() { events.withLock { $0 = [] } }
    private func add(_ event: Event) { events.withLock { $0.append(event) } }

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

    /// Waits (up to 10 s) for an event that matches.
    func wait(for match: @Sendable (Event) -> Bool) async -> Event? {
        for _ in 0..<1000 {
            if let event = all.first(where: match) { return event }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
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
