internal import CTVEC14N
import Foundation
import TVECrypto

/// Verifies SAML 2.0 Responses from a TV provider's IdP: hardened parsing, the SAML XML-DSig profile with pinned
/// keys, and the Web SSO semantics. Safe to share between threads and tasks.
///
/// Checks, in order (the first failure of the first three groups stops verification; semantic failures are all
/// collected):
/// 1. input: size, UTF-8, XML or Base64 (`SAMLResponse` value, line breaks allowed), no DOCTYPE;
/// 2. structure: root `samlp:Response`; no comment or processing instruction inside it; `ID`s (un-namespaced
///    attributes only) unique; exactly one `saml:Assertion` in the whole document, a direct child of the Response, and
///    no `EncryptedAssertion`; every `ds:Signature` a direct child of the Response or the Assertion, one at most each;
/// 3. signatures: every signature present must verify (profile, algorithms, pinned key, digest), and at least one
///    must cover the Assertion (its own or the Response's);
/// 4. semantics: Status Success; Destination; InResponseTo; Issuers; NameID; a bearer SubjectConfirmation for the
///    ACS URL still valid; Conditions window; Audience; an AuthnStatement.
///
/// One-time use is the caller's: keep ``SSOAssertion/assertionID`` in a replay cache until
/// ``SSOAssertion/notOnOrAfter`` (SAML profiles §4.1.4.5) and refuse a response whose Assertion ID was seen.
public struct SAMLResponseVerifier: Sendable {
    /// The configuration the verifier checks responses against.
    public let configuration: SAMLVerifierConfiguration
    private let keys: [RSAPublicKey]
    private let skewSeconds: TimeInterval

    /// The largest input accepted: 1 MiB of XML (or its Base64).
    public static let maximumInputBytes = 1 << 20

    /// Creates a verifier after checking `configuration`.
    /// - Throws: ``SAMLError`` with code ``SAMLError/Code/invalidConfiguration`` when there is no IdP key, no
    ///   ``SAMLVerifierConfiguration/requestID`` while ``SAMLVerifierConfiguration/allowsIdPInitiated`` is off, an empty
    ///   IdP entity ID, SP entity ID or ACS URL, or a clock skew outside 0–600 seconds.
    public init(configuration: SAMLVerifierConfiguration) throws {
        guard !configuration.idpKeys.isEmpty else { throw SAMLError.invalidConfiguration("no IdP key or certificate") }
        guard configuration.requestID != nil || configuration.allowsIdPInitiated else {
            throw SAMLError.invalidConfiguration("no request ID: set allowsIdPInitiated to accept unsolicited responses")
        }
        for (name, value) in [
            ("IdP entity ID", configuration.idpEntityID), ("SP entity ID", configuration.spEntityID),
            ("ACS URL", configuration.acsURL),
        ] where value.isEmpty {
            throw SAMLError.invalidConfiguration("the \(name) is empty")
        }
        let skew =
            Double(configuration.clockSkew.components.seconds)
            + Double(configuration.clockSkew.components.attoseconds) / 1e18
        guard skew >= 0, skew <= 600 else { throw SAMLError.invalidConfiguration("the clock skew must be between 0 and 600 seconds") }
        keys = configuration.idpKeys
        self.configuration = configuration
        self.skewSeconds = skew
    }

    /// Verifies a response given as XML or as the Base64 `SAMLResponse` value.
    /// - Throws: ``SAMLError`` with code ``SAMLError/Code/rejected`` and the failed rules.
    public func verify(_ input: some DataProtocol) throws(SAMLError) -> SSOAssertion {
        let bytes = [UInt8](input)
        guard bytes.count <= Self.maximumInputBytes * 4 / 3 + 4096 else {
            throw .rejected([
                SAMLPolicyFailure(.inputSize, "the input is \(bytes.count) bytes; the limit is \(Self.maximumInputBytes) of XML")
            ])
        }
        let xml = try Self.xmlBytes(bytes)
        return try verify(Self.parse(xml))
    }

    static func parse(_ xml: [UInt8]) throws(SAMLError) -> ParsedXML {
        do {
            return try xml.withUnsafeBytes { try ParsedXML.parse($0) }
        } catch let error as SAMLError {
            throw error
        } catch {
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML does not parse")])
        }
    }

    /// Raw XML when the input starts with `<` (after whitespace and a UTF-8 BOM), else Base64.
    static func xmlBytes(_ bytes: [UInt8]) throws(SAMLError) -> [UInt8] {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { throw .rejected([SAMLPolicyFailure(.inputEncoding, "the input is empty")]) }
        if bytes[start] == UInt8(ascii: "<") { return start == 0 ? bytes : Array(bytes[start...]) }
        do {
            return try Base64.decode(bytes: bytes[start...], options: .ignoringWhitespace)
        } catch {
            throw .rejected([
                SAMLPolicyFailure(.inputEncoding, "the input is neither XML nor Base64: \((error as? TVECryptoError)?.reason ?? "invalid")")
            ])
        }
    }

    func verify(_ document: ParsedXML) throws(SAMLError) -> SSOAssertion {
        let root = document.root
        guard XML.isElement(root, XMLNamespace.protocol_, "Response") else {
            throw .rejected([SAMLPolicyFailure(.root, "the root element is not samlp:Response")])
        }
        let scan = try Self.scan(root)
        guard scan.assertions.count == 1, scan.encryptedAssertions == 0 else {
            throw .rejected([
                SAMLPolicyFailure(
                    .assertionCount,
                    scan.encryptedAssertions > 0
                        ? "encrypted assertions are not supported"
                        : "the document holds \(scan.assertions.count) saml:Assertion elements; exactly one is required")
            ])
        }
        let assertion = scan.assertions[0]
        guard assertion.pointee.parent == root else {
            throw .rejected([SAMLPolicyFailure(.assertionPosition, "the Assertion is not a direct child of the Response")])
        }
        var signatureOf: [XMLNode: XMLNode] = [:]
        for signature in scan.signatures {
            guard let parent = signature.pointee.parent, parent == root || parent == assertion, signatureOf[parent] == nil else {
                throw .rejected([
                    SAMLPolicyFailure(
                        .signaturePosition, "a ds:Signature is not the one direct child signature of the Response or the Assertion")
                ])
            }
            signatureOf[parent] = signature
        }
        guard !signatureOf.isEmpty else {
            throw .rejected([SAMLPolicyFailure(.signatureMissing, "neither the Response nor the Assertion is signed")])
        }
        for (parent, signature) in signatureOf.sorted(by: { $0.key == root && $1.key != root }) {
            guard let id = XML.attribute(parent, "ID"), !id.isEmpty else {
                throw .rejected([SAMLPolicyFailure(.signatureProfile, "the signed element has no ID")])
            }
            do {
                try XMLSignature.verify(signature, parent: parent, parentID: id, in: document, keys: keys)
            } catch {
                throw .rejected([error])
            }
        }
        return try semantics(
            root: root, assertion: assertion, signedResponse: signatureOf[root] != nil,
            signedAssertion: signatureOf[assertion] != nil)
    }

    struct Scan {
        var assertions: [XMLNode] = []
        var encryptedAssertions = 0
        var signatures: [XMLNode] = []
    }

    /// One iterative pass over the tree under the root: comments, IDs, assertions, signatures.
    static func scan(_ root: XMLNode) throws(SAMLError) -> Scan {
        var scan = Scan()
        var ids: Set<String> = []
        var stack: [XMLNode] = [root]
        while let node = stack.popLast() {
            switch node.pointee.type {
            case XMLNodeType.comment, XMLNodeType.processingInstruction:
                throw .rejected([SAMLPolicyFailure(.commentOrPI, "a comment or processing instruction inside the response")])
            case XMLNodeType.element:
                if let id = XML.attribute(node, "ID") {
                    guard ids.insert(id).inserted else {
                        throw .rejected([SAMLPolicyFailure(.duplicateID, "two elements have the ID \"\(printable(id))\"")])
                    }
                }
                if XML.isElement(node, XMLNamespace.assertion, "Assertion") { scan.assertions.append(node) }
                if XML.isElement(node, XMLNamespace.assertion, "EncryptedAssertion") { scan.encryptedAssertions += 1 }
                if XML.isElement(node, XMLNamespace.dsig, "Signature") { scan.signatures.append(node) }
                var child = node.pointee.last
                while let current = child {
                    if current.pointee.type != XMLNodeType.text { stack.append(current) }
                    child = current.pointee.prev
                }
            default:
                break
            }
        }
        return scan
    }

    static func printable(_ text: String) -> String {
        let clipped = String(text.unicodeScalars.prefix(64).map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return text.unicodeScalars.count > 64 ? clipped + "…" : clipped
    }

    // MARK: Semantics

    private func semantics(root: XMLNode, assertion: XMLNode, signedResponse: Bool, signedAssertion: Bool) throws(SAMLError) -> SSOAssertion
    {
        let saml = XMLNamespace.assertion
        let now = configuration.clock().timeIntervalSince1970
        var failures: [SAMLPolicyFailure] = []
        func fail(_ rule: SAMLPolicyFailure.Rule, _ reason: String) { failures.append(SAMLPolicyFailure(rule, reason)) }

        // Response.
        let statusCode = XML.child(root, XMLNamespace.protocol_, "Status").flatMap { XML.child($0, XMLNamespace.protocol_, "StatusCode") }
        if statusCode.flatMap({ XML.attribute($0, "Value") }) != "urn:oasis:names:tc:SAML:2.0:status:Success" {
            fail(.responseStatus, "the Status is not Success")
        }
        if XML.attribute(root, "Destination") != configuration.acsURL {
            fail(.responseDestination, "the Response Destination is not the ACS URL")
        }
        if let requestID = configuration.requestID, XML.attribute(root, "InResponseTo") != requestID {
            fail(.responseInResponseTo, "the Response does not answer the expected request")
        }
        let responseIssuers = XML.children(root, saml, "Issuer")
        if responseIssuers.count > 1 || responseIssuers.first.map({ XML.trimmedText($0) != configuration.idpEntityID }) == true {
            fail(.responseIssuer, "the Response Issuer is not the IdP entity ID")
        }
        // Assertion.
        let assertionIssuers = XML.children(assertion, saml, "Issuer")
        let issuer = assertionIssuers.first.map { XML.trimmedText($0) } ?? ""
        if assertionIssuers.count != 1 || issuer != configuration.idpEntityID {
            fail(.assertionIssuer, "the Assertion Issuer is not the IdP entity ID")
        }
        let subject = XML.children(assertion, saml, "Subject")
        let nameIDs = subject.count == 1 ? XML.children(subject[0], saml, "NameID") : []
        if nameIDs.count != 1 || XML.text(nameIDs[0]).isEmpty || !XML.elementChildren(nameIDs[0]).isEmpty {
            fail(.assertionNameID, "the Assertion has no single text NameID")
        }
        let confirmations = subject.count == 1 ? XML.children(subject[0], saml, "SubjectConfirmation") : []
        let bearerConfirmed = confirmations.contains { confirmation in
            guard XML.attribute(confirmation, "Method") == "urn:oasis:names:tc:SAML:2.0:cm:bearer" else { return false }
            return XML.children(confirmation, saml, "SubjectConfirmationData").contains { data in
                guard XML.attribute(data, "Recipient") == configuration.acsURL,
                    let notOnOrAfter = XML.attribute(data, "NotOnOrAfter").flatMap(XMLDateTime.parse),
                    now - skewSeconds < notOnOrAfter.timeIntervalSince1970
                else { return false }
                if let notBefore = XML.attribute(data, "NotBefore") {
                    guard let date = XMLDateTime.parse(notBefore), date.timeIntervalSince1970 <= now + skewSeconds else { return false }
                }
                if let requestID = configuration.requestID, XML.attribute(data, "InResponseTo") != requestID { return false }
                return true
            }
        }
        if !bearerConfirmed {
            fail(.assertionSubjectConfirmation, "no bearer SubjectConfirmation for the ACS URL is valid now")
        }
        let conditions = XML.children(assertion, saml, "Conditions")
        var notBefore: Date? = nil
        var notOnOrAfter: Date? = nil
        var notOnOrAfterText: String? = nil
        if conditions.count == 1 {
            if let text = XML.attribute(conditions[0], "NotBefore") {
                notBefore = XMLDateTime.parse(text)
                if let date = notBefore {
                    if date.timeIntervalSince1970 > now + skewSeconds { fail(.assertionNotBefore, "the Assertion is not valid yet") }
                } else {
                    fail(.assertionNotBefore, "Conditions NotBefore is not a UTC xs:dateTime")
                }
            }
            if let text = XML.attribute(conditions[0], "NotOnOrAfter") {
                notOnOrAfterText = text
                notOnOrAfter = XMLDateTime.parse(text)
                if let date = notOnOrAfter {
                    if now - skewSeconds >= date.timeIntervalSince1970 { fail(.assertionNotOnOrAfter, "the Assertion has expired") }
                } else {
                    fail(.assertionNotOnOrAfter, "Conditions NotOnOrAfter is not a UTC xs:dateTime")
                }
            }
            let restrictions = XML.children(conditions[0], saml, "AudienceRestriction")
            let audienceOK =
                !restrictions.isEmpty
                && restrictions.allSatisfy { restriction in
                    XML.children(restriction, saml, "Audience").contains { XML.trimmedText($0) == configuration.spEntityID }
                }
            if !audienceOK { fail(.assertionAudience, "the AudienceRestriction does not name this SP") }
        } else {
            fail(.assertionAudience, "the Assertion has no single Conditions element with an AudienceRestriction")
        }
        let authnStatements = XML.children(assertion, saml, "AuthnStatement")
        if authnStatements.isEmpty { fail(.assertionAuthnStatement, "the Assertion has no AuthnStatement") }
        guard failures.isEmpty else { throw .rejected(failures) }

        // Values, from the verified Assertion only.
        var attributes: [SSOAttribute] = []
        XML.forEachChild(assertion, saml, "AttributeStatement") { statement in
            var count = 0
            XML.forEachChild(statement, saml, "Attribute") { _ in count += 1 }
            attributes.reserveCapacity(attributes.count + count)
            XML.forEachChild(statement, saml, "Attribute") { attribute in
                var valueCount = 0
                XML.forEachChild(attribute, saml, "AttributeValue") { _ in valueCount += 1 }
                var values: [String] = []
                values.reserveCapacity(valueCount)
                XML.forEachChild(attribute, saml, "AttributeValue") { values.append(XML.text($0)) }
                attributes.append(SSOAttribute(name: XML.attribute(attribute, "Name") ?? "", values: values))
            }
        }
        let authn = authnStatements[0]
        return SSOAssertion(
            nameID: XML.text(nameIDs[0]), nameIDFormat: XML.attribute(nameIDs[0], "Format"), attributes: attributes,
            issuer: issuer, sessionIndex: XML.attribute(authn, "SessionIndex"),
            sessionNotOnOrAfter: XML.attribute(authn, "SessionNotOnOrAfter").flatMap(XMLDateTime.parse),
            authnInstant: XML.attribute(authn, "AuthnInstant").flatMap(XMLDateTime.parse),
            notBefore: notBefore, notOnOrAfter: notOnOrAfter, notOnOrAfterText: notOnOrAfterText,
            assertionID: XML.attribute(assertion, "ID") ?? "", signedResponse: signedResponse, signedAssertion: signedAssertion)
    }
}

/// xs:dateTime in UTC, as SAML requires: `YYYY-MM-DDThh:mm:ss[.fraction]Z`.
enum XMLDateTime {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            var scale = 0.1
            for index in 20..<(bytes.count - 1) {
                guard (48...57).contains(bytes[index]) else { return nil }
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
            }
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        guard day <= CivilTime.daysInMonth(year: year, month: month) else { return nil }
        let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
