import Foundation

extension AsyncAccessEnabler {
    /// What `setSelectedProvider` leads to: the login page to open (iOS), or a registration code to show (tvOS).
    public enum LoginStep: Sendable, Hashable {
        /// Open `url` in a web view (or SFSafariViewController when `useSVC`) and call ``handleExternalURL(_:)`` when it
        /// reaches the redirect URL.
        case navigate(URL, useSVC: Bool)
        /// Show `code`; ``waitForSecondScreen()`` polls until the user has logged in elsewhere.
        case registrationCode(String)
    }
}
