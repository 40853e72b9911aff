@_spi(Fuzzing) import TVESAML
import Foundation
import TVECrypto

/// The bodies of the three SAML fuzzers, shared with the test suite, which replays their regression inputs and seed
/// corpora. Each traps when an invariant breaks, so that libFuzzer reports it.
public enum SAMLFuzzing {
    /// The committed throw-away fixture certificate and key (`TestVectors/fixtures/leaf.*`): the seed corpus of the
    /// verifier fuzzer is signed with this key, so that fuzzing reaches the signature and semantic checks.
    static let certificatePEM = MetadataFuzzing.fixtureCertificatePEM
    /// The NameIDs the seed responses carry: an accepted fuzzed response must assert one of them.
    public static let seedNameIDs: Set<String> = ["user-1@mvpd.example", "a&b<c>😀", "subscriber-0042"]

    static let verifier: SAMLResponseVerifier? = {
        guard let certificate = try? X509Certificate(pemRepresentation: certificatePEM),
              let configuration = try? SAMLVerifierConfiguration(
                idpCertificates: [certificate], idpEntityID: "https://idp.mvpd.example/saml", spEntityID: "https://sp.tvekit.example/saml",
                acsURL: "https://sp.tvekit.example/saml/acs", requestID: "_req-0001", clockSkew: .seconds(180),
                clock: { Date(timeIntervalSince1970: 1_767_225_900) })
        else { return nil }
        return try? SAMLResponseVerifier(configuration: configuration)
    }()

    /// Parser: never crashes; a rejection always names a rule.
    public static func runParser(_ data: UnsafeRawBufferPointer) {
        if let rule = SAMLFuzzingHooks.parseAndScan(data) { check(!rule.isEmpty, "a rejection without a rule") }
    }

    /// Canonicalizer: the copy-based exclusive form (the SignedInfo fast path) equals the in-place one whenever the
    /// in-place one succeeds, and exclusive canonical output is a fixed point (parsing and canonicalizing it again
    /// gives the same bytes).
    public static func runCanonicalizer(_ data: UnsafeRawBufferPointer) {
        guard let forms = SAMLFuzzingHooks.canonicalForms(data) else { return }
        for form in forms {
            guard let inPlace = form.inPlace else { continue }
            check(!inPlace.isEmpty, "empty canonical output reported as success")
            check(form.fromCopy == inPlace, "the copy-based exclusive C14N differs from the in-place one")
            let again = inPlace.withUnsafeBytes { SAMLFuzzingHooks.canonicalForms($0, limit: 1) }
            if let first = again?.first?.inPlace { check(first == inPlace, "exclusive C14N is not a fixed point") }
        }
    }

    /// Verifier: never crashes; a rejection names at least one rule; an accepted response asserts a seed NameID
    /// (a fuzzed change inside signed content must never verify).
    public static func runVerifier(_ data: UnsafeRawBufferPointer) {
        guard let verifier else { return }
        do {
            let assertion = try verifier.verify(UnsafeRawBufferPointer(data))
            check(seedNameIDs.contains(assertion.nameID), "an accepted response asserts a NameID no seed signed")
        } catch {
            check(!error.failures.isEmpty, "a rejection without a rule")
        }
    }

    /// Whether the fuzz verifier accepts `data` (for the test that keeps the corpus and the configuration in step).
    public static func accepts(_ data: Data) -> Bool {
        (try? verifier?.verify(data)) != nil
    }

    @inline(__always)
    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { preconditionFailure("SAMLFuzzing invariant broken: \(message())") }
    }
}
