import Foundation
import TVECrypto

/// What the service provider expects of a SAML response.
public struct SAMLVerifierConfiguration: Sendable {
    /// The IdP signing keys (several while keys rotate): the only keys accepted. KeyInfo in the response is ignored.
    public var idpKeys: [RSAPublicKey]
    /// The IdP entity ID: the `Issuer` of the Response (when present) and of the Assertion.
    public var idpEntityID: String
    /// The SP entity ID, which the AudienceRestriction must contain.
    public var spEntityID: String
    /// The assertion consumer service URL: the Response `Destination` and the bearer confirmation `Recipient`.
    public var acsURL: String
    /// The ID of the AuthnRequest this response answers. `nil` is refused unless ``allowsIdPInitiated`` is set.
    public var requestID: String?
    /// Accept unsolicited (IdP-initiated) responses when ``requestID`` is `nil`: the InResponseTo checks are skipped,
    /// which gives up the binding between a request and its response. Off by default.
    public var allowsIdPInitiated: Bool = false
    /// Tolerated clock difference at both ends of every validity window; 0 by default, at most 10 minutes.
    public var clockSkew: Duration
    /// Where "now" comes from.
    public var clock: @Sendable () -> Date

    /// Creates a configuration that pins IdP public keys. Nothing is checked here:
    /// ``SAMLResponseVerifier/init(configuration:)`` throws on unusable values.
    public init(
        idpKeys: [RSAPublicKey], idpEntityID: String, spEntityID: String, acsURL: String,
        requestID: String? = nil, allowsIdPInitiated: Bool = false, clockSkew: Duration = .zero,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.idpKeys = idpKeys
        self.allowsIdPInitiated = allowsIdPInitiated
        self.idpEntityID = idpEntityID
        self.spEntityID = spEntityID
        self.acsURL = acsURL
        self.requestID = requestID
        self.clockSkew = clockSkew
        self.clock = clock
    }

    /// Pins the keys of the IdP's signing certificates. Certificate dates are not checked: trust is configuration.
    /// - Throws: ``SAMLError/Code/invalidConfiguration`` when a certificate's key is not a usable RSA key.
    public init(
        idpCertificates: [X509Certificate], idpEntityID: String, spEntityID: String, acsURL: String,
        requestID: String? = nil, allowsIdPInitiated: Bool = false, clockSkew: Duration = .zero,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let keys: [RSAPublicKey]
        do {
            keys = try idpCertificates.map { try RSAPublicKey(certificate: $0) }
        } catch let error as TVECryptoError {
            throw SAMLError.invalidConfiguration("an IdP certificate's key is unusable: \(error.reason)")
        }
        self.init(
            idpKeys: keys, idpEntityID: idpEntityID, spEntityID: spEntityID, acsURL: acsURL, requestID: requestID,
            allowsIdPInitiated: allowsIdPInitiated, clockSkew: clockSkew, clock: clock)
    }
}
