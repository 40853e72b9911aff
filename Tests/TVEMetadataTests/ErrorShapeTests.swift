import Testing
@testable import TVEMetadata

/// The package's one error shape (swift-certificates' `CertificateError`), for TVEMetadata's error.
@Suite("TVEMetadata's error: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: MetadataError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (MetadataError.malformedCiphertext(reason: "five JWE parts are expected"), UInt(#line))
        let other = MetadataError.malformedCiphertext(reason: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != MetadataError.inputTooLarge(reason: "five JWE parts are expected"))
        #expect(error.code == .malformedCiphertext && error.reason == "five JWE parts are expected")
        #expect(error.file == "TVEMetadataTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "MetadataError.malformedCiphertext: five JWE parts are expected (TVEMetadataTests/ErrorShapeTests.swift:\(line))")
        let keyed = error.about(key: "zip")
        #expect(keyed.key == "zip" && keyed.file == error.file && keyed.line == line, "a key keeps where the error was made")
        #expect(keyed.description.hasPrefix("MetadataError.malformedCiphertext (key \"zip\"): five JWE parts are expected"))
    }

    @Test("decryptionFailuresDoNotNameTheirCallSite: every decryption failure is the same error, line and all (no padding oracle)")
    func decryptionFailuresDoNotNameTheirCallSite() {
        let first = MetadataError.decryptionFailed()
        let second = MetadataError.decryptionFailed()
        #expect(first.description == second.description)
        #expect(first.file == "TVEMetadata" && first.line == 0)
    }
}
