internal import CLibXML2
import Foundation

/// Entry points for the SAML fuzzers (`Fuzz/FuzzSAMLParser`, `FuzzC14N`, `FuzzSAMLVerify`), whose invariant checks
/// live in `TVEFuzzSupport`. They expose internal steps read-only and never trap.
@_spi(Fuzzing)
public enum SAMLFuzzingHooks {
    /// Parses with the verifier's hardening and runs the structural scan; the first failed rule, or nil.
    public static func parseAndScan(_ data: UnsafeRawBufferPointer) -> String? {
        do {
            let document = try XMLDocument.parse(data, readOnly: true)
            _ = try SAMLResponseVerifier.scan(document.root)
            return nil
        } catch {
            return error.failures.first?.rule.code
        }
    }

    /// For up to `limit` elements of the parsed input, in document order: the exclusive canonical form computed in
    /// place, the one computed from a copy in a scratch document (the SignedInfo path), and the inclusive form.
    /// `nil` entries are failures. Returns nil when the input does not parse.
    public static func canonicalForms(_ data: UnsafeRawBufferPointer, limit: Int = 32)
        -> [(inPlace: [UInt8]?, fromCopy: [UInt8]?, inclusive: [UInt8]?)]? {
        guard let document = try? XMLDocument.parse(data, readOnly: true) else { return nil }
        var results: [(inPlace: [UInt8]?, fromCopy: [UInt8]?, inclusive: [UInt8]?)] = []
        var stack: [XMLNode] = [document.root]
        while let node = stack.popLast(), results.count < limit {
            if node.pointee.type == XML_ELEMENT_NODE {
                results.append((try? document.canonicalize(node, excluding: nil, exclusive: true, inclusivePrefixes: []),
                                try? document.exclusiveCanonicalFormOfSubtree(node, inclusivePrefixes: []),
                                try? document.canonicalize(node, excluding: nil, exclusive: false, inclusivePrefixes: [])))
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
