import Foundation
import TVEAccessEnabler
import TVEJSON

/// One callback of the AccessEnabler's delegates, as a ``RecordingDelegate`` records it.
public enum EntitlementEvent: Sendable, Hashable, CustomStringConvertible {
    case requestorComplete(Int)
    case authenticationStatus(Int, String)
    /// The MVPD IDs offered.
    case providerDialog([String])
    case navigate(URL, useSVC: Bool)
    case token(String, resource: String)
    case failed(String, code: String, description: String)
    case preauthorized([String])
    /// The selected MVPD's ID.
    case selected(String?)
    case metadata(JSONValue?, encrypted: Bool, key: MetadataOpcode)
    case tracking(TrackingEventType, [String])
    case present
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
