import Testing
import TVETokens

/// The package's one error shape (swift-certificates' `CertificateError`), for TVETokens' error.
@Suite("TVETokens' error: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: MediaTokenError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (MediaTokenError.malformedToken(reason: "no signature at byte 12"), UInt(#line))
        let other = MediaTokenError.malformedToken(reason: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != MediaTokenError.inputTooLarge(reason: "no signature at byte 12"))
        #expect(error.code == .malformedToken && error.reason == "no signature at byte 12")
        #expect(error.file == "TVETokensTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description == "MediaTokenError.malformedToken: no signature at byte 12 (TVETokensTests/ErrorShapeTests.swift:\(line))")
    }

    @Test("aRefusedTokenNamesTheCodecLine: a token the codec refuses records the codec's file, not the caller's")
    func aRefusedTokenNamesTheCodecLine() {
        let error = #expect(throws: MediaTokenError.self) { try ShortMediaToken(parsing: "not a token") }
        #expect(error?.file.hasPrefix("TVETokens/") == true, "\(String(describing: error))")
        #expect((error?.line ?? 0) > 0)
    }
}
