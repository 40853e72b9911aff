import Foundation
import Testing
import TVETestSupport
import TVEFuzzSupport
import TVEMetadata

/// Replays the metadata fuzzer's regression inputs and seed corpus through the fuzz body.
@Suite("Metadata fuzz regressions")
struct MetadataFuzzRegressionTests {
    static func files(_ folder: String) -> [String] {
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    @Test("regression inputs and the seed corpus run through the fuzz body without breaking an invariant")
    func replay() throws {
        #expect(MetadataFuzzing.decryptor != nil)
        let paths = Self.files("Fuzz/Regressions/FuzzMetadata") + Self.files("Fuzz/Corpus/FuzzMetadata")
        #expect(paths.count >= 50)
        for path in paths {
            let data = try #require(FileManager.default.contents(atPath: path))
            data.withUnsafeBytes { MetadataFuzzing.run($0) }
        }
        print("metadata fuzz regressions: replayed \(paths.count) inputs")
    }
}
