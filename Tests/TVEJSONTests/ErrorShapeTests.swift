import Testing
import TVEJSON

/// The package's one error shape (swift-certificates' `CertificateError`), for TVEJSON's error.
@Suite("TVEJSON's error: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: JSONParsingError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (JSONParsingError(.duplicateKey, offset: 7, reason: "a duplicate object key"), UInt(#line))
        let other = JSONParsingError(.duplicateKey, offset: 9, reason: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != JSONParsingError(.syntax, offset: 7, reason: "a duplicate object key"))
        #expect(error.code == .duplicateKey && error.offset == 7 && error.reason == "a duplicate object key")
        #expect(error.file == "TVEJSONTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "JSONParsingError.duplicateKey: a duplicate object key at byte 7 (TVEJSONTests/ErrorShapeTests.swift:\(line))")
    }

    @Test("parserErrorsPointAtTheParser: a refused text's error names the parser's line that refused it, not a helper's")
    func parserErrorsPointAtTheParser() {
        var errors: [JSONParsingError] = []
        for text in ["[1,", "[01]", "{\"a\":1,\"a\":2}"] {
            do throws(JSONParsingError) {
                _ = try JSONValue(parsing: Array(text.utf8))
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.map(\.code) == [.syntax, .invalidNumber, .duplicateKey])
        #expect(errors.allSatisfy { $0.file == "TVEJSON/JSONParser.swift" })
        #expect(Set(errors.map(\.line)).count == 3, "each refusal is made on its own line: \(errors.map(\.line))")
    }
}
