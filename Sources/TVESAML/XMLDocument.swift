internal import CLibXML2
internal import CTVEC14N
internal import CTVEShims
import Foundation

/// A node of libxml2's tree (``XMLDocument``: signing, and the reference canonicalizer the tests compare with).
typealias LibXMLNode = UnsafeMutablePointer<xmlNode>

/// libxml2's global initialisation, run once (swift_once) before the first parse.
private let libxml2Initialized: Void = { xmlInitParser() }()

/// Names as `StaticString`s: compared with libxml2's C strings in place, with no conversion per call.
enum XMLNamespace {
    static let protocol_: StaticString = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertion: StaticString = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let dsig: StaticString = "http://www.w3.org/2000/09/xmldsig#"
    static let excC14N: StaticString = "http://www.w3.org/2001/10/xml-exc-c14n#"
    static let excC14NString = "http://www.w3.org/2001/10/xml-exc-c14n#"
}

/// A parsed, hardened XML document: one parse per input; every later read comes from this tree.
///
/// Parsing refuses any DOCTYPE or entity declaration (checked on the bytes before libxml2 sees them, and on the tree
/// after), loads nothing from the network, substitutes no entity, reads UTF-8 only and captures libxml2's errors
/// instead of letting it print them.
final class XMLDocument {
    let pointer: xmlDocPtr
    let root: LibXMLNode

    static let maximumInputBytes = 1 << 20
    /// No network, no error printed, and the encoding declaration ignored: the bytes are read as the UTF-8 they were
    /// checked to be, with no NUL byte, so that libxml2's own detection can only find UTF-8 (naming "UTF-8" as the
    /// encoding instead would send the whole input through libxml2's UTF-8 converter: a twentieth of a 50 KB parse).
    static let parseOptions = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_IGNORE_ENC.rawValue)
    /// For documents that are only read: small text is stored inside the node (fewer allocations).
    static let readOnlyParseOptions = parseOptions | Int32(XML_PARSE_COMPACT.rawValue)

    private init(pointer: xmlDocPtr, root: LibXMLNode) {
        self.pointer = pointer
        self.root = root
    }

    deinit { xmlFreeDoc(pointer) }

    /// The checks on the bytes both parsers run first: size, UTF-8 without NUL, no DOCTYPE or entity declaration.
    static func checkInput(_ bytes: UnsafeRawBufferPointer) throws(SAMLError) {
        _ = libxml2Initialized
        guard bytes.count <= maximumInputBytes else {
            throw .rejected([SAMLPolicyFailure(.inputSize, "the XML is \(bytes.count) bytes; the limit is \(maximumInputBytes)")])
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the input is empty")])
        }
        // Validated in place (no copy): overlong forms, surrogates and bytes above U+10FFFF are refused.
        guard (try? UTF8Span(validating: bytes.assumingMemoryBound(to: UInt8.self).span)) != nil else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the XML is not valid UTF-8")])
        }
        // XML has no U+0000; without NUL bytes, libxml2's encoding detection cannot take the input for UTF-16 or UCS-4.
        guard memchr(base, 0, bytes.count) == nil else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the XML holds a NUL byte")])
        }
        if hasDeclaration(bytes) {
            throw .rejected([SAMLPolicyFailure(.doctype, "DOCTYPE and entity declarations are refused")])
        }
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, readOnly: Bool = false) throws(SAMLError) -> XMLDocument {
        try checkInput(bytes)
        guard let base = bytes.baseAddress else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the input is empty")])
        }
        tve_xml_errors_begin()
        defer { tve_xml_errors_end() }
        guard let context = xmlNewParserCtxt() else {
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML parser cannot be created")])
        }
        defer { xmlFreeParserCtxt(context) }
        let parsed = xmlCtxtReadMemory(
            context, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, readOnly ? readOnlyParseOptions : parseOptions)
        guard let document = parsed else {
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML does not parse: \(takeError())")])
        }
        // Namespace errors (an undeclared prefix) leave a tree behind, with the element outside any namespace: refuse
        // it, so that no reader sees a different structure than a namespace-aware one would.
        guard context.pointee.wellFormed != 0, context.pointee.nsWellFormed != 0 else {
            xmlFreeDoc(document)
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML is not namespace-well-formed: \(takeError())")])
        }
        guard document.pointee.intSubset == nil, document.pointee.extSubset == nil else {
            xmlFreeDoc(document)
            throw .rejected([SAMLPolicyFailure(.doctype, "DOCTYPE declarations are refused")])
        }
        guard let root = xmlDocGetRootElement(document) else {
            xmlFreeDoc(document)
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the document has no root element")])
        }
        return XMLDocument(pointer: document, root: root)
    }

    /// Whether the bytes hold `<!DOCTYPE` or `<!ENTITY` anywhere. This also refuses those words inside a comment or
    /// CDATA section: it fails closed, before any parser runs. It looks for `!`, rare in SAML, with memchr (one call
    /// per `!`, not per `<`).
    private static func hasDeclaration(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let doctype: StaticString = "DOCTYPE"
        let entity: StaticString = "ENTITY"
        func follows(_ word: StaticString, at index: Int) -> Bool {
            guard bytes.count - index >= word.utf8CodeUnitCount else { return false }
            return memcmp(base + index, word.utf8Start, word.utf8CodeUnitCount) == 0
        }
        var offset = 1
        while offset < bytes.count, let found = memchr(base + offset, 0x21, bytes.count - offset) {
            let index = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if base[index - 1] == 0x3C, follows(doctype, at: index + 1) || follows(entity, at: index + 1) { return true }
            offset = index + 1
        }
        return false
    }

    static func takeError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = tve_xml_errors_take(&buffer, buffer.count)
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return message.isEmpty ? "unknown error" : message
    }

    // MARK: Canonicalization

    /// Which canonicalizer runs.
    enum Canonicalizer {
        /// TVEKit's exclusive C14N (`tve_exc_c14n_subtree`) where it applies (exclusive, no PrefixList), else libxml2.
        case preferred
        /// libxml2's `xmlC14NExecute` (the reference the fuzzer compares TVEKit's with).
        case libxml2
    }

    /// The canonical form of `root`'s subtree without `excluded`'s subtree; fails closed.
    func canonicalize(
        _ root: LibXMLNode, excluding excluded: LibXMLNode?, exclusive: Bool, inclusivePrefixes: [String],
        limit: Int = 16 << 20, using canonicalizer: Canonicalizer = .preferred
    ) throws(SAMLPolicyFailure) -> [UInt8] {
        try withCanonicalForm(
            root, excluding: excluded, exclusive: exclusive, inclusivePrefixes: inclusivePrefixes, limit: limit,
            using: canonicalizer
        ) { Array($0) }
    }

    /// Runs `body` over the canonical form in place (no copy); fails closed.
    ///
    /// Exclusive C14N without a PrefixList (every SAML signature TVEKit has seen) runs TVEKit's canonicalizer, which
    /// walks only the signed subtree: libxml2's walks the whole document from the root, with list allocations per
    /// element, and cost a third of a 50 KB verification. The two give identical bytes (the FuzzC14N fuzzer checks
    /// it on every element); anything else runs libxml2's.
    func withCanonicalForm<R>(
        _ root: LibXMLNode, excluding excluded: LibXMLNode?, exclusive: Bool, inclusivePrefixes: [String],
        limit: Int = 16 << 20, using canonicalizer: Canonicalizer = .preferred,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) throws(SAMLPolicyFailure) -> R {
        tve_xml_errors_begin()
        defer { tve_xml_errors_end() }
        if canonicalizer == .preferred, exclusive, inclusivePrefixes.isEmpty {
            var output: UnsafeMutablePointer<UInt8>? = nil
            var length = 0
            guard
                tve_exc_c14n_subtree(
                    UnsafeMutableRawPointer(pointer), UnsafeMutableRawPointer(root),
                    excluded.map { UnsafeMutableRawPointer($0) }, limit, &output, &length) == 0,
                let output, length > 0
            else {
                throw SAMLPolicyFailure(
                    .signatureCanonicalization,
                    "canonicalization failed (a relative namespace URI, an entity reference, over 256 levels or namespace renderings, or an oversized subtree)"
                )
            }
            defer { tve_c14n_free(output) }
            return body(UnsafeBufferPointer(start: output, count: length))
        }
        var cStrings: [UnsafeMutablePointer<CChar>?] = inclusivePrefixes.map { strdup($0) }
        cStrings.append(nil)
        defer { for pointer in cStrings { free(pointer) } }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status: Int32 = cStrings.withUnsafeMutableBufferPointer { prefixes in
            guard let base = prefixes.baseAddress else { return -1 }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: prefixes.count) { rebound in
                tve_c14n_subtree(
                    UnsafeMutableRawPointer(pointer), UnsafeMutableRawPointer(root),
                    excluded.map { UnsafeMutableRawPointer($0) }, exclusive ? 1 : 0,
                    inclusivePrefixes.isEmpty ? nil : rebound, limit, &output, &length)
            }
        }
        guard status == 0, let output, length > 0 else {
            throw SAMLPolicyFailure(.signatureCanonicalization, "canonicalization failed: \(Self.takeError())")
        }
        defer { tve_c14n_free(output) }
        return body(UnsafeBufferPointer(start: output, count: length))
    }

    // MARK: Serialization

    /// The document as UTF-8 XML text.
    func serialized() -> [UInt8] {
        var memory: UnsafeMutablePointer<xmlChar>? = nil
        var size: Int32 = 0
        "UTF-8".withCString { xmlDocDumpMemoryEnc(pointer, &memory, &size, $0) }
        guard let memory, size > 0 else { return [] }
        defer { clibxml2_xmlFree(memory) }
        return Array(UnsafeBufferPointer(start: memory, count: Int(size)))
    }
}

/// Reading libxml2's nodes (the signer's).
enum LibXML {
    /// Compared on the C strings: no Swift string is made per node.
    static func isElement(_ node: LibXMLNode, _ namespace: StaticString, _ localName: StaticString) -> Bool {
        guard node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name, xmlStrEqual(name, localName.utf8Start) == 1,
            let href = node.pointee.ns?.pointee.href
        else { return false }
        return xmlStrEqual(href, namespace.utf8Start) == 1
    }

    static func localName(_ node: LibXMLNode) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    static func child(_ node: LibXMLNode, _ namespace: StaticString, _ localName: StaticString) -> LibXMLNode? {
        var child = node.pointee.children
        while let current = child {
            if isElement(current, namespace, localName) { return current }
            child = current.pointee.next
        }
        return nil
    }

    /// An attribute without a namespace, or `nil`.
    static func attribute(_ node: LibXMLNode, _ name: StaticString) -> String? {
        var property = node.pointee.properties
        while let attribute = property {
            if attribute.pointee.ns == nil, let attributeName = attribute.pointee.name, xmlStrEqual(attributeName, name.utf8Start) == 1 {
                guard let value = xmlNodeListGetString(node.pointee.doc, attribute.pointee.children, 1) else { return "" }
                defer { clibxml2_xmlFree(value) }
                return String(cString: value)
            }
            property = attribute.pointee.next
        }
        return nil
    }
}
