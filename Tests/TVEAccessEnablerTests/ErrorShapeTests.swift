import TVEAccessEnabler
import Testing

/// The package's one error shape (swift-certificates' `CertificateError`), for TVEAccessEnabler's error.
@Suite("TVEAccessEnabler's error: one shape")
struct ErrorShapeTests {
    @Test(
        "errorsAreEqualOnTheirCode: AccessEnablerError is equal and hashed on its code only (not its message or status), records where it was made"
    )
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (AccessEnablerError(.throttled, "HTTP 429 three times", httpStatus: 429), UInt(#line))
        let other = AccessEnablerError(
            .throttled, "another message", httpStatus: nil, enhancedCode: "too_many_requests", advancedStatus: "CFG429")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != AccessEnablerError(.internalError, "HTTP 429 three times", httpStatus: 429))
        #expect(error.code == .throttled && error.reason == "HTTP 429 three times" && error.message == error.reason)
        #expect(error.file == "TVEAccessEnablerTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description == "AccessEnablerError.CFG429: HTTP 429 three times (TVEAccessEnablerTests/ErrorShapeTests.swift:\(line))")
    }
}

@Test("singleSignOnCredentialIsNeverPrinted: a single-sign-on credential's description, debug description and mirror hide the token")
func singleSignOnCredentialIsNeverPrinted() {
    for credential in [SingleSignOnCredential.platformIdentity("secret.jwt.value"), .serviceToken("secret.jwt.value")] {
        var dumped = ""
        dump(credential, to: &dumped)
        for text in [String(describing: credential), String(reflecting: credential), "\(credential)", dumped] {
            #expect(!text.contains("secret.jwt.value"), "\(text)")
        }
    }
}
