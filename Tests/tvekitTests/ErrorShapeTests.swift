import TVEBenchmarkSupport
import TVECrypto
import Testing
@testable import tvekit

/// The package's one error shape (swift-certificates' `CertificateError`), for the CLI's errors and the speed
/// engine's; what a user reads of an error never says where it was made.
@Suite("tvekit's errors: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: CLIError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (CLIError(.missingSecret, "the environment variable P is not set"), UInt(#line))
        let other = CLIError(.missingSecret, "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != CLIError(.invalidInput, "the environment variable P is not set"))
        #expect(error.code == .missingSecret && error.reason == "the environment variable P is not set")
        #expect(error.file == "tvekitTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description == "CLIError.missingSecret: the environment variable P is not set (tvekitTests/ErrorShapeTests.swift:\(line))"
        )
    }

    @Test("stepFailuresAndSpeedErrorsAreEqualOnTheirCode: ClientApp.Failure and SpeedError have the same shape")
    func stepFailuresAndSpeedErrorsAreEqualOnTheirCode() {
        let (failure, line) = (ClientApp.Failure(message: "no setToken"), UInt(#line))
        #expect(failure == ClientApp.Failure(message: "another") && failure.code == .stepFailed && failure.reason == "no setToken")
        #expect(failure.file == "tvekitTests/ErrorShapeTests.swift" && failure.line == line)
        let (speed, speedLine) = (SpeedError.setUp(reason: "no key"), UInt(#line))
        #expect(speed == SpeedError.setUp(reason: "another") && speed != SpeedError.wrongResult(reason: "no key"))
        #expect(speed.file == "tvekitTests/ErrorShapeTests.swift" && speed.line == speedLine)
        #expect(speed.description == "SpeedError.setUp: no key (tvekitTests/ErrorShapeTests.swift:\(speedLine))")
    }

    @Test("usersReadTheReasonNotTheLine: the CLI's message of a package error is `reason [code]`, without file and line")
    func usersReadTheReasonNotTheLine() {
        let errors: [any Error] = [
            CLIError(.unreadableInput, "cannot read the key file 'k.pem'"), ClientApp.Failure(message: "cannot read the key file 'k.pem'"),
            TVECryptoError.malformedKey(reason: "cannot read the key file 'k.pem'"),
        ]
        for error in errors {
            let message = CLIError.userMessage(for: error)
            #expect(message?.hasPrefix("cannot read the key file 'k.pem' [") == true, "\(String(describing: message))")
            #expect(message?.contains("ErrorShapeTests") == false && message?.contains(".swift") == false)
        }
        #expect(CLIError.userMessage(for: CancellationError()) == nil)
    }
}
