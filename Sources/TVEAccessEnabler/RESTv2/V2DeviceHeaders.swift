import Foundation
import TVECrypto
import TVEPassAPIv2

/// The device headers REST API v2 requires, made from what the app gives the flow layer.
///
/// **Choice:** `AP-Device-Identifier` is `fingerprint <standard Base64 of SHA-256(UTF-8 of the device ID)>`: the flow
/// layer's stable device ID (kept in the token store) hashed, as Adobe recommends, so the identifier itself never
/// leaves the device. `X-Device-Info` is the app's device information (``AsyncAccessEnabler/Options/deviceInfo``,
/// Base64 JSON) when it gives one, sent as the app gives it: its form is checked (Base64 of a JSON object within the
/// header limits), and keys it lacks are left to Adobe's service, which fills them in from the request itself;
/// otherwise TVEKit's defaults for the platform (``defaultDeviceInfo(for:)``).
public struct V2DeviceHeaders: Sendable, Hashable {
    /// The `AP-Device-Identifier` value.
    public let deviceIdentifier: String
    /// The `X-Device-Info` value.
    public let deviceInfo: String

    /// - Throws: ``AccessEnablerError`` with code `INTERNAL_ERROR` when `deviceInfo` is not Base64 of a JSON object
    ///   within the header limits; its message says what is wrong, never the value.
    public init(deviceID: String, deviceInfo: String?, platform: EntitlementPlatform) throws(AccessEnablerError) {
        let digest = (try? HashFunction.sha256.hash(Array(deviceID.utf8))) ?? []
        guard digest.count == 32 else { throw AccessEnablerError(.internalError, "the device identifier could not be hashed") }
        deviceIdentifier = PassAPIv2.DeviceIdentifier(bytes: digest).header
        if let deviceInfo {
            do {
                _ = try PassAPIv2.DeviceInfo(header: deviceInfo, requiringKeys: false)
            } catch {
                throw AccessEnablerError(.internalError, "the app's device information cannot be sent to REST API v2: \(error.reason)")
            }
            self.deviceInfo = deviceInfo
        } else {
            self.deviceInfo = Self.defaultDeviceInfo(for: platform).header
        }
    }

    /// The `X-Device-Info` value of ``defaultDeviceInfo(for:)``.
    static func defaultDeviceInfoHeader(for platform: EntitlementPlatform) -> String { defaultDeviceInfo(for: platform).header }

    /// TVEKit's device information when the app gives none: an Apple device of the platform, on a secure connection.
    public static func defaultDeviceInfo(for platform: EntitlementPlatform) -> PassAPIv2.DeviceInfo {
        switch platform {
        case .tvOS:
            PassAPIv2.DeviceInfo(values: [
                "primaryHardwareType": "SetTopBox", "model": "AppleTV", "vendor": "Apple", "osName": "tvOS", "osVendor": "Apple",
                "connectionPort": "443", "connectionSecure": "true",
            ])
        case .iOS:
            PassAPIv2.DeviceInfo(values: [
                "primaryHardwareType": "MobilePhone", "model": "iPhone", "vendor": "Apple", "osName": "iOS", "osVendor": "Apple",
                "connectionPort": "443", "connectionSecure": "true",
            ])
        }
    }
}
