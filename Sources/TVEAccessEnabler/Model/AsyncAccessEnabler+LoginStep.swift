import Foundation

extension AsyncAccessEnabler {
    /// What `setSelectedProvider` leads to: the login page to open (iOS), a registration code to show (tvOS), or an
    /// authentication at once (TempPass).
    public enum LoginStep: Sendable, Hashable {
        /// Open `url` in a web view (or SFSafariViewController when `useSVC`) and call ``handleExternalURL(_:)`` when it
        /// reaches the redirect URL.
        case navigate(URL, useSVC: Bool)
        /// Show `code`; ``waitForSecondScreen()`` polls until the user has logged in elsewhere.
        case registrationCode(String)
        /// No login was needed: a TempPass MVPD (REST API v2), or an authentication the device already held. It is
        /// stored; there is no page to open and nothing to wait for.
        case authenticated(AuthenticationToken)
    }
}
