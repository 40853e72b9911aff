import TVEVerificationServer
import Testing

/// The package's one error shape (swift-certificates' `CertificateError`), for TVEVerificationServer's error.
@Suite("TVEVerificationServer's error: one shape")
struct ErrorShapeTests {
    @Test(
        "errorsAreEqualOnTheirCode: VerificationServerError is equal and hashed on its code only (not its reason), records where it was made"
    )
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (VerificationServerError(.invalidSecret, "the secret is too short"), UInt(#line))
        let other = VerificationServerError(.invalidSecret, "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != VerificationServerError(.init(rawValue: "another"), "the secret is too short"))
        #expect(error.code == .invalidSecret && error.reason == "the secret is too short")
        #expect(error.file == "TVEVerificationServerTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "VerificationServerError.invalidSecret: the secret is too short (TVEVerificationServerTests/ErrorShapeTests.swift:\(line))"
        )
    }

    @Test("aShortSecretIsRefusedWithoutEchoingIt: BearerSecret's error names BearerSecret.swift, never the secret")
    func aShortSecretIsRefusedWithoutEchoingIt() {
        let error = #expect(throws: VerificationServerError.self) { try BearerSecret("hunter2") }
        #expect(error?.code == .invalidSecret && error?.file == "TVEVerificationServer/BearerSecret.swift")
        #expect(error.map { !$0.description.contains("hunter2") } == true)
    }
}
