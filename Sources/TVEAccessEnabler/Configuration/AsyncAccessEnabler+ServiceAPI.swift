import Foundation

extension AsyncAccessEnabler {
    /// `ADOBEPASS_REDIRECT_URL`.
    public static let defaultRedirectURL = "adobepass://ios.app"
    /// Adobe's production service provider, the default of `setRequestor`.
    public static let defaultServiceProvider = URL(string: "https://sp.auth.adobe.com")
    /// Adobe's staging service provider (for integration tests against Adobe).
    public static let stagingServiceProvider = URL(string: "https://sp.auth-staging.adobe.com")
}

extension AsyncAccessEnabler {
    /// The REST API the flow layer speaks to the service providers.
    ///
    /// REST API v2 is the default: Adobe ended support for v1 on 2025-12-31 and it stops working at the end of 2026.
    /// v1 stays selectable per app (``Configuration/api``). The deprecated identities (a signed requestor ID, the
    /// clientless secret) speak v1 whatever is chosen: REST API v2 admits only Dynamic Client Registration.
    public enum ServiceAPI: String, Sendable, Hashable, CaseIterable {
        /// `v1`: REST API v1 (`/api/v1`, no longer supported by Adobe). `v2`: REST API v2 (`/api/v2`), the default.
        case v1, v2
    }
}
