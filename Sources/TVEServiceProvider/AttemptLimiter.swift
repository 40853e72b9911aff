import Foundation
import TVEConcurrency
import TVECrypto
import TVETokens

/// Limits guessing and filling: events are counted per kind and key (a client address, an account, a client, a code)
/// in a window, and a key that reaches its limit is refused (HTTP 429) until the window ends. On by default, in the
/// sandbox too.
///
/// - `.code`: unknown, used or expired codes tried from one address (`authenticate`, `sessions/{code}`,
///   `profiles/code/{code}` and the activation page): 20 per 15 minutes.
/// - `.password`: wrong passwords at an identity provider, per account (`mvpd` + username): 5 per 15 minutes.
/// - `.passwordAddress`: wrong passwords from one address, whatever the account: 20 per 15 minutes.
/// - `.deviceState`: device state one client creates (registration codes, v2 sessions, TempPass profiles, platform
///   single-sign-on requests): 100 per hour.
/// - `.login`: logins one code (or one client's tool logins) starts: 5 per 10 minutes.
/// - `.credential`: wrong client secrets given to `POST /o/client/token` from one address: 20 per 15 minutes.
///
/// The table of counts is bounded. When it is full of live counts, the limiter fails closed: every key is refused
/// until the window of the newest count ends, rather than let new keys through uncounted.
public final class AttemptLimiter: Sendable {
    /// What the limiter counts: each kind has its own limit in ``Limits`` and its own counts.
    public enum Kind: String, Sendable, CaseIterable {
        /// One kind of counted event: `code`, unknown, used or expired codes tried from one address; `password`, wrong
        /// passwords per account; `passwordAddress`, wrong passwords from one address; `deviceState`, device state one
        /// client creates; `login`, logins one registration code starts (or one client, for logins without a code);
        /// `credential`, wrong client secrets from one address.
        case code, password, passwordAddress, deviceState, login, credential
    }

    /// How many events of each ``Kind`` a key may count before it is refused, and the window of the guessing limits.
    public struct Limits: Sendable, Hashable {
        /// Unknown, used or expired codes one address may try per ``window`` (default 20).
        public var code: Int
        /// Wrong passwords one account (MVPD and username) may give per ``window`` (default 5).
        public var password: Int
        /// Wrong passwords one address may give per ``window``, whatever the account (default 20).
        public var passwordAddress: Int
        /// Pieces of device state one client may create per hour (default 100); the hour is fixed, not ``window``.
        public var deviceState: Int
        /// Logins one registration code (or one client, without a code) may start per 10 minutes (default 5); the 10
        /// minutes are fixed, not ``window``.
        public var login: Int
        /// Wrong client secrets one address may give the token endpoint per ``window`` (default 20).
        public var credential: Int
        /// The window of the guessing limits, in milliseconds.
        public var window: Int64

        /// Limits with these counts; the defaults are the ones listed on ``AttemptLimiter``. `window` is in milliseconds
        /// (default 900,000: 15 minutes) and applies to `code`, `password`, `passwordAddress` and `credential` only.
        public init(
            code: Int = 20, password: Int = 5, passwordAddress: Int = 20, deviceState: Int = 100, login: Int = 5, credential: Int = 20,
            window: Int64 = 900_000
        ) {
            self.credential = credential
            self.code = code
            self.password = password
            self.passwordAddress = passwordAddress
            self.deviceState = deviceState
            self.login = login
            self.window = window
        }

        func limit(_ kind: Kind) -> Int {
            switch kind {
            case .code: code
            case .password: password
            case .passwordAddress: passwordAddress
            case .deviceState: deviceState
            case .login: login
            case .credential: credential
            }
        }

        func window(_ kind: Kind) -> Int64 {
            switch kind {
            case .deviceState: 3_600_000
            case .login: 600_000
            default: window
            }
        }
    }

    struct State {
        var counts: ExpiringTable<Int>
        /// Set when a count could not be recorded: everything is refused until then.
        var saturatedUntil: Int64?
    }

    /// The limits this limiter applies.
    public let limits: Limits
    private let state: Locked<State>

    /// A limiter with `limits` and room for `capacity` live counts, all kinds together (default 100,000); when they are
    /// all live, it fails closed (see ``AttemptLimiter``). Its counts are behind a lock: one limiter may be shared.
    public init(limits: Limits = Limits(), capacity: Int = 100_000) {
        self.limits = limits
        state = Locked(State(counts: .init(capacity: capacity)))
    }

    static func key(_ kind: Kind, _ key: String) -> String {
        // Keys are hashed: a 6 KiB identity costs 64 bytes here.
        kind.rawValue + ":" + sha256Hex(key)
    }

    /// Throws ``ServiceProviderError`` 429 `maximum_attempts_exceeded` when `key` has used up its attempts.
    func check(_ kind: Kind, _ key: String, now: Int64) throws(ServiceProviderError) {
        let full = Self.key(kind, key)
        let allowed = state.withLock { state -> Bool in
            if let until = state.saturatedUntil, until > now { return false }
            if case .live(let count, _) = state.counts.lookup(full, now: now) { return count < limits.limit(kind) }
            return true
        }
        guard allowed else { throw .tooManyAttempts }
    }

    /// Whether `key` may try again.
    func allows(_ kind: Kind, _ key: String, now: Int64) -> Bool {
        (try? check(kind, key, now: now)) != nil
    }

    /// Counts a failed attempt (or, for the quotas, a creation).
    func fail(_ kind: Kind, _ key: String, now: Int64) {
        let full = Self.key(kind, key)
        let window = limits.window(kind)
        state.withLock { state in
            let recorded: Bool
            switch state.counts.lookup(full, now: now) {
            case .live(let count, let expires): recorded = state.counts.insert(full, count + 1, expires: expires, now: now)
            default: recorded = state.counts.insert(full, 1, expires: now + window, now: now)
            }
            if !recorded { state.saturatedUntil = now + window }
        }
    }

    /// Checks and counts one event of a quota (`.deviceState`, `.login`) in one step.
    func consume(_ kind: Kind, _ key: String, now: Int64) throws(ServiceProviderError) {
        try check(kind, key, now: now)
        fail(kind, key, now: now)
    }

    /// Forgets the failures of `key` (after a success).
    func reset(_ kind: Kind, _ key: String) {
        let full = Self.key(kind, key)
        state.withLock { $0.counts.remove(full) }
    }
}
