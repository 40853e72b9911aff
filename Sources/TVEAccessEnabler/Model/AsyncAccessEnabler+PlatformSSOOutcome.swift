extension AsyncAccessEnabler {
    /// The result of `getAuthentication` on the platform-SSO path.
    public enum PlatformSSOOutcome: Sendable, Hashable {
        /// The provider's SAML response was exchanged: authenticated.
        case authenticated(AuthenticationToken)
        /// Back to the classic flow (`displayProviderDialog`), with the advanced status that caused it.
        case fallback(AdvancedStatus?, [MVPD])
        /// A picker-only provider was picked: it is selected (silently) and its login starts.
        case login(MVPD, LoginStep)
    }
}
