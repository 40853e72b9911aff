/// The framework's answer.
public enum TVProviderMetadataResult: Sendable, Hashable {
    /// The account's provider (signed in, or just picked), with the SAML response when a verification token was given.
    case account(providerIdentifier: String, samlResponse: String?)
    /// No account is signed in (and no picker was allowed).
    case notSignedIn
    /// The user chose "Other TV Provider" in the picker (`N003`).
    case otherProvider
    /// The user cancelled the picker (`N005`).
    case cancelled
    /// The metadata request failed (`VSA503`), with the framework's message.
    case failed(String)
}
