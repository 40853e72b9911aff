import Foundation
import TVECrypto

/// The SHA-256 of `text`, in lower-case hex: the one way the service provider turns a long or secret value (a resource,
/// an identity, a token) into a short table key. (SHA-256 cannot fail on bytes in memory; the fallback only keeps the
/// key short.)
func sha256Hex(_ text: String) -> String {
    ((try? HashFunction.sha256.hash(Array(text.utf8))) ?? Array(text.utf8.prefix(64))).map { String(format: "%02x", $0) }.joined()
}
