import Foundation
import TVEJSON

/// One callback of the delegate API, as a value: what ``DelegateTranslator`` produces and ``AccessEnabler`` delivers.
package enum DelegateCallback: Sendable, Hashable {
    /// `setRequestorComplete:`
    case setRequestorComplete(Int)
    /// `setAuthenticationStatus:errorCode:`
    case setAuthenticationStatus(Int, errorCode: String)
    /// `displayProviderDialog:`
    case displayProviderDialog([MVPD])
    /// `navigateToUrl:` (`useSVC` false) or `navigateToUrl:useSVC:` (true).
    case navigateToUrl(URL, useSVC: Bool)
    /// `setToken:forResource:`
    case setToken(String, resource: String)
    /// `tokenRequestFailed:errorCode:errorDescription:`
    case tokenRequestFailed(String, errorCode: String, errorDescription: String)
    /// `preauthorizedResources:`
    case preauthorizedResources([String])
    /// `selectedProvider:`
    case selectedProvider(MVPD?)
    /// `setMetadataStatus:encrypted:forKey:andArguments:`
    case setMetadataStatus(JSONValue?, encrypted: Bool, key: MetadataOpcode, arguments: MetadataRequest)
    /// `sendTrackingData:forEventType:`
    case sendTrackingData([String], event: TrackingEventType)
    /// `presentTvProviderDialog:`
    case presentTvProviderDialog(TVProviderDialog)
    /// `dismissTvProviderDialog:`
    case dismissTvProviderDialog(TVProviderDialog)
    /// `status:` of ``EntitlementStatus``.
    case status(AdvancedStatus)

    /// Calls the delegate method (or, for ``status(_:)``, the status receiver's) this value stands for; nothing when
    /// the receiver is gone.
    package func send(to delegate: (any EntitlementDelegate)?, status receiver: (any EntitlementStatus)?) {
        if case .status(let status) = self {
            receiver?.status(status)
            return
        }
        guard let delegate else { return }
        switch self {
        case .setRequestorComplete(let status): delegate.setRequestorComplete(status)
        case .setAuthenticationStatus(let status, let code): delegate.setAuthenticationStatus(status, errorCode: code)
        case .displayProviderDialog(let mvpds): delegate.displayProviderDialog(mvpds)
        case .navigateToUrl(let url, let useSVC):
            if useSVC { delegate.navigateToUrl(url, useSVC: true) } else { delegate.navigateToUrl(url) }
        case .setToken(let token, let resource): delegate.setToken(token, forResource: resource)
        case .tokenRequestFailed(let resource, let code, let description):
            delegate.tokenRequestFailed(resource, errorCode: code, errorDescription: description)
        case .preauthorizedResources(let resources): delegate.preauthorizedResources(resources)
        case .selectedProvider(let mvpd): delegate.selectedProvider(mvpd)
        case .setMetadataStatus(let value, let encrypted, let key, let arguments):
            delegate.setMetadataStatus(value, encrypted: encrypted, forKey: key, andArguments: arguments)
        case .sendTrackingData(let data, let event): delegate.sendTrackingData(data, forEventType: event)
        case .presentTvProviderDialog(let dialog): delegate.presentTvProviderDialog(dialog)
        case .dismissTvProviderDialog(let dialog): delegate.dismissTvProviderDialog(dialog)
        case .status: break
        }
    }
}
