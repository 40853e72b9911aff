internal import CLibXML2
import Foundation

/// Entry points for the SAML fuzzers (`Fuzz/FuzzSAMLParser`, `FuzzC14N`, `FuzzSAMLVerify`), whose invariant checks
/// live in `TVEFuzzSupport`. They expose internal steps read-only and never trap.
package enum SAMLFuzzingHooks {
    /// Parses with the verifier's hardening and runs the structural scan; the first failed rule, or nil.
    package static func parseAndScan(_ data: UnsafeRawBufferPointer) -> String? {
        do {
            let document = try XMLDocument.parse(data, readOnly: true)
            _ = try SAMLResponseVerifier.scan(document.root)
            return nil
        } catch {
            return error.failures.first?.rule.code
        }
    }

    /// For up to `limit` elements of the parsed input, in document order, each with the first signature-like child
    /// left out when there is one: the exclusive canonical form by libxml2 and the same by TVEKit's canonicalizer.
    /// `leftOut` says whether a Signature child was left out. `nil` forms are failures. Returns nil when the input does
    /// not parse.
    package static func canonicalForms(_ data: UnsafeRawBufferPointer, limit: Int = 16)
        -> [(libxml2: [UInt8]?, tvekit: [UInt8]?, leftOut: Bool)]?
    {
        guard let document = try? XMLDocument.parse(data, readOnly: true) else { return nil }
        var results: [(libxml2: [UInt8]?, tvekit: [UInt8]?, leftOut: Bool)] = []
        var stack: [XMLNode] = [document.root]
        while let node = stack.popLast(), results.count < limit {
            if node.pointee.type == XML_ELEMENT_NODE {
                // Leave out the last element child named Signature (any namespace), as the enveloped transform would.
                var excluded: XMLNode? = nil
                var child = node.pointee.children
                while let current = child {
                    if current.pointee.type == XML_ELEMENT_NODE, XML.localName(current) == "Signature" { excluded = current }
                    child = current.pointee.next
                }
                results.append(
                    (
                        try? document.canonicalize(node, excluding: excluded, exclusive: true, inclusivePrefixes: [], using: .libxml2),
                        try? document.canonicalize(node, excluding: excluded, exclusive: true, inclusivePrefixes: [], using: .preferred),
                        excluded != nil
                    ))
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
