import Foundation
import TVEPassAPIv2

/// Whose profiles a v2 call is about: a device of a client of a requestor, with the single-sign-on identity and the
/// promotional TempPass identity the call carries. Usually the caller's own device; for `POST sessions/{code}` (which
/// a second screen may send, without the device's headers) the device that created the session.
struct V2Holder: Sendable {
    let requestor: ServiceProviderConfiguration.Requestor
    let clientID: String
    let deviceID: String
    let singleSignOn: V2SingleSignOn?
    let tempPassIdentity: PassAPIv2.TempPassIdentity?

    /// The key of this device's state.
    var deviceKey: String { V2State.deviceKey(requestor: requestor.id, clientID: clientID, deviceID: deviceID) }
}

extension V2Caller {
    /// The caller's own device, which the call must name.
    func holder() throws(ServiceProviderError) -> V2Holder {
        let (clientID, deviceID) = try clientDevice()
        return V2Holder(
            requestor: requestor, clientID: clientID, deviceID: deviceID, singleSignOn: singleSignOn, tempPassIdentity: tempPassIdentity)
    }

    /// The device that created `session`, with the promotional TempPass identity this call carries; not the call's
    /// single-sign-on identity, which is bound to the calling device, not to the session's.
    func holder(of session: V2AuthenticationSession) -> V2Holder {
        V2Holder(
            requestor: requestor, clientID: session.clientID, deviceID: session.deviceID, singleSignOn: nil,
            tempPassIdentity: tempPassIdentity)
    }
}
