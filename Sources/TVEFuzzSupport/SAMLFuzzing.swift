import TVESAML
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

    /// Parser, differential: never crashes; a rejection always names a rule; the verifier's parser accepts exactly
    /// the inputs libxml2's tree parser accepts (with the same checks before it).
    public static func runParser(_ data: UnsafeRawBufferPointer) {
        let outcome = SAMLFuzzingHooks.parseAndScan(data)
        if let rule = outcome.rule { check(!rule.isEmpty, "a rejection without a rule") }
        check(outcome.accepted == outcome.libxml2Accepted, "the verifier's parser and libxml2's tree parser disagree on the input")
    }

    /// Canonicalizer, differential: on the first six elements (the root's form covers every element under it; the next
    /// five, with and without a left-out Signature child, other apexes and exclusions), TVEKit's exclusive
    /// C14N of the verifier's tree gives exactly libxml2's bytes on libxml2's own tree, and fails exactly where it
    /// fails; so does Canonical XML 1.0 run on the tree the verifier rebuilds for libxml2; exclusive canonical output is
    /// a fixed point (parsing and canonicalizing it again gives the same bytes).
    public static func runCanonicalizer(_ data: UnsafeRawBufferPointer) {
        guard let (forms, agree) = SAMLFuzzingHooks.canonicalForms(data, limit: 6) else { return }
        check(agree, "the verifier's tree and libxml2's differ in their elements")
        for form in forms {
            check(form.tvekit == form.libxml2, "TVEKit's exclusive C14N differs from libxml2's")
            check(form.inclusiveRebuilt == form.inclusiveLibxml2, "Canonical XML 1.0 of the rebuilt tree differs from libxml2's")
            guard let canonical = form.libxml2 else { continue }
            check(!canonical.isEmpty, "empty canonical output reported as success")
        }
        // The fixed point holds for a whole subtree: with a Signature left out, the output has one Signature fewer, and
        // the next pass would leave out another (the first finding of this fuzzer, a harness bug, kept as a regression).
        if let form = forms.first, !form.leftOut, let first = form.libxml2 {
            let again = first.withUnsafeBytes { SAMLFuzzingHooks.canonicalForms($0, limit: 1) }
            if let repeated = again?.forms.first?.libxml2 { check(repeated == first, "exclusive C14N is not a fixed point") }
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
