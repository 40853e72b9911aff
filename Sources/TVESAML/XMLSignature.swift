internal import CLibXML2
internal import CTVEC14N
import Foundation
import TVECrypto

/// XML-DSig for the SAML profile (SAML core §5.4): verification with pinned keys, and enveloped signing.
enum XMLSignature {
    static let enveloped = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"

    static let signatureAlgorithms: [String: HashFunction] = [
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": .sha256,
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": .sha384,
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": .sha512,
    ]
    static let digestAlgorithms: [String: HashFunction] = [
        "http://www.w3.org/2001/04/xmlenc#sha256": .sha256,
        "http://www.w3.org/2001/04/xmldsig-more#sha384": .sha384,
        "http://www.w3.org/2001/04/xmlenc#sha512": .sha512,
    ]

    /// Verifies the enveloped signature `signature`, a child of `parent`, with any of `keys`.
    ///
    /// Order: profile and algorithm checks on the whole Signature; SignedInfo canonicalized and its SignatureValue
    /// verified with a pinned key; only then the referenced element (the parent, without the Signature) is
    /// canonicalized and hashed, and compared with the DigestValue of that verified SignedInfo.
    static func verify(
        _ signature: XMLNode, parent: XMLNode, parentID: String, in document: ParsedXML,
        keys: [RSAPublicKey]
    ) throws(SAMLPolicyFailure) {
        let ds = XMLNamespace.dsig
        // Shape: SignedInfo, SignatureValue, optional KeyInfo (ignored: the key is pinned); nothing else.
        let parts = XML.elementChildren(signature)
        guard XML.hasOnlyWhitespaceText(signature), parts.count == 2 || parts.count == 3,
            XML.isElement(parts[0], ds, "SignedInfo"), XML.isElement(parts[1], ds, "SignatureValue"),
            parts.count == 2 || XML.isElement(parts[2], ds, "KeyInfo")
        else {
            throw SAMLPolicyFailure(
                .signatureProfile, "ds:Signature must hold SignedInfo, SignatureValue and an optional KeyInfo only (no ds:Object)")
        }
        let signedInfo = parts[0]
        // SignedInfo is canonicalized before the key is checked, so its size is bounded first: the profile allows
        // at most 11 elements in it (with both InclusiveNamespaces).
        guard XML.descendantElementCount(signedInfo, limit: 16) <= 16 else {
            throw SAMLPolicyFailure(.signatureProfile, "SignedInfo holds more elements than the profile allows")
        }
        guard XML.elementChildren(parts[1]).isEmpty else {
            throw SAMLPolicyFailure(.signatureProfile, "the SignatureValue must hold text only")
        }
        let info = XML.elementChildren(signedInfo)
        guard XML.hasOnlyWhitespaceText(signedInfo), info.count >= 3, XML.isElement(info[0], ds, "CanonicalizationMethod"),
            XML.isElement(info[1], ds, "SignatureMethod")
        else {
            throw SAMLPolicyFailure(.signatureProfile, "SignedInfo must hold CanonicalizationMethod, SignatureMethod and one Reference")
        }
        guard info.count == 3, XML.isElement(info[2], ds, "Reference") else {
            throw SAMLPolicyFailure(.signatureProfile, "SignedInfo must hold exactly one Reference")
        }
        // Algorithms.
        guard XML.attribute(info[0], "Algorithm") == XMLNamespace.excC14NString else {
            throw SAMLPolicyFailure(.signatureAlgorithm, "the SignedInfo canonicalization must be exclusive C14N without comments")
        }
        let signedInfoPrefixes = try inclusivePrefixes(info[0])
        guard let algorithm = XML.attribute(info[1], "Algorithm"), let signatureHash = signatureAlgorithms[algorithm],
            XML.elementChildren(info[1]).isEmpty
        else { throw SAMLPolicyFailure(.signatureAlgorithm, "the signature method is not RSA-SHA256, RSA-SHA384 or RSA-SHA512") }
        // The one Reference: URI "#<parent ID>", transforms enveloped (+ exclusive C14N), an allowed digest.
        let reference = info[2]
        guard XML.attribute(reference, "URI") == "#" + parentID else {
            throw SAMLPolicyFailure(.signatureProfile, "the Reference URI must be \"#\" followed by the ID of the signature's parent")
        }
        let referenceParts = XML.elementChildren(reference)
        guard XML.hasOnlyWhitespaceText(reference), referenceParts.count == 3, XML.isElement(referenceParts[0], ds, "Transforms"),
            XML.isElement(referenceParts[1], ds, "DigestMethod"), XML.isElement(referenceParts[2], ds, "DigestValue")
        else { throw SAMLPolicyFailure(.signatureProfile, "the Reference must hold Transforms, DigestMethod and DigestValue") }
        let transforms = XML.elementChildren(referenceParts[0])
        guard XML.hasOnlyWhitespaceText(referenceParts[0]), (1...2).contains(transforms.count),
            transforms.allSatisfy({ XML.isElement($0, ds, "Transform") }),
            XML.attribute(transforms[0], "Algorithm") == enveloped, XML.elementChildren(transforms[0]).isEmpty
        else { throw SAMLPolicyFailure(.signatureProfile, "the transforms must be enveloped-signature, then optionally exclusive C14N") }
        var exclusive = false
        var referencePrefixes: [String] = []
        if transforms.count == 2 {
            guard XML.attribute(transforms[1], "Algorithm") == XMLNamespace.excC14NString else {
                throw SAMLPolicyFailure(.signatureProfile, "the second transform must be exclusive C14N without comments")
            }
            exclusive = true
            referencePrefixes = try inclusivePrefixes(transforms[1])
        }
        guard XML.elementChildren(referenceParts[2]).isEmpty else {
            throw SAMLPolicyFailure(.signatureProfile, "the DigestValue must hold text only")
        }
        guard let digestAlgorithm = XML.attribute(referenceParts[1], "Algorithm"), let digestHash = digestAlgorithms[digestAlgorithm],
            XML.elementChildren(referenceParts[1]).isEmpty
        else { throw SAMLPolicyFailure(.signatureAlgorithm, "the digest method is not SHA-256, SHA-384 or SHA-512") }
        guard let digestValue = try? Base64.decode(XML.text(referenceParts[2]), options: .ignoringWhitespace),
            digestValue.count == digestHash.digestByteCount
        else { throw SAMLPolicyFailure(.signatureProfile, "the DigestValue is not Base64 of a \(digestHash) digest") }
        guard let signatureValue = try? Base64.decode(XML.text(parts[1]), options: .ignoringWhitespace) else {
            throw SAMLPolicyFailure(.signatureProfile, "the SignatureValue is not Base64")
        }
        // SignedInfo first, with the pinned keys.
        guard let padding = try? RSASignaturePadding.pkcs1v15(signatureHash) else {
            throw SAMLPolicyFailure(.signatureValue, "no trusted IdP key verifies the SignatureValue")
        }
        let verified = try document.withCanonicalForm(
            signedInfo, excluding: nil, exclusive: true, inclusivePrefixes: signedInfoPrefixes
        ) { canonicalSignedInfo in
            keys.contains(where: { $0.isValidSignature(signatureValue, for: canonicalSignedInfo, padding: padding) })
        }
        guard verified else { throw SAMLPolicyFailure(.signatureValue, "no trusted IdP key verifies the SignatureValue") }
        // Then the referenced element, against the DigestValue of the SignedInfo just verified.
        let digest = try document.withCanonicalForm(
            parent, excluding: signature, exclusive: exclusive,
            inclusivePrefixes: referencePrefixes
        ) { try? digestHash.hash($0) }
        guard let digest, ConstantTime.equals(digest, digestValue) else {
            throw SAMLPolicyFailure(.signatureDigest, "the signed element was changed after signing (digest mismatch)")
        }
    }

    /// The PrefixList of an `ec:InclusiveNamespaces` child, if any (nothing else may be inside).
    private static func inclusivePrefixes(_ method: XMLNode) throws(SAMLPolicyFailure) -> [String] {
        let children = XML.elementChildren(method)
        guard XML.hasOnlyWhitespaceText(method) else {
            throw SAMLPolicyFailure(.signatureProfile, "unexpected content in a canonicalization method")
        }
        if children.isEmpty { return [] }
        guard children.count == 1, XML.isElement(children[0], XMLNamespace.excC14N, "InclusiveNamespaces"),
            XML.elementChildren(children[0]).isEmpty, let list = XML.attribute(children[0], "PrefixList")
        else { throw SAMLPolicyFailure(.signatureProfile, "a canonicalization method may hold only ec:InclusiveNamespaces") }
        return list.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }

    // MARK: Signing

    /// Signs `element` (which must carry an `ID`) with an enveloped RSA-SHA256 signature over exclusive C14N, placed
    /// after its `saml:Issuer` child (or first), with the certificate in KeyInfo.
    static func sign(
        _ element: LibXMLNode, id: String, in document: XMLDocument, key: RSAPrivateKey,
        certificate: X509Certificate?
    ) throws(SAMLError) {
        guard let signature = xmlNewDocNode(document.pointer, nil, "Signature", nil) else { throw .signingFailed("out of memory") }
        guard let ds = xmlNewNs(signature, XMLNamespace.dsig.utf8Start, "ds") else {
            xmlFreeNode(signature)
            throw .signingFailed("out of memory")
        }
        xmlSetNs(signature, ds)
        func add(_ parent: LibXMLNode, _ name: String, _ content: String? = nil, _ attributes: [(String, String)] = []) -> LibXMLNode? {
            guard let node = xmlNewChild(parent, ds, name, nil) else { return nil }
            if let content { xmlNodeAddContent(node, content) }
            for (attribute, value) in attributes { xmlSetProp(node, attribute, value) }
            return node
        }
        let rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
        guard let signedInfo = add(signature, "SignedInfo"),
            add(signedInfo, "CanonicalizationMethod", nil, [("Algorithm", XMLNamespace.excC14NString)]) != nil,
            add(signedInfo, "SignatureMethod", nil, [("Algorithm", rsaSHA256)]) != nil,
            let reference = add(signedInfo, "Reference", nil, [("URI", "#" + id)]),
            let transforms = add(reference, "Transforms"),
            add(transforms, "Transform", nil, [("Algorithm", enveloped)]) != nil,
            add(transforms, "Transform", nil, [("Algorithm", XMLNamespace.excC14NString)]) != nil,
            add(reference, "DigestMethod", nil, [("Algorithm", "http://www.w3.org/2001/04/xmlenc#sha256")]) != nil,
            let digestValue = add(reference, "DigestValue"),
            let signatureValue = add(signature, "SignatureValue")
        else {
            xmlFreeNode(signature)
            throw .signingFailed("out of memory")
        }
        if let certificate {
            guard let keyInfo = add(signature, "KeyInfo"), let data = add(keyInfo, "X509Data"),
                add(data, "X509Certificate", Base64.encode(certificate.derRepresentation)) != nil
            else {
                xmlFreeNode(signature)
                throw .signingFailed("out of memory")
            }
        }
        // Place it: after saml:Issuer when there is one (the SAML schema order), else first.
        if let issuer = LibXML.child(element, XMLNamespace.assertion, "Issuer") {
            xmlAddNextSibling(issuer, signature)
        } else if let first = element.pointee.children {
            xmlAddPrevSibling(first, signature)
        } else {
            xmlAddChild(element, signature)
        }
        do {
            let canonical = try document.canonicalize(element, excluding: signature, exclusive: true, inclusivePrefixes: [])
            xmlNodeSetContent(digestValue, Base64.encode(try HashFunction.sha256.hash(canonical)))
            let canonicalSignedInfo = try document.canonicalize(signedInfo, excluding: nil, exclusive: true, inclusivePrefixes: [])
            xmlNodeSetContent(signatureValue, Base64.encode(try key.signature(for: canonicalSignedInfo, padding: .pkcs1v15SHA256)))
        } catch let failure as SAMLPolicyFailure {
            throw .signingFailed(failure.reason)
        } catch let error as TVECryptoError {
            throw .signingFailed("signing failed: \(error.reason) [\(error.code)]")
        } catch {
            throw .signingFailed("signing failed: \(error)")
        }
    }
}
