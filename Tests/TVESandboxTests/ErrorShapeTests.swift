import TVESandbox
import Testing

/// The package's one error shape (swift-certificates' `CertificateError`), for TVESandbox's error.
@Suite("TVESandbox's error: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: SandboxError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (SandboxError(.callbackMissing, "no setToken in 5 s"), UInt(#line))
        let other = SandboxError(.callbackMissing, "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != SandboxError(.scenarioFailed, "no setToken in 5 s"))
        #expect(error.code == .callbackMissing && error.reason == "no setToken in 5 s")
        #expect(error.file == "TVESandboxTests/ErrorShapeTests.swift" && error.line == line)
        #expect(error.description == "SandboxError.callbackMissing: no setToken in 5 s (TVESandboxTests/ErrorShapeTests.swift:\(line))")
    }
}
