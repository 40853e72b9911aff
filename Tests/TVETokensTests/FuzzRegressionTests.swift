import Foundation
import Testing
import TVETestSupport
import TVEFuzzSupport

/// Replays the fuzzer's regression inputs and seed corpus through the fuzz body, so that every input that ever
/// broke an invariant stays fixed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static func files(_ folder: String) -> [String] {
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    @Test("regression inputs and the seed corpus run through the fuzz body without breaking an invariant")
    func replay() throws {
        let paths = Self.files("Fuzz/Regressions/FuzzMediaToken") + Self.files("Fuzz/Corpus/FuzzMediaToken")
        #expect(paths.count >= 200)
        for path in paths {
            let data = try #require(FileManager.default.contents(atPath: path))
            data.withUnsafeBytes { MediaTokenFuzzing.run($0) }
        }
        print("fuzz regressions: replayed \(paths.count) inputs")
    }
}
