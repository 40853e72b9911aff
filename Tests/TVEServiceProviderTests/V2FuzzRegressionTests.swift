import Foundation
import TVEFuzzSupport
import TVEPassAPIv2
import TVETestSupport
import Testing

/// Replays the REST API v2 fuzzer's regression inputs and seed corpus through the fuzz body (`V2Fuzzing.run`): the
/// header codecs' round trips and errors, and the generated server's request decoding.
@Suite("REST API v2 fuzz regressions")
struct V2FuzzRegressionTests {
    static let folders = ["Fuzz/Regressions/FuzzV2Requests", "Fuzz/Corpus/FuzzV2Requests"]

    /// The files of the folders, by their path from the repository's root.
    static let files: [String] = folders.flatMap { folder -> [String] in
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    @Test("the corpus and the regressions are there")
    func inputsExist() {
        #expect(Self.files.filter { $0.hasPrefix(Self.folders[0]) }.count >= 1)
        #expect(Self.files.filter { $0.hasPrefix(Self.folders[1]) }.count >= 30)
    }

    /// The fuzzer's finding in swift-openapi-runtime: parameter names that repeat in another case trap its content-type
    /// match; the server middleware keeps the first of them and leaves every other value alone.
    @Test("a content type whose parameter names repeat in another case keeps the first of them")
    func contentTypeParametersRepeatedInAnotherCase() {
        let rewrite = PassAPIv2.ContentTypeMiddleware.withoutRepeatedParameters
        #expect(rewrite("application/json; a=1; A=2") == "application/json; a=1")
        #expect(
            rewrite("application/x-www-form-urlencoded; charset=UTF-8, ;K=f;k=u")
                == "application/x-www-form-urlencoded; charset=UTF-8,; K=f")
        #expect(rewrite("application/json; charset=utf-8") == nil)
        #expect(rewrite("application/json; a=1; a=2") == "application/json; a=1")
        #expect(rewrite("a=1; A=2") == nil)
    }

    @Test("an input runs through the fuzz body without breaking an invariant", arguments: files)
    func replay(_ file: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Fixtures.repository.appendingPathComponent(file).path), "\(file)")
        data.withUnsafeBytes { V2Fuzzing.run($0) }
    }
}
