extension AsyncAccessEnabler {
    /// Where `getAuthentication` stands: already authenticated, or the providers to pick from.
    public enum AuthenticationStep: Sendable, Hashable {
        /// A valid authentication is stored (and `forceAuthn` was not set): no login is needed.
        case authenticated(AuthenticationToken)
        /// A login is needed: the MVPDs of the last `setRequestor` (never empty) to pick from, for
        /// ``AsyncAccessEnabler/selectProvider(_:data:)``.
        case selectProvider([MVPD])
    }
}
