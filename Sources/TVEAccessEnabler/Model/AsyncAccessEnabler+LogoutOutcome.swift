import Foundation

extension AsyncAccessEnabler {
    /// What `logout` did.
    public struct LogoutOutcome: Sendable, Hashable {
        /// The logout page for the app to open (iOS), ending the MVPD's session too; nil on tvOS, where there is none,
        /// and when nobody was logged in.
        public let page: URL?
        /// The user had logged in through platform single sign-on: they must sign out in the system settings too
        /// (`VSA203`), or the next start signs them in again.
        public let platformSSO: Bool
        /// The service provider could not be told (the local tokens are gone all the same).
        public let serverError: AccessEnablerError?

        package init(page: URL?, platformSSO: Bool, serverError: AccessEnablerError?) {
            self.page = page
            self.platformSSO = platformSSO
            self.serverError = serverError
        }
    }
}
