import Foundation
import TVECrypto

/// The committed test material of `TestVectors/`, for every test target and the fuzz bodies.
///
/// Paths are found from this file's location, so `swift test` works from any directory. A fixture that is missing or
/// does not load stops the run with its path: no test falls back to a freshly generated key (which would hide a
/// broken fixture and make failures unreproducible).
package enum Fixtures {
    /// The repository's root.
    package static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `TestVectors/`.
    package static let testVectors = repository.appendingPathComponent("TestVectors")

    /// The password of the fixture PKCS#12 files and the passphrase of the encrypted fixture keys.
    package static let pkcs12Password = "fixture-password"
    package static let keyPassphrase = "key-passphrase"

    /// A fixture that could not be read.
    package struct Missing: Error, CustomStringConvertible {
        package let path: String
        package var description: String { "missing test fixture \(path) (run the tests from a full checkout)" }
    }

    /// The bytes of a file, by its path from the repository's root (`TestVectors/fixtures/leaf.cert.pem`).
    /// - Throws: ``Missing``.
    package static func bytes(_ relativePath: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: repository.appendingPathComponent(relativePath).path) else {
            throw Missing(path: relativePath)
        }
        return [UInt8](data)
    }

    /// The text of a file, by its path from the repository's root.
    package static func text(_ relativePath: String) throws -> String {
        String(decoding: try bytes(relativePath), as: UTF8.self)
    }

    /// Loads a fixture that a static property needs; stops the run, naming the fixture, when it cannot (a test
    /// fixture is never input, and a run without it would test nothing).
    package static func load<T>(_ relativePath: String, _ make: (String) throws -> T) -> T {
        do {
            return try make(try text(relativePath))
        } catch {
            preconditionFailure("cannot load the test fixture \(relativePath): \(error)")
        }
    }

    /// The committed leaf key (`TestVectors/fixtures/leaf.pkcs8.pem`; also inside `modern.p12` and `legacy.p12`).
    /// Seven fixed 2048-bit keys (TestVectors/fixtures/sandbox/), in the order of `SandboxKeys`' roles: software
    /// statement, media token, identity provider, metadata, requestor, platform identity, service token. The sandbox
    /// tests load them rather than generate keys: generating seven keys inside a lazy global blocked the cooperative
    /// pool's threads (one generating, the others waiting on the same initialisation) long enough to run transport
    /// deadlines out across the suite.
    package static let sandboxKeys: [RSAPrivateKey]? = try? [
        "software-statement", "media-token", "identity-provider", "metadata", "requestor", "platform-identity", "service-token",
    ].map { try RSAPrivateKey(pemRepresentation: text("TestVectors/fixtures/sandbox/\($0).pkcs8.pem")) }

    package static let leafKey: RSAPrivateKey = load("TestVectors/fixtures/leaf.pkcs8.pem") { try RSAPrivateKey(pemRepresentation: $0) }
    /// The leaf key's certificate (`TestVectors/fixtures/leaf.cert.pem`).
    package static let leafCertificate: X509Certificate =
        load("TestVectors/fixtures/leaf.cert.pem") { try X509Certificate(pemRepresentation: $0) }
    /// A second, unrelated RSA-2048 key (`TestVectors/fixtures/rsa2048.pkcs8.pem`).
    package static let otherKey: RSAPrivateKey = load("TestVectors/fixtures/rsa2048.pkcs8.pem") { try RSAPrivateKey(pemRepresentation: $0) }
}
