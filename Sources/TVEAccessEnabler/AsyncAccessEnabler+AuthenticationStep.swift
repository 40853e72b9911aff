extension AsyncAccessEnabler {
    /// Where `getAuthentication` stands: already authenticated, or the providers to pick from.
    public enum AuthenticationStep: Sendable, Hashable {
        case authenticated(AuthenticationToken)
        case selectProvider([MVPD])
    }
}
