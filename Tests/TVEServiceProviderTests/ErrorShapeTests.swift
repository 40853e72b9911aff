import HTTPTypes
import Hummingbird
import TVEPassAPIv2
import Testing
@testable import TVEServiceProvider

/// The package's one error shape (swift-certificates' `CertificateError`), for the REST API v2 header error and the
/// client registration's error (`ServiceProviderError`, the REST API's error answer, is another engineer's).
@Suite("TVEPassAPIv2's and TVEServiceProvider's errors: one shape")
struct ErrorShapeTests {
    @Test("headerErrorsAreEqualOnTheirCode: HeaderError is equal and hashed on Adobe's code, records where it was made")
    func headerErrorsAreEqualOnTheirCode() {
        let (error, line) = (PassAPIv2.HeaderError(code: "invalid_header_device_info", reason: "X-Device-Info is empty"), UInt(#line))
        let other = PassAPIv2.HeaderError(code: .invalidDeviceInfo, reason: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != PassAPIv2.HeaderError(code: .invalidDeviceIdentifier, reason: "X-Device-Info is empty"))
        #expect(error.code == .invalidDeviceInfo && error.code.rawValue == "invalid_header_device_info")
        #expect(error.file == "TVEServiceProviderTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "HeaderError.invalid_header_device_info: X-Device-Info is empty (TVEServiceProviderTests/ErrorShapeTests.swift:\(line))")
        let decoded = #expect(throws: PassAPIv2.HeaderError.self) { try PassAPIv2.DeviceInfo(header: "") }
        #expect(decoded?.code == .invalidDeviceInfo && decoded?.file.hasPrefix("TVEPassAPIv2/") == true)
    }

    @Test("registrationErrorsAreEqualOnTheirCode: ClientRegistrationError is equal on its OAuth code (not status or reason)")
    func registrationErrorsAreEqualOnTheirCode() {
        let (error, line) = (
            ClientRegistrationError(status: .unauthorized, error: "invalid_client", description: "unknown client"), UInt(#line)
        )
        let other = ClientRegistrationError(status: .badRequest, error: .invalidClient, description: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != ClientRegistrationError(status: .unauthorized, error: .invalidRequest, description: "unknown client"))
        #expect(error.code == "invalid_client" && error.status == .unauthorized && error.reason == "unknown client")
        #expect(error.file == "TVEServiceProviderTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "ClientRegistrationError.invalid_client: unknown client (TVEServiceProviderTests/ErrorShapeTests.swift:\(line))")
        #expect(error.response.status == .unauthorized)
    }
}
