import Foundation
import Testing
@testable import TVECrypto

/// Loading keys, certificates and PKCS#12 files from many tasks at once must give the same answers as loading them
/// one at a time (OpenSSL 3.0's decoders are shared process-wide).
@Suite("Concurrent loading")
struct ConcurrencyTests {
    @Test("keys, certificates and PKCS#12 files load correctly from 8 tasks at once")
    func concurrentLoading() async throws {
        let privateFiles: [(String, String?)] = [
            ("rsa2048.pkcs8.pem", nil), ("rsa2048.pkcs8.der", nil), ("rsa2048.pkcs1.pem", nil), ("rsa2048.pkcs1.der", nil),
            ("rsa2048.encrypted.der", Fixture.keyPassphrase),
        ]
        let inputs = try privateFiles.map { (try Fixture.bytes($0.0), $0.1, $0.0) }
        let publicDER = try Fixture.bytes("rsa2048.spki.der")
        let certificate = try Fixture.bytes("leaf.cert.der")
        let p12 = try Fixture.bytes("modern.p12")
        let reference = try RSAPublicKey(derRepresentation: publicDER)
        let failures = await withTaskGroup(of: [String].self, returning: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures: [String] = []
                    for round in 0..<25 {
                        for (bytes, passphrase, name) in inputs {
                            do {
                                let key = try RSAPrivateKey(encoded: bytes, passphrase: passphrase)
                                if key.publicKey != reference { failures.append("\(name): other key") }
                            } catch {
                                failures.append("task \(task) round \(round) \(name): \(error)")
                            }
                        }
                        do {
                            _ = try RSAPublicKey(derRepresentation: publicDER)
                            _ = try X509Certificate(derRepresentation: certificate)
                            if round % 5 == 0 { _ = try PKCS12Bundle(derRepresentation: p12, password: Fixture.pkcs12Password) }
                        } catch {
                            failures.append("task \(task) round \(round): \(error)")
                        }
                    }
                    return failures
                }
            }
            var all: [String] = []
            for await failures in group { all += failures }
            return all
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
    }
}
