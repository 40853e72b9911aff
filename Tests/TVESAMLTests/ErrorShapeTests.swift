import Testing
@testable import TVESAML

/// The package's one error shape (swift-certificates' `CertificateError`), for TVESAML's error and its failures.
@Suite("TVESAML's errors: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: SAMLError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (SAMLError.invalidConfiguration("the ACS URL is empty"), UInt(#line))
        let other = SAMLError.invalidConfiguration("another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != SAMLError.signingFailed("the ACS URL is empty"))
        #expect(error.code == .invalidConfiguration && error.reason == "configuration: the ACS URL is empty")
        #expect(error.file == "TVESAMLTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "SAMLError.invalidConfiguration: configuration: the ACS URL is empty (TVESAMLTests/ErrorShapeTests.swift:\(line))")
    }

    @Test("failuresAreEqualOnTheirRule: SAMLPolicyFailure is equal on its rule (its code), records where it was found")
    func failuresAreEqualOnTheirRule() {
        let (failure, line) = (SAMLPolicyFailure(.assertionAudience, "the audience is not the SP"), UInt(#line))
        let other = SAMLPolicyFailure(.assertionAudience, "another reason")
        #expect(failure == other && failure.hashValue == other.hashValue)
        #expect(failure != SAMLPolicyFailure(.assertionIssuer, "the audience is not the SP"))
        #expect(failure.code == .assertionAudience && failure.rule == .assertionAudience)
        #expect(failure.file == "TVESAMLTests/ErrorShapeTests.swift" && failure.line == line)
        #expect(failure.summary == "assertion.audience: the audience is not the SP")
        #expect(failure.description == "assertion.audience: the audience is not the SP (TVESAMLTests/ErrorShapeTests.swift:\(line))")
        let rejected = SAMLError.rejected([failure, other])
        #expect(rejected.reason == failure.summary, "the reason a user reads carries no file and line")
    }
}
