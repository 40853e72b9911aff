import Foundation
import TVECrypto
import TVETestSupport
@testable import TVEMetadata

enum MetadataFixtures {
    static func bytes(_ relativePath: String) throws -> [UInt8] { try Fixtures.bytes(relativePath) }
    static func text(_ relativePath: String) throws -> String { try Fixtures.text(relativePath) }

    /// The committed leaf key of TestVectors/fixtures (also inside modern.p12 and legacy.p12).
    static let key = Fixtures.leafKey
    static let otherKey = Fixtures.otherKey
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
