import Foundation
import TVETestSupport
import Testing

@testable import TVESAML

/// Interoperability with an independent XML-DSig implementation: the xmlsec1 command line (libxmlsec1, Debian's
/// `xmlsec1` package, which `make test` installs when missing) verifies what ``SAMLSigner`` signs, trusting only the
/// pinned certificate, as a service provider on pysaml2 would.
@Suite("SAMLSigner's signatures verify in xmlsec1")
struct XmlsecInteropTests {
    static let responseSignature = "/*/*[local-name()='Signature']"
    static let assertionSignature = "/*/*[local-name()='Assertion']/*[local-name()='Signature']"

    @Test("xmlsec1 --verify accepts the Response's and the Assertion's signatures, and refuses them once the NameID changes")
    func xmlsecVerifiesSAMLSignerOutput() throws {
        let signed = try SAMLFixtures.signed(SAMLFixtures.response(), [.root, .assertion])
        let tampered = signed.replacingOccurrences(of: "user-1@mvpd.example", with: "admin@mvpd.example")
        #expect(tampered != signed)
        for xpath in [Self.responseSignature, Self.assertionSignature] {
            let accepted = try Self.xmlsec1Verify(signed, signatureAt: xpath)
            #expect(accepted.status == 0 && accepted.output.contains("OK"), "xmlsec1 on \(xpath): \(accepted.output)")
            let refused = try Self.xmlsec1Verify(tampered, signatureAt: xpath)
            #expect(refused.status != 0, "xmlsec1 accepted a changed NameID at \(xpath): \(refused.output)")
        }
    }

    /// Runs `xmlsec1 --verify` on `xml` for the signature at `xpath`, with the fixture certificate as the only key.
    static func xmlsec1Verify(_ xml: String, signatureAt xpath: String) throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-xmlsec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("response.xml")
        try Data(xml.utf8).write(to: file)
        let certificate = Fixtures.repository.appendingPathComponent("TestVectors/fixtures/leaf.cert.pem").path
        let outcome: Spawning.Outcome
        do {
            outcome = try Spawning.run(
                "xmlsec1",
                arguments: [
                    "--verify", "--pubkey-cert-pem", certificate, "--enabled-key-data", "raw-x509-cert",
                    "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion",
                    "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response",
                    "--node-xpath", xpath, file.path,
                ])
        } catch {
            Issue.record("xmlsec1 cannot be started (\(error)): `make test` installs it (apt package xmlsec1)")
            throw error
        }
        return (outcome.status, String(decoding: outcome.stdout + outcome.stderr, as: UTF8.self))
    }
}
