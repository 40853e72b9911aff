import Foundation
import NIOConcurrencyHelpers

/// A table whose entries expire, with a hard capacity: inserting into a full table first drops what has expired and
/// then refuses (the caller answers 503) rather than growing without bound or evicting live state silently.
struct ExpiringTable<Value: Sendable>: Sendable {
    private(set) var entries: [String: (value: Value, expires: Int64)] = [:]
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Inserts or replaces; `false` when the table is full of live entries.
    mutating func insert(_ key: String, _ value: Value, expires: Int64, now: Int64) -> Bool {
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= capacity { return false }
        }
        entries[key] = (value, expires)
        return true
    }

    /// The live value; an expired entry is removed and reported as `.expired`.
    mutating func lookup(_ key: String, now: Int64) -> Lookup {
        guard let entry = entries[key] else { return .missing }
        guard entry.expires > now else {
            entries[key] = nil
            return .expired
        }
        return .live(entry.value, expires: entry.expires)
    }

    /// Removes and returns the live value (single use).
    mutating func take(_ key: String, now: Int64) -> Value? {
        guard let entry = entries.removeValue(forKey: key), entry.expires > now else { return nil }
        return entry.value
    }

    mutating func remove(_ key: String) {
        entries[key] = nil
    }

    mutating func removeAll(where predicate: (String) -> Bool) {
        entries = entries.filter { !predicate($0.key) }
    }

    enum Lookup {
        case missing
        case expired
        case live(Value, expires: Int64)
    }
}

/// A browser login in progress: created by `GET /api/v1/authenticate`, consumed (once) by the assertion consumer.
struct PendingLogin: Sendable {
    let requestor: String
    let mvpd: String
    let deviceID: String
    let registrationCode: String?
    let redirectURL: String?
    /// The ID of the (implicit) AuthnRequest; the IdP's response must answer it.
    let requestID: String
}

/// An authenticated device.
struct AuthenticationSession: Sendable {
    let mvpd: String
    /// The NameID the IdP asserted.
    let userID: String
    /// The media tokens' `sessionGUID`.
    let sessionGUID: String
    /// Authenticated through the platform SSO token exchange.
    let platformSSO: Bool
    let created: Int64
}

/// The local service provider's state: logins in progress, authentications, authorizations, platform-SSO profile
/// requests, and the replay caches (SAML assertion IDs, clientless nonces). In memory, expiring and bounded.
final class ServiceProviderState: Sendable {
    struct Tables {
        var logins: ExpiringTable<PendingLogin>
        var sessions: ExpiringTable<AuthenticationSession>
        var authorizations: ExpiringTable<String>
        var profileRequests: ExpiringTable<String>
        var assertionIDs: ExpiringTable<Bool>
        var nonces: ExpiringTable<Bool>
    }

    let tables: NIOLockedValueBox<Tables>

    init(capacity: Int) {
        tables = NIOLockedValueBox(Tables(logins: .init(capacity: capacity), sessions: .init(capacity: capacity),
                                          authorizations: .init(capacity: capacity * 4), profileRequests: .init(capacity: capacity),
                                          assertionIDs: .init(capacity: capacity), nonces: .init(capacity: capacity * 4)))
    }

    /// The key of a device's state for a requestor. NUL cannot occur in a form field we accept, so keys are unique.
    static func deviceKey(_ requestor: String, _ deviceID: String) -> String { requestor + "\u{0}" + deviceID + "\u{0}" }

    static func authorizationKey(_ requestor: String, _ deviceID: String, _ resource: String) -> String {
        deviceKey(requestor, deviceID) + resource
    }

    /// Records a replay-protected identifier (assertion ID or nonce) until `expires`; `false` when it was seen or the
    /// cache is full (fail closed).
    func firstUse(_ id: String, in table: WritableKeyPath<Tables, ExpiringTable<Bool>>, expires: Int64, now: Int64) -> Bool {
        tables.withLockedValue { tables in
            if case .live = tables[keyPath: table].lookup(id, now: now) { return false }
            return tables[keyPath: table].insert(id, true, expires: expires, now: now)
        }
    }

    /// Ends a device's authentication and every authorization it holds.
    func logout(requestor: String, deviceID: String) -> Bool {
        let key = Self.deviceKey(requestor, deviceID)
        return tables.withLockedValue { tables in
            let existed = tables.sessions.entries[key] != nil
            tables.sessions.remove(key)
            tables.authorizations.removeAll { $0.hasPrefix(key) }
            return existed
        }
    }
}
