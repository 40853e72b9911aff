import Foundation
import Testing
import TVEAccessEnabler
import TVECrypto
import TVEPassAPIv2

@Suite("REST API v2 device headers from the app's device")
struct V2DeviceHeadersTests {
    @Test("the identifier is the SHA-256 of the device ID, never the ID; the defaults carry every required key")
    func identifierAndDefaults() throws {
        let headers = try V2DeviceHeaders(deviceID: "0123456789abcdef", deviceInfo: nil, platform: .tvOS)
        let identifier = try PassAPIv2.DeviceIdentifier(header: headers.deviceIdentifier)
        #expect(try Base64.decode(identifier.fingerprint) == (try HashFunction.sha256.hash(Array("0123456789abcdef".utf8))))
        #expect(!headers.deviceIdentifier.contains("0123456789abcdef"))
        let info = try PassAPIv2.DeviceInfo(header: headers.deviceInfo)
        #expect(info.values["osName"] == "tvOS")
        #expect(try V2DeviceHeaders(deviceID: "x", deviceInfo: nil, platform: .iOS).deviceInfo != headers.deviceInfo)
    }

    @Test(
        "partialDeviceInfoIsSentAsGiven: device information without v2's six keys (Adobe's own tvOS sample lacks two) goes as the app gave it"
    )
    func partialDeviceInfoIsSentAsGiven() throws {
        // Adobe's tvOS sample header: no vendor, no connectionPort.
        let sample = Data(
            #"{"primaryHardwareType":"SetTopBox","model":"AppleTV","osName":"tvOS","osVendor":"Apple","connectionSecure":"true"}"#.utf8
        )
        .base64EncodedString()
        #expect(try V2DeviceHeaders(deviceID: "d", deviceInfo: sample, platform: .tvOS).deviceInfo == sample)
        let complete = V2DeviceHeaders.defaultDeviceInfo(for: .iOS).header
        #expect(try V2DeviceHeaders(deviceID: "d", deviceInfo: complete, platform: .tvOS).deviceInfo == complete)
    }

    @Test(
        "malformedDeviceInfoIsRefusedBeforeSending: not Base64, not a JSON object, or over the limit: refused, the message without the value",
        arguments: [
            "not base64 at all!", Data("[1,2]".utf8).base64EncodedString(), Data(#"{"model":"secret-model""#.utf8).base64EncodedString(),
        ]
    )
    func malformedDeviceInfoIsRefusedBeforeSending(_ value: String) throws {
        #expect {
            try V2DeviceHeaders(deviceID: "d", deviceInfo: value, platform: .tvOS)
        } throws: { error in
            guard let error = error as? AccessEnablerError else { return false }
            return error.code == .internalError && !error.message.contains("secret-model") && !error.message.contains(value)
        }
    }
}
