import Foundation
import HTTPTypes
import TVEPassAPIv2

/// The device information of a v2 call as Adobe's service treats it: Adobe's file marks `X-Device-Info` required, but
/// its service merges what the header gives with what it extracts from the request itself, and uses the extracted
/// values alone when the header is missing ("When not provided, the Adobe Pass Authentication backend will use
/// extracted values implicitly"). Public clients register and call without it, or with a partial one.
///
/// Without ``ServiceProviderConfiguration/strict`` the local service provider does the same, and classes each call
/// (``Source``): the header complete, the header completed from the request, or the request alone (no header, or one
/// that is not Base64 JSON). With it, the header is required with each of ``PassAPIv2/DeviceInfo/requiredKeys``.
struct V2DeviceInfo: Sendable, Hashable {
    /// Where the values came from.
    enum Source: String, Sendable {
        /// A header with every required key.
        case header
        /// A header that lacked some keys, completed from the request.
        case merged
        /// No usable header: the values the request gives (its `User-Agent`).
        case request
    }

    let info: PassAPIv2.DeviceInfo
    let source: Source

    /// The device information of `request`, whose `X-Device-Info` value is `header`.
    /// - Throws: 400 `invalid_header_device_info` when `strict` and the header is missing, unreadable or partial.
    static func resolve(header: String?, request: HTTPRequest, strict: Bool) throws(ServiceProviderError) -> V2DeviceInfo {
        if strict {
            guard let header else { throw V2Errors.missingDeviceInfo }
            do {
                return V2DeviceInfo(info: try PassAPIv2.DeviceInfo(header: header), source: .header)
            } catch {
                throw V2Errors.badRequest(error.code, error.reason)
            }
        }
        let given = header.flatMap { try? PassAPIv2.DeviceInfo(header: $0, requiringKeys: false) }
        if let given, PassAPIv2.DeviceInfo.requiredKeys.allSatisfy({ !(given.values[$0] ?? "").isEmpty }) {
            return V2DeviceInfo(info: given, source: .header)
        }
        var values = extracted(userAgent: request.headerFields[.userAgent])
        for (key, value) in given?.values ?? [:] where !value.isEmpty { values[key] = value }
        let merged = PassAPIv2.DeviceInfo(values: values)
        // A header near the limit, completed, could pass it: then the header's own values, as given.
        if let given, merged.header.utf8.count > PassAPIv2.maximumHeaderBytes { return V2DeviceInfo(info: given, source: .header) }
        return V2DeviceInfo(info: merged, source: given == nil ? .request : .merged)
    }

    /// What a `User-Agent` says of the device, in `X-Device-Info`'s keys; `Unknown` for what it does not say. It tells
    /// nothing of `connectionPort`, which stays missing unless the header gives it.
    static func extracted(userAgent: String?) -> [String: String] {
        let agent = String((userAgent ?? "").prefix(512))
        // (marker, primaryHardwareType, model, vendor, osName, osVendor), the first marker found wins.
        let table: [(String, String, String, String, String, String)] = [
            ("AppleTV", "SetTopBox", "Apple TV", "Apple", "tvOS", "Apple"), ("tvOS", "SetTopBox", "Apple TV", "Apple", "tvOS", "Apple"),
            ("iPhone", "Mobile", "iPhone", "Apple", "iOS", "Apple"), ("iPad", "Tablet", "iPad", "Apple", "iPadOS", "Apple"),
            ("Roku", "SetTopBox", "Roku", "Roku", "Roku OS", "Roku"), ("AFT", "SetTopBox", "Fire TV", "Amazon", "Fire OS", "Amazon"),
            ("Tizen", "SmartTV", "Samsung TV", "Samsung", "Tizen", "Samsung"), ("Web0S", "SmartTV", "LG TV", "LG", "webOS", "LG"),
            ("Android", "Mobile", "Android", "Unknown", "Android", "Google"),
            ("Macintosh", "Desktop", "Mac", "Apple", "macOS", "Apple"), ("Windows", "Desktop", "PC", "Unknown", "Windows", "Microsoft"),
            ("Linux", "Desktop", "PC", "Unknown", "Linux", "Unknown"),
        ]
        let row = table.first { agent.contains($0.0) }
        return [
            "primaryHardwareType": row?.1 ?? "Unknown", "model": row?.2 ?? "Unknown", "vendor": row?.3 ?? "Unknown",
            "osName": row?.4 ?? "Unknown", "osVendor": row?.5 ?? "Unknown",
        ]
    }
}
