import Foundation
import TVECrypto
import TVETokens

/// Limits guessing: failed attempts are counted per kind and key (a client address, an account) in a window, and a
/// key that reaches its limit is refused (HTTP 429) until the window ends. On by default, in the sandbox too.
///
/// - `.code`: unknown, used or expired codes tried from one address (`authenticate` and the second-screen page):
///   20 per 15 minutes.
/// - `.password`: wrong passwords at an identity provider, per account (`mvpd` + username): 5 per 15 minutes.
/// - `.passwordAddress`: wrong passwords from one address, whatever the account: 20 per 15 minutes.
public final class AttemptLimiter: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case code, password, passwordAddress
    }

    public struct Limits: Sendable, Hashable {
        public var code: Int
        public var password: Int
        public var passwordAddress: Int
        /// The window, in milliseconds.
        public var window: Int64

        public init(code: Int = 20, password: Int = 5, passwordAddress: Int = 20, window: Int64 = 900_000) {
            self.code = code
            self.password = password
            self.passwordAddress = passwordAddress
            self.window = window
        }

        func limit(_ kind: Kind) -> Int {
            switch kind {
            case .code: code
            case .password: password
            case .passwordAddress: passwordAddress
            }
        }
    }

    public let limits: Limits
    private let failures: Locked<ExpiringTable<Int>>

    public init(limits: Limits = Limits(), capacity: Int = 100_000) {
        self.limits = limits
        failures = Locked(.init(capacity: capacity))
    }

    static func key(_ kind: Kind, _ key: String) -> String { kind.rawValue + "\u{0}" + String(key.prefix(256)) }

    /// Throws ``ServiceProviderError`` 429 `maximum_attempts_exceeded` when `key` has used up its attempts.
    func check(_ kind: Kind, _ key: String, now: Int64) throws(ServiceProviderError) {
        let count = failures.withLock { table -> Int in
            if case .live(let count, _) = table.lookup(Self.key(kind, key), now: now) { return count }
            return 0
        }
        guard count < limits.limit(kind) else { throw .tooManyAttempts }
    }

    /// Whether `key` may try again.
    func allows(_ kind: Kind, _ key: String, now: Int64) -> Bool {
        (try? check(kind, key, now: now)) != nil
    }

    /// Counts a failed attempt. When the table is full, the attempt is not counted but the caller is not let through
    /// either: ``check(_:_:now:)`` keeps refusing the keys it has.
    func fail(_ kind: Kind, _ key: String, now: Int64) {
        let full = Self.key(kind, key)
        failures.withLock { table in
            switch table.lookup(full, now: now) {
            case .live(let count, let expires): _ = table.insert(full, count + 1, expires: expires, now: now)
            default: _ = table.insert(full, 1, expires: now + limits.window, now: now)
            }
        }
    }

    /// Forgets the failures of `key` (after a success).
    func reset(_ kind: Kind, _ key: String) {
        failures.withLock { $0.remove(Self.key(kind, key)) }
    }
}
