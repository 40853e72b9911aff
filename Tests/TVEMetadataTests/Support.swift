import Foundation
import TVECrypto
@testable import TVEMetadata

enum MetadataFixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        let url = repository.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MetadataError.invalidConfiguration(reason: "missing test file \(relativePath)")
        }
        return [UInt8](data)
    }

    static func text(_ relativePath: String) throws -> String { String(decoding: try bytes(relativePath), as: UTF8.self) }

    /// The committed leaf key of TestVectors/fixtures (also inside modern.p12 and legacy.p12).
    static let key: RSAPrivateKey = {
        let pem = (try? text("TestVectors/fixtures/leaf.pkcs8.pem")) ?? ""
        return (try? RSAPrivateKey(pemRepresentation: pem)) ?? (try? RSAPrivateKey()).unsafelyUnwrapped
    }()
    static let otherKey: RSAPrivateKey = {
        let pem = (try? text("TestVectors/fixtures/rsa2048.pkcs8.pem")) ?? ""
        return (try? RSAPrivateKey(pemRepresentation: pem)) ?? (try? RSAPrivateKey()).unsafelyUnwrapped
    }()
    static let pkcs12Password = "fixture-password"
}

func metadataError(_ body: () throws -> Void) -> MetadataError? {
    do {
        try body()
        return nil
    } catch {
        return error as? MetadataError
    }
}
