/// What the flow layer asks the platform's single-sign-on framework (a `VSAccountMetadataRequest`).
public struct TVProviderMetadataRequest: Sendable, Hashable {
    /// The SAML issuer the framework answers for (`channelIdentifier`).
    public var channelIdentifier: String
    /// When interactive: the providers the picker shows (platform identifiers, in order) and those it features.
    public var providerIdentifiers: [String]
    /// The providers the picker features, among ``providerIdentifiers`` (platform identifiers).
    public var featuredProviderIdentifiers: [String]
    /// The SAML attributes to include (the MVPD's `requiredMetadataFields`).
    public var attributeNames: [String]
    /// The service provider's profile-request payload (`verificationToken`), when a SAML response is wanted.
    public var verificationToken: String?
    /// May the framework show its provider picker?
    public var isInterruptionAllowed: Bool

    /// A request; by default for Adobe's SAML issuer, not interactive, with no providers, attributes or verification
    /// token.
    public init(
        channelIdentifier: String = "https://saml.sp.auth.adobe.com", providerIdentifiers: [String] = [],
        featuredProviderIdentifiers: [String] = [], attributeNames: [String] = [], verificationToken: String? = nil,
        isInterruptionAllowed: Bool = false
    ) {
        self.channelIdentifier = channelIdentifier
        self.providerIdentifiers = providerIdentifiers
        self.featuredProviderIdentifiers = featuredProviderIdentifiers
        self.attributeNames = attributeNames
        self.verificationToken = verificationToken
        self.isInterruptionAllowed = isInterruptionAllowed
    }
}
