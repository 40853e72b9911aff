import Foundation
import TVEFuzzSupport
import TVEJSON
import TVETestSupport
import Testing

@testable import TVEVerification

/// The `/verify` request reader: the one-pass reader reads the usual bodies (no parse tree, no copy) exactly as the
/// strict reader does, declines the rest, and the fuzzer's corpus and regressions replay through the fuzz body.
@Suite("The /verify request reader")
struct RequestReaderTests {
    static let folders = ["Fuzz/Regressions/FuzzVerifyReader", "Fuzz/Corpus/FuzzVerifyReader"]

    static let files: [String] = folders.flatMap { folder -> [String] in
        let directory = Fixtures.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    static func read(_ text: String, maximum: Int = 256) -> (fast: VerificationRequestBody?, strict: VerificationRequestBody) {
        var text = text
        return text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return (VerificationRequestBody.fast(raw, maximumItems: maximum), VerificationRequestBody.strict(raw, maximumItems: maximum))
        }
    }

    @Test(
        "the usual bodies take the one-pass reader, as ranges of the body",
        arguments: [
            #"{"token":"abc","requestor":"r"}"#, #"{ "resource" : null , "requestor":"r","token":"abc" }"#,
            #"[{"token":"a","requestor":"r","resource":"news"}, {"token":"b","requestor":"r"}]"#,
            "{\"token\":\"a\",\"requestor\":\"r\"}\n{\"token\":\"b\",\"requestor\":\"r\"}\n",
        ])
    func usualBodiesAreFast(body: String) {
        let (fast, strict) = Self.read(body)
        guard let fast else {
            Issue.record("declined: \(body)")
            return
        }
        let (fastText, strictText) = Self.described(body)
        #expect(fastText == strictText)
        switch fast {
        case .single(.request(.bytes, .bytes, _)), .array, .lines: break
        default: Issue.record("\(fast) for \(body)")
        }
        _ = strict
    }

    @Test(
        "anything unusual is left to the strict reader",
        arguments: [
            #"{"tok\u0065n":"a","requestor":"r"}"#, #"{"token":"a\/b","requestor":"r"}"#, #"{"token":"a","token":"b","requestor":"r"}"#,
            #"{"token":"a","requestor":"r","x":1}"#, #"{"token":"é","requestor":"r"}"#, #"[]"#, #"[{"token":"a","requestor":"r"},]"#,
            "{\"token\":\"a\",\n\"requestor\":\"r\"}\n{\"token\":\"b\",\"requestor\":\"r\"}",
            #"{"token":"a","requestor":"r"} {"token":"b","requestor":"r"}"#,
            #"{"token":"a","requestor":"r","resource":5}"#, #"{"requestor":"r"}"#,
        ])
    func unusualBodiesAreStrict(body: String) {
        #expect(Self.read(body).fast == nil)
    }

    @Test("a batch over the limit is refused by the strict reader's words, whichever reader saw it first")
    func limits() {
        let body = "[" + Array(repeating: #"{"token":"a","requestor":"r"}"#, count: 3).joined(separator: ",") + "]"
        #expect(Self.read(body, maximum: 2).fast == nil)
        #expect(Self.read(body, maximum: 2).strict == .refused("a batch holds at most 2 tokens"))
    }

    @Test("reasonsArePlainText: a malformed body's reason, once the JSON is read, has no backslashes")
    func reasonsArePlainText() throws {
        for reason in [VerificationRequestBody.shape, VerificationRequestBody.itemShape] {
            let answer = Array(VerificationService.errorJSON("malformedRequest", reason).utf8)
            let value = try answer.withUnsafeBytes { try JSONValue.parse($0) }
            guard case .object(let fields) = value, case .string(let text)? = fields["reason"] else {
                Issue.record("\(value)")
                return
            }
            #expect(!text.contains("\\") && text.contains(#"{"token", "requestor", "resource"?}"#))
        }
    }

    @Test("the corpus and the regressions are there")
    func inputsExist() {
        #expect(Self.files.filter { $0.hasPrefix(Self.folders[1]) }.count >= 20)
    }

    @Test("an input runs through the fuzz body without breaking an invariant", arguments: files)
    func replay(_ file: String) throws {
        let data = try Data(contentsOf: Fixtures.repository.appendingPathComponent(file))
        data.withUnsafeBytes { VerifyReaderFuzzing.run($0) }
    }

    static func described(_ body: String) -> ([String]?, [String]) {
        var body = body
        return body.withUTF8 { VerificationRequestReading.readings(UnsafeRawBufferPointer($0), maximumItems: 256) }
    }
}
