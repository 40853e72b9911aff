internal import CLibXML2
internal import CTVEC14N
import Foundation

/// Entry points for the SAML fuzzers (`Fuzz/FuzzSAMLParser`, `FuzzC14N`, `FuzzSAMLVerify`), whose invariant checks
/// live in `TVEFuzzSupport`. They expose internal steps read-only and never trap.
package enum SAMLFuzzingHooks {
    /// What the verifier's parser and libxml2's tree parser made of one input.
    package struct ParseOutcome: Sendable {
        /// The first failed rule of the verifier's parse and structural scan, or nil.
        package var rule: String?
        /// Whether the verifier's parser accepted the input.
        package var accepted: Bool
        /// Whether libxml2's tree parser, with the same checks, accepted it.
        package var libxml2Accepted: Bool
    }

    /// Parses with the verifier's parser and runs the structural scan; parses again with libxml2's tree parser.
    package static func parseAndScan(_ data: UnsafeRawBufferPointer) -> ParseOutcome {
        let libxml2Accepted = (try? XMLDocument.parse(data, readOnly: true)) != nil
        do {
            let document = try ParsedXML.parse(data)
            do {
                _ = try SAMLResponseVerifier.scan(document.root)
                return ParseOutcome(rule: nil, accepted: true, libxml2Accepted: libxml2Accepted)
            } catch {
                return ParseOutcome(rule: error.failures.first?.rule.code ?? "", accepted: true, libxml2Accepted: libxml2Accepted)
            }
        } catch {
            return ParseOutcome(rule: error.failures.first?.rule.code ?? "", accepted: false, libxml2Accepted: libxml2Accepted)
        }
    }

    /// The canonical forms of one element by both trees; `nil` forms are failures.
    package struct CanonicalForms: Sendable {
        /// Exclusive C14N by libxml2 on its own tree of the input (the reference).
        package var libxml2: [UInt8]?
        /// Exclusive C14N by TVEKit on the verifier's tree.
        package var tvekit: [UInt8]?
        /// Canonical XML 1.0 (inclusive) by libxml2 on its own tree of the input (for the root and the elements with a
        /// Signature left out; nil for the others).
        package var inclusiveLibxml2: [UInt8]?
        /// Canonical XML 1.0 by libxml2 on the tree the verifier builds from its own for that case.
        package var inclusiveRebuilt: [UInt8]?
        /// Whether a Signature child was left out.
        package var leftOut: Bool
    }

    /// For up to `limit` elements of the input, in document order, each with its last child named Signature left out
    /// when there is one (as the enveloped transform would): the canonical forms by both parsers' trees. Returns nil
    /// when neither parser accepts the input; `agree` is false when only one does or their elements differ.
    package static func canonicalForms(_ data: UnsafeRawBufferPointer, limit: Int = 16) -> (forms: [CanonicalForms], agree: Bool)? {
        let reference = try? XMLDocument.parse(data, readOnly: true)
        let parsed = try? ParsedXML.parse(data)
        guard let reference, let parsed else { return reference == nil && parsed == nil ? nil : ([], false) }
        let referenceElements = libxml2Elements(reference.root, limit: limit)
        let elements = parsedElements(parsed.root, limit: limit)
        guard referenceElements.count == elements.count else { return ([], false) }
        var results: [CanonicalForms] = []
        for (index, (referenceElement, element)) in zip(referenceElements, elements).enumerated() {
            guard (referenceElement.excluded == nil) == (element.excluded == nil) else { return ([], false) }
            // Canonical XML 1.0 rebuilds a whole libxml2 tree: only for the root and the elements with a Signature
            // left out (where the verifier can run it), to keep the fuzzer fast.
            let inclusive = index == 0 || element.excluded != nil
            results.append(
                CanonicalForms(
                    libxml2: try? reference.canonicalize(
                        referenceElement.node, excluding: referenceElement.excluded, exclusive: true, inclusivePrefixes: [],
                        using: .libxml2),
                    tvekit: try? parsed.canonicalize(element.node, excluding: element.excluded, exclusive: true, inclusivePrefixes: []),
                    inclusiveLibxml2: inclusive
                        ? try? reference.canonicalize(
                            referenceElement.node, excluding: referenceElement.excluded, exclusive: false, inclusivePrefixes: [],
                            using: .libxml2) : nil,
                    inclusiveRebuilt: inclusive
                        ? try? parsed.canonicalize(element.node, excluding: element.excluded, exclusive: false, inclusivePrefixes: [])
                        : nil,
                    leftOut: element.excluded != nil))
        }
        return (results, true)
    }

    private static func libxml2Elements(_ root: LibXMLNode, limit: Int) -> [(node: LibXMLNode, excluded: LibXMLNode?)] {
        var results: [(node: LibXMLNode, excluded: LibXMLNode?)] = []
        var stack: [LibXMLNode] = [root]
        while let node = stack.popLast(), results.count < limit {
            if node.pointee.type == XML_ELEMENT_NODE {
                var excluded: LibXMLNode? = nil
                var child = node.pointee.children
                while let current = child {
                    if current.pointee.type == XML_ELEMENT_NODE, LibXML.localName(current) == "Signature" { excluded = current }
                    child = current.pointee.next
                }
                results.append((node, excluded))
            }
            var child = node.pointee.last
            while let current = child {
                stack.append(current)
                child = current.pointee.prev
            }
        }
        return results
    }

    private static func parsedElements(_ root: XMLNode, limit: Int) -> [(node: XMLNode, excluded: XMLNode?)] {
        var results: [(node: XMLNode, excluded: XMLNode?)] = []
        var stack: [XMLNode] = [root]
        while let node = stack.popLast(), results.count < limit {
            if node.pointee.type == XMLNodeType.element {
                var excluded: XMLNode? = nil
                var child = node.pointee.first
                while let current = child {
                    if current.pointee.type == XMLNodeType.element, XML.localName(current) == "Signature" { excluded = current }
                    child = current.pointee.next
                }
                results.append((node, excluded))
            }
            var child = node.pointee.last
            while let current = child {
                stack.append(current)
                child = current.pointee.prev
            }
        }
        return results
    }
}
