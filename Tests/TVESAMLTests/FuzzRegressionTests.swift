import Foundation
import Testing
import TVETestSupport
import TVEFuzzSupport

/// Replays the SAML fuzzers' regression inputs and seed corpora through their bodies.
@Suite("SAML fuzz regressions")
struct SAMLFuzzRegressionTests {
    static func files(_ folder: String) -> [String] {
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    @Test(
        "regression inputs and seed corpora run through each fuzz body without breaking an invariant",
        arguments: ["FuzzSAMLParser", "FuzzC14N", "FuzzSAMLVerify"])
    func replay(fuzzer: String) throws {
        let paths = Self.files("Fuzz/Regressions/\(fuzzer)") + Self.files("Fuzz/Corpus/\(fuzzer)")
        #expect(paths.count >= 40)
        for path in paths {
            let data = try #require(FileManager.default.contents(atPath: path))
            data.withUnsafeBytes { bytes in
                switch fuzzer {
                case "FuzzSAMLParser": SAMLFuzzing.runParser(bytes)
                case "FuzzC14N": SAMLFuzzing.runCanonicalizer(bytes)
                default: SAMLFuzzing.runVerifier(bytes)
                }
            }
        }
        print("\(fuzzer): replayed \(paths.count) inputs")
    }

    @Test("the verifier fuzzer's own seeds are accepted (its configuration matches the corpus)")
    func seedsAreAccepted() throws {
        var accepted = 0
        for path in Self.files("Fuzz/Corpus/FuzzSAMLVerify") {
            let data = try #require(FileManager.default.contents(atPath: path))
            if SAMLFuzzing.accepts(data) { accepted += 1 }
        }
        #expect(accepted >= 18)
    }
}
