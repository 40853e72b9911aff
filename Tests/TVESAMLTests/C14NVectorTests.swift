import Foundation
import Testing
import TVETestSupport
@testable import TVESAML

/// TestVectors/c14n (see its README): every root element canonicalized by TVEKit's own exclusive C14N (on libxml2's
/// tree, which the signer uses, and on the verifier's tree) and by the libxml2 wrapper, all compared byte for byte
/// with libxml2's output.
@Suite("Canonicalization vectors")
struct C14NVectorTests {
    static let names: [String] = {
        let directory = Fixtures.testVectors.appendingPathComponent("c14n")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".xml") }.map { String($0.dropLast(4)) }.sorted()
    }()

    @Test("the vector folder is there")
    func present() {
        #expect(Self.names.count >= 10)
    }

    @Test("exclusive C14N of the root element matches libxml2's, with every canonicalizer", arguments: names)
    func vector(name: String) throws {
        let input = try Fixtures.bytes("TestVectors/c14n/\(name).xml")
        let expected = try Fixtures.bytes("TestVectors/c14n/\(name).expected")
        let document = try input.withUnsafeBytes { try XMLDocument.parse($0, readOnly: true) }
        for canonicalizer in [XMLDocument.Canonicalizer.preferred, .libxml2] {
            let output = try document.canonicalize(
                document.root, excluding: nil, exclusive: true, inclusivePrefixes: [],
                using: canonicalizer)
            #expect(output == expected, "\(name) with \(canonicalizer): \(String(decoding: output, as: UTF8.self))")
        }
        // The verifier's own tree and canonicalizer.
        let parsed = try input.withUnsafeBytes { try ParsedXML.parse($0) }
        let output = try parsed.canonicalize(parsed.root, excluding: nil, exclusive: true, inclusivePrefixes: [])
        #expect(output == expected, "\(name) on the verifier's tree: \(String(decoding: output, as: UTF8.self))")
    }
}
