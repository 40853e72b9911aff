import Foundation
import TVEJSON

/// The callbacks of the AccessEnabler SDK's `EntitlementDelegate`, one for one (the list is in
/// <doc:TheAccessEnablerAPI>). They arrive on the ``AccessEnabler``'s callback executor, never on the caller's stack.
public protocol EntitlementDelegate: AnyObject, Sendable {
    /// `setRequestorComplete:` — ``AccessEnabler/statusSuccess`` or ``AccessEnabler/statusError``.
    func setRequestorComplete(_ status: Int)
    /// `setAuthenticationStatus:errorCode:` — 1 with `""` when authenticated; 0 with an error code otherwise (and 0
    /// after a logout).
    func setAuthenticationStatus(_ status: Int, errorCode: String)
    /// `displayProviderDialog:` — show these MVPDs; answer with ``AccessEnabler/setSelectedProvider(_:)``.
    func displayProviderDialog(_ mvpds: [MVPD])
    /// `navigateToUrl:` — open `url` in a web view; call ``AccessEnabler/handleExternalURL(_:)`` when it reaches the
    /// redirect URL.
    func navigateToUrl(_ url: URL)
    /// `navigateToUrl:useSVC:` (optional) — with the `handleSVC` option: open `url` in SFSafariViewController.
    func navigateToUrl(_ url: URL, useSVC: Bool)
    /// `setToken:forResource:` — the short media token.
    func setToken(_ token: String, forResource resource: String)
    /// `tokenRequestFailed:errorCode:errorDescription:` — the MVPD's message passed through, or `""`.
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String)
    /// `preauthorizedResources:` — the resources the user may watch.
    func preauthorizedResources(_ resources: [String])
    /// `selectedProvider:` — the MVPD of the current authentication, or nil.
    func selectedProvider(_ mvpd: MVPD?)
    /// `setMetadataStatus:encrypted:forKey:andArguments:`.
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: MetadataOpcode, andArguments arguments: MetadataRequest)
    /// `sendTrackingData:forEventType:` (optional).
    func sendTrackingData(_ data: [String], forEventType event: TrackingEventType)
    /// `presentTvProviderDialog:` — present the platform's provider picker.
    func presentTvProviderDialog(_ dialog: TVProviderDialog)
    /// `dismissTvProviderDialog:` — remove it.
    func dismissTvProviderDialog(_ dialog: TVProviderDialog)
}

extension EntitlementDelegate {
    public func navigateToUrl(_ url: URL, useSVC: Bool) { navigateToUrl(url) }
    public func sendTrackingData(_ data: [String], forEventType event: TrackingEventType) {}
    public func presentTvProviderDialog(_ dialog: TVProviderDialog) {}
    public func dismissTvProviderDialog(_ dialog: TVProviderDialog) {}
}
