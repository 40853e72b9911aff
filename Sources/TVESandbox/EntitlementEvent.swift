import Foundation
import TVEAccessEnabler
import TVEJSON

/// One callback of the AccessEnabler's delegates, as a ``RecordingDelegate`` records it.
public enum EntitlementEvent: Sendable, Hashable, CustomStringConvertible {
    /// The `setRequestor` result: 1 on success, 0 on error.
    case requestorComplete(Int)
    /// The authentication status (1 authenticated, 0 not) and its error code (`""` when authenticated).
    case authenticationStatus(Int, String)
    /// The MVPD IDs offered.
    case providerDialog([String])
    /// The URL to open in a web view, and whether to open it in SFSafariViewController.
    case navigate(URL, useSVC: Bool)
    /// A short media token and the resource it authorizes.
    case token(String, resource: String)
    /// A failed token request: the resource, the error code and the MVPD's message (or `""`).
    case failed(String, code: String, description: String)
    /// The resources the user may watch.
    case preauthorized([String])
    /// The selected MVPD's ID.
    case selected(String?)
    /// A metadata answer: its value (or nil), whether it is encrypted, and the key asked for.
    case metadata(JSONValue?, encrypted: Bool, key: MetadataOpcode)
    /// Tracking data: the event type and its data.
    case tracking(TrackingEventType, [String])
    /// The platform's TV provider picker is to be presented.
    case present
    /// The platform's TV provider picker is to be dismissed.
    case dismiss
    /// An advanced status: its ID and message.
    case status(String, String)

    /// The callback as a transcript shows it: a media token by its size, an MRSS resource by its size.
    public var description: String {
        switch self {
        case .requestorComplete(let status): "setRequestorComplete(\(status))"
        case .authenticationStatus(let status, let code): "setAuthenticationStatus(\(status), \"\(code)\")"
        case .providerDialog(let ids): "displayProviderDialog(\(ids.joined(separator: ", ")))"
        case .navigate(let url, let svc): "navigateToUrl(\(url.path)\(svc ? ", useSVC: true" : ""))"
        case .token(let token, let resource): "setToken(<\(token.utf8.count)-byte media token>, \(Self.shown(resource)))"
        case .failed(let resource, let code, let text): "tokenRequestFailed(\(Self.shown(resource)), \(code), \"\(text)\")"
        case .preauthorized(let ids): "preauthorizedResources(\(ids))"
        case .selected(let id): "selectedProvider(\(id ?? "nil"))"
        case .metadata(let value, let encrypted, let key):
            "setMetadataStatus(\(value?.jsonText ?? "nil"), encrypted: \(encrypted), \(key))"
        case .tracking(let type, let data): "sendTrackingData(\(type.rawValue), \(data.prefix(2)))"
        case .present: "presentTvProviderDialog"
        case .dismiss: "dismissTvProviderDialog"
        case .status(let id, let message): "status(\(id): \(message))"
        }
    }

    /// A resource as a transcript shows it: an MRSS document by its size.
    public static func shown(_ resource: String) -> String {
        resource.utf8.first == UInt8(ascii: "<") ? "<MRSS \(resource.utf8.count) bytes>" : resource
    }
}
