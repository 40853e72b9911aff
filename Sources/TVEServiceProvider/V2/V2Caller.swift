import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

/// Who a v2 request comes from, as ``V2Gate`` established it before the generated code decoded the request: the
/// requestor of the path, the client of the bearer token, and the device headers, already checked. Handlers read it
/// from the task (``current``), since the generated inputs carry the headers only as text.
struct V2Caller: Sendable {
    let requestor: ServiceProviderConfiguration.Requestor
    /// The access token's client; nil only for `authenticate` (a browser).
    let clientID: String?
    let device: PassAPIv2.DeviceIdentifier?
    /// The device information, resolved as Adobe's service does (``V2DeviceInfo``); nil on routes that do not use it.
    let deviceInfo: V2DeviceInfo?
    let partnerFrameworkStatus: PassAPIv2.PartnerFrameworkStatus?
    let tempPassIdentity: PassAPIv2.TempPassIdentity?
    /// The peer's address, for the attempt limits.
    let address: String
    /// The single-sign-on identity of `Adobe-Subject-Token` or `AD-Service-Token`, checked.
    var singleSignOn: V2SingleSignOn? = nil

    @TaskLocal static var current: V2Caller?

    /// The caller of the request being handled.
    static func get() throws(ServiceProviderError) -> V2Caller {
        guard let caller = current else { throw .internalError }
        return caller
    }

    /// The client and device of a call that must carry both.
    func clientDevice() throws(ServiceProviderError) -> (clientID: String, deviceID: String) {
        guard let clientID, let device else { throw V2Errors.missingDeviceIdentifier }
        return (clientID, device.fingerprint)
    }

    /// The key of this caller's device state.
    func deviceKey() throws(ServiceProviderError) -> String {
        let (clientID, deviceID) = try clientDevice()
        return V2State.deviceKey(requestor: requestor.id, clientID: clientID, deviceID: deviceID)
    }
}
