internal import CLibXML2
import Foundation
import TVECrypto

/// Signs SAML Responses and Assertions with an enveloped RSA-SHA256 XML signature over exclusive C14N, placed after
/// the element's `saml:Issuer` and carrying the certificate in KeyInfo: what the local identity provider and the
/// tests use to produce genuine responses.
public struct SAMLSigner: Sendable {
    /// Which elements to sign.
    public struct Targets: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The root element (a Response, or a bare Assertion).
        public static let root = Targets(rawValue: 1 << 0)
        /// The Assertion inside a Response.
        public static let assertion = Targets(rawValue: 1 << 1)
    }

    /// The RSA private key that makes every signature.
    public let privateKey: RSAPrivateKey
    /// The certificate written into each signature's KeyInfo as `X509Certificate`; `nil` writes none.
    public let certificate: X509Certificate?

    /// Creates a signer with `privateKey` and, optionally, the certificate to carry in KeyInfo.
    public init(privateKey: RSAPrivateKey, certificate: X509Certificate? = nil) {
        self.privateKey = privateKey
        self.certificate = certificate
    }

    /// Returns `xml` with the chosen elements signed (the Assertion first, so the Response signature covers it).
    /// - Throws: ``SAMLError`` (``SAMLError/Code/rejected`` for unparsable or DOCTYPE input,
    ///   ``SAMLError/Code/signingFailed`` when an element lacks an `ID` or is already signed).
    public func sign(_ xml: some DataProtocol, targets: Targets = .root) throws(SAMLError) -> [UInt8] {
        let document: XMLDocument
        do {
            document = try [UInt8](xml).withUnsafeBytes { try XMLDocument.parse($0, readOnly: false) }
        } catch let error as SAMLError {
            throw error
        } catch {
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML does not parse")])
        }
        let root = document.root
        let isResponse = LibXML.isElement(root, XMLNamespace.protocol_, "Response")
        guard isResponse || LibXML.isElement(root, XMLNamespace.assertion, "Assertion") else {
            throw .signingFailed("the root is neither samlp:Response nor saml:Assertion")
        }
        var elements: [LibXMLNode] = []
        if targets.contains(.assertion) {
            guard isResponse, let assertion = LibXML.child(root, XMLNamespace.assertion, "Assertion") else {
                throw .signingFailed("there is no Assertion directly inside a Response to sign")
            }
            elements.append(assertion)
        }
        if targets.contains(.root) { elements.append(root) }
        for element in elements {
            guard let id = LibXML.attribute(element, "ID"), !id.isEmpty else {
                throw .signingFailed("the \(LibXML.localName(element)) has no ID attribute")
            }
            guard LibXML.child(element, XMLNamespace.dsig, "Signature") == nil else {
                throw .signingFailed("the \(LibXML.localName(element)) is already signed")
            }
            try XMLSignature.sign(element, id: id, in: document, key: privateKey, certificate: certificate)
        }
        return document.serialized()
    }
}
