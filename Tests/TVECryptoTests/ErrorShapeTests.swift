import Testing
@testable import TVECrypto

/// The package's one error shape (swift-certificates' `CertificateError`), for TVECrypto's errors.
@Suite("TVECrypto's errors: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: TVECryptoError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (TVECryptoError.malformedKey(reason: "the key is not PEM"), UInt(#line))
        let other = TVECryptoError.malformedKey(reason: "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != TVECryptoError.wrongPassword(reason: "the key is not PEM"))
        #expect(error.code == .malformedKey && error.reason == "the key is not PEM")
        #expect(error.file == "TVECryptoTests/ErrorShapeTests.swift" && error.line == line)
        #expect(error.description.hasPrefix("TVECryptoError.malformedKey: the key is not PEM"))
        #expect(error.description.hasSuffix("(TVECryptoTests/ErrorShapeTests.swift:\(line))"))
        #expect(Set([error, other, TVECryptoError.wrongPassword()]).count == 2)
    }

    @Test("decryptionFailuresDoNotNameTheirCallSite: every decryption failure is the same error, line and all (no padding oracle)")
    func decryptionFailuresDoNotNameTheirCallSite() {
        let first = TVECryptoError.decryptionFailed()
        let second = TVECryptoError.decryptionFailed()
        #expect(first.description == second.description)
        #expect(first.file == "TVECrypto" && first.line == 0 && first.openSSLErrors.isEmpty)
    }

    @Test("pemErrorsAreEqualOnTheirCode: PEMParseError has the same shape, and the reader's errors point at the reader")
    func pemErrorsAreEqualOnTheirCode() {
        let (error, line) = (PEMParseError(.tooManyBlocks, reason: "one"), UInt(#line))
        #expect(error == PEMParseError(.tooManyBlocks, reason: "two"))
        #expect(error != PEMParseError(.invalidBase64, reason: "one"))
        #expect(PEMParseError(reason: "x").code == .malformed)
        #expect(error.file == "TVECryptoTests/ErrorShapeTests.swift" && error.line == line)
        #expect(error.description == "PEMParseError.tooManyBlocks: one (TVECryptoTests/ErrorShapeTests.swift:\(line))")
        guard case .failure(let unclosed) = PEMBlock.parseAll(Array("-----BEGIN KEY-----\nAAAA\n".utf8)) else {
            Issue.record("a block without its END line was read")
            return
        }
        #expect(unclosed.code == .malformed && unclosed.reason.contains("no END line"))
        #expect(unclosed.file == "TVECrypto/PEM.swift" && unclosed.line > 0)
    }
}
