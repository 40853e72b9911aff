internal import CLibXML2
internal import CTVEShims
import Foundation

typealias XMLNode = UnsafeMutablePointer<xmlNode>

/// libxml2's global initialisation, run once (swift_once) before the first parse.
private let libxml2Initialized: Void = { xmlInitParser() }()

enum XMLNamespace {
    static let protocol_ = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertion = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let dsig = "http://www.w3.org/2000/09/xmldsig#"
    static let excC14N = "http://www.w3.org/2001/10/xml-exc-c14n#"
}

/// A parsed, hardened XML document: one parse per input; every later read comes from this tree.
///
/// Parsing refuses any DOCTYPE or entity declaration (checked on the bytes before libxml2 sees them, and on the tree
/// after), loads nothing from the network, substitutes no entity, reads UTF-8 only and captures libxml2's errors
/// instead of letting it print them.
final class XMLDocument {
    let pointer: xmlDocPtr
    let root: XMLNode

    static let maximumInputBytes = 1 << 20
    static let parseOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    private init(pointer: xmlDocPtr, root: XMLNode) {
        self.pointer = pointer
        self.root = root
    }

    deinit { xmlFreeDoc(pointer) }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(SAMLError) -> XMLDocument {
        _ = libxml2Initialized
        guard bytes.count <= maximumInputBytes else {
            throw .rejected([SAMLPolicyFailure(.inputSize, "the XML is \(bytes.count) bytes; the limit is \(maximumInputBytes)")])
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the input is empty")])
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .rejected([SAMLPolicyFailure(.inputEncoding, "the XML is not valid UTF-8")])
        }
        if contains(bytes, "<!DOCTYPE") || contains(bytes, "<!ENTITY") {
            throw .rejected([SAMLPolicyFailure(.doctype, "DOCTYPE and entity declarations are refused")])
        }
        tve_xml_errors_begin()
        let parsed = "UTF-8".withCString { encoding in
            xmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, encoding, parseOptions)
        }
        guard let document = parsed else {
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML does not parse: \(takeError())")])
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

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard bytes.count >= count, count > 0 else { return false }
        let first = needle.utf8Start[0]
        var index = 0
        while index <= bytes.count - count {
            if bytes[index] == first {
                var matched = 1
                while matched < count, bytes[index + matched] == needle.utf8Start[matched] { matched += 1 }
                if matched == count { return true }
            }
            index += 1
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

    /// The canonical form of `root`'s subtree without `excluded`'s subtree; fails closed.
    func canonicalize(_ root: XMLNode, excluding excluded: XMLNode?, exclusive: Bool, inclusivePrefixes: [String],
                      limit: Int = 16 << 20) throws(SAMLPolicyFailure) -> [UInt8] {
        tve_xml_errors_begin()
        var cStrings: [UnsafeMutablePointer<CChar>?] = inclusivePrefixes.map { strdup($0) }
        cStrings.append(nil)
        defer { for pointer in cStrings { free(pointer) } }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status: Int32 = cStrings.withUnsafeMutableBufferPointer { prefixes in
            guard let base = prefixes.baseAddress else { return -1 }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: prefixes.count) { rebound in
                tve_c14n_subtree(UnsafeMutableRawPointer(pointer), UnsafeMutableRawPointer(root),
                                 excluded.map { UnsafeMutableRawPointer($0) }, exclusive ? 1 : 0,
                                 inclusivePrefixes.isEmpty ? nil : rebound, limit, &output, &length)
            }
        }
        guard status == 0, let output, length > 0 else {
            throw SAMLPolicyFailure(.signatureCanonicalization, "canonicalization failed: \(Self.takeError())")
        }
        defer { tve_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
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

/// Reading nodes.
enum XML {
    static func isElement(_ node: XMLNode, _ namespace: String, _ localName: String) -> Bool {
        node.pointee.type == XML_ELEMENT_NODE && self.localName(node) == localName && namespaceURI(node) == namespace
    }

    static func localName(_ node: XMLNode) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    static func namespaceURI(_ node: XMLNode) -> String? {
        node.pointee.ns?.pointee.href.map { String(cString: $0) }
    }

    /// The element children, in order.
    static func elementChildren(_ node: XMLNode) -> [XMLNode] {
        var result: [XMLNode] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(current) }
            child = current.pointee.next
        }
        return result
    }

    /// Whether every non-element child is whitespace-only text (no text content mixed into structure).
    static func hasOnlyWhitespaceText(_ node: XMLNode) -> Bool {
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: break
            case XML_TEXT_NODE:
                if let content = current.pointee.content {
                    var pointer = content
                    while pointer.pointee != 0 {
                        let byte = pointer.pointee
                        if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 { return false }
                        pointer += 1
                    }
                }
            default: return false
            }
            child = current.pointee.next
        }
        return true
    }

    static func children(_ node: XMLNode, _ namespace: String, _ localName: String) -> [XMLNode] {
        elementChildren(node).filter { isElement($0, namespace, localName) }
    }

    static func child(_ node: XMLNode, _ namespace: String, _ localName: String) -> XMLNode? {
        elementChildren(node).first { isElement($0, namespace, localName) }
    }

    /// An attribute without a namespace, or `nil`.
    static func attribute(_ node: XMLNode, _ name: String) -> String? {
        guard let value = xmlGetNoNsProp(node, name) else { return nil }
        defer { clibxml2_xmlFree(value) }
        return String(cString: value)
    }

    /// The concatenation of every text and CDATA descendant.
    static func text(_ node: XMLNode) -> String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { clibxml2_xmlFree(content) }
        return String(cString: content)
    }

    /// `text` with surrounding XML whitespace removed (for values such as URIs and IDs).
    static func trimmedText(_ node: XMLNode) -> String {
        text(node).trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n"))
    }
}
