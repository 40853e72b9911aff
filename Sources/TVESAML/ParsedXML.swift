internal import CTVEC14N
import Foundation

/// A node of a ``ParsedXML`` tree (valid while its document lives).
typealias XMLNode = UnsafeMutablePointer<tve_xml_node>

/// The node types of ``XMLNode/pointee/type``.
enum XMLNodeType {
    static let element = Int32(TVE_XML_ELEMENT)
    static let text = Int32(TVE_XML_TEXT)
    static let cdata = Int32(TVE_XML_CDATA)
    static let processingInstruction = Int32(TVE_XML_PI)
    static let comment = Int32(TVE_XML_COMMENT)
}

/// The verifier's read-only document: libxml2's tokenizer with the hardening of ``XMLDocument/parse(_:readOnly:)``
/// (size, UTF-8, no DOCTYPE, no network, no entity but the predefined ones, namespace-well-formed), feeding one arena
/// of nodes (`Sources/CTVEC14N/tvexml.c`) instead of libxml2's tree of separately allocated ones: at 50 KB that tree
/// cost more than the rest of a verification. The fuzzers hold the two to the same documents and canonical bytes.
final class ParsedXML {
    private let pointer: OpaquePointer
    let root: XMLNode

    private init(pointer: OpaquePointer, root: XMLNode) {
        self.pointer = pointer
        self.root = root
    }

    deinit { tve_xml_free(pointer) }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(SAMLError) -> ParsedXML {
        try XMLDocument.checkInput(bytes)
        var document: OpaquePointer? = nil
        // libxml2's first error, on the stack: read only when the parse fails.
        let (status, message) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { error in
            let status = bytes.withMemoryRebound(to: UInt8.self) { input in
                tve_xml_parse(input.baseAddress, input.count, &document, error.baseAddress, error.count)
            }
            guard Int(status) != TVE_XML_OK, let base = error.baseAddress else { return (status, "") }
            return (status, String(cString: base))
        }
        switch Int(status) {
        case TVE_XML_OK:
            guard let document, let root = tve_xml_root(document) else {
                throw .rejected([SAMLPolicyFailure(.malformedXML, "the document has no root element")])
            }
            return ParsedXML(pointer: document, root: root)
        case TVE_XML_NAMESPACE:
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML is not namespace-well-formed: \(message)")])
        case TVE_XML_DOCTYPE:
            throw .rejected([SAMLPolicyFailure(.doctype, "DOCTYPE declarations are refused")])
        case TVE_XML_NO_ROOT:
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the document has no root element")])
        default:
            throw .rejected([SAMLPolicyFailure(.malformedXML, "the XML does not parse: \(message.isEmpty ? "unknown error" : message)")])
        }
    }

    /// Runs `body` over the canonical form of `root`'s subtree without `excluded`'s subtree, in place; fails closed.
    ///
    /// Exclusive C14N without a PrefixList (every SAML signature TVEKit has seen) runs TVEKit's canonicalizer on this
    /// tree; anything else runs libxml2's on a libxml2 tree built from it.
    func withCanonicalForm<R>(
        _ root: XMLNode, excluding excluded: XMLNode?, exclusive: Bool, inclusivePrefixes: [String],
        limit: Int = 16 << 20, useLibxml2: Bool = false, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) throws(SAMLPolicyFailure) -> R {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status: Int32
        if exclusive, inclusivePrefixes.isEmpty, !useLibxml2 {
            status = tve_xml_exc_c14n(pointer, root, excluded, limit, &output, &length)
        } else {
            var cStrings: [UnsafeMutablePointer<CChar>?] = inclusivePrefixes.map { strdup($0) }
            cStrings.append(nil)
            defer { for pointer in cStrings { free(pointer) } }
            status = cStrings.withUnsafeMutableBufferPointer { prefixes in
                guard let base = prefixes.baseAddress else { return -1 }
                return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: prefixes.count) { rebound in
                    tve_xml_c14n_libxml2(
                        pointer, root, excluded, exclusive ? 1 : 0, inclusivePrefixes.isEmpty ? nil : rebound, limit, &output,
                        &length)
                }
            }
        }
        guard status == 0, let output, length > 0 else {
            throw SAMLPolicyFailure(
                .signatureCanonicalization,
                "canonicalization failed (a relative namespace URI, over 256 namespace renderings, or an oversized subtree)")
        }
        defer { tve_c14n_free(output) }
        return body(UnsafeBufferPointer(start: output, count: length))
    }

    /// The canonical form as bytes.
    func canonicalize(
        _ root: XMLNode, excluding excluded: XMLNode?, exclusive: Bool, inclusivePrefixes: [String], useLibxml2: Bool = false
    ) throws(SAMLPolicyFailure) -> [UInt8] {
        try withCanonicalForm(root, excluding: excluded, exclusive: exclusive, inclusivePrefixes: inclusivePrefixes, useLibxml2: useLibxml2)
        {
            Array($0)
        }
    }
}

/// Reading ``ParsedXML`` nodes: names compared on the C strings in place, no Swift string made per node.
enum XML {
    /// Compares lengths first, then bytes: most of the candidates differ in length.
    @inline(__always)
    private static func equals(_ text: UnsafePointer<CChar>?, _ length: UInt32, _ expected: StaticString) -> Bool {
        guard let text, Int(length) == expected.utf8CodeUnitCount else { return false }
        return memcmp(text, expected.utf8Start, expected.utf8CodeUnitCount) == 0
    }

    static func isElement(_ node: XMLNode, _ namespace: StaticString, _ localName: StaticString) -> Bool {
        node.pointee.type == XMLNodeType.element && equals(node.pointee.local, node.pointee.local_length, localName)
            && equals(node.pointee.uri, node.pointee.uri_length, namespace)
    }

    static func localName(_ node: XMLNode) -> String {
        node.pointee.local.map { String(cString: $0) } ?? ""
    }

    /// The element children, in order.
    static func elementChildren(_ node: XMLNode) -> [XMLNode] {
        var result: [XMLNode] = []
        var child = node.pointee.first
        while let current = child {
            if current.pointee.type == XMLNodeType.element { result.append(current) }
            child = current.pointee.next
        }
        return result
    }

    /// The number of element descendants of `node`, counting stops past `limit`.
    static func descendantElementCount(_ node: XMLNode, limit: Int) -> Int {
        var count = 0
        var stack: [XMLNode] = [node]
        while let current = stack.popLast(), count <= limit {
            var child = current.pointee.first
            while let element = child {
                if element.pointee.type == XMLNodeType.element {
                    count += 1
                    stack.append(element)
                }
                child = element.pointee.next
            }
        }
        return count
    }

    /// Whether every non-element child is whitespace-only text (no text content mixed into structure).
    static func hasOnlyWhitespaceText(_ node: XMLNode) -> Bool {
        var child = node.pointee.first
        while let current = child {
            switch current.pointee.type {
            case XMLNodeType.element: break
            case XMLNodeType.text:
                guard let text = current.pointee.text else { return false }
                for index in 0..<current.pointee.text_length {
                    let byte = UInt8(bitPattern: text[index])
                    if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 { return false }
                }
            default: return false
            }
            child = current.pointee.next
        }
        return true
    }

    static func children(_ node: XMLNode, _ namespace: StaticString, _ localName: StaticString) -> [XMLNode] {
        var result: [XMLNode] = []
        var child = node.pointee.first
        while let current = child {
            if isElement(current, namespace, localName) { result.append(current) }
            child = current.pointee.next
        }
        return result
    }

    /// Runs `body` on each child element with that name, in order (no array of them).
    static func forEachChild(_ node: XMLNode, _ namespace: StaticString, _ localName: StaticString, _ body: (XMLNode) -> Void) {
        var child = node.pointee.first
        while let current = child {
            if isElement(current, namespace, localName) { body(current) }
            child = current.pointee.next
        }
    }

    static func child(_ node: XMLNode, _ namespace: StaticString, _ localName: StaticString) -> XMLNode? {
        var child = node.pointee.first
        while let current = child {
            if isElement(current, namespace, localName) { return current }
            child = current.pointee.next
        }
        return nil
    }

    /// An attribute without a namespace, or `nil`. Namespaced attributes of the same local name (`pol:ID`) never match.
    static func attribute(_ node: XMLNode, _ name: StaticString) -> String? {
        guard let attributes = node.pointee.attributes else { return nil }
        for index in 0..<Int(node.pointee.attribute_count) {
            let attribute = attributes[index]
            if attribute.uri == nil, equals(attribute.local, attribute.local_length, name) {
                guard let value = attribute.value else { return "" }
                return string(value, attribute.value_length)
            }
        }
        return nil
    }

    private static func string(_ bytes: UnsafePointer<CChar>, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The concatenation of every text and CDATA descendant.
    static func text(_ node: XMLNode) -> String {
        // The usual case, one text child, is read in place.
        if let child = node.pointee.first, child.pointee.next == nil, child.pointee.type == XMLNodeType.text,
            let text = child.pointee.text
        {
            return string(text, child.pointee.text_length)
        }
        var bytes: [UInt8] = []
        var stack: [XMLNode] = []
        var child = node.pointee.last
        while let current = child {
            stack.append(current)
            child = current.pointee.prev
        }
        while let current = stack.popLast() {
            switch current.pointee.type {
            case XMLNodeType.text, XMLNodeType.cdata:
                if let text = current.pointee.text {
                    bytes.append(contentsOf: UnsafeRawBufferPointer(start: text, count: current.pointee.text_length))
                }
            case XMLNodeType.element:
                var next = current.pointee.last
                while let inner = next {
                    stack.append(inner)
                    next = inner.pointee.prev
                }
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` with surrounding XML whitespace removed (for values such as URIs and IDs).
    static func trimmedText(_ node: XMLNode) -> String {
        let text = text(node)
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}
