import Foundation
import TVEConcurrency
import TVECrypto

/// A table whose entries expire, with a hard capacity. Expired entries stay (so that they can still answer "expired")
/// until a sweep, which runs when the table is full, at most once a second; a table full of live entries refuses
/// inserts (the caller answers 503) rather than grow without bound, evict live state, or rescan on every insert.
/// Keys are short (the callers hash or cap what they store), so the capacity bounds the memory.
struct ExpiringTable<Value: Sendable>: Sendable {
    private(set) var entries: [String: (value: Value, expires: Int64)] = [:]
    let capacity: Int
    private var lastSweep: Int64?

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Inserts or replaces; `false` when the table is full of live entries.
    mutating func insert(_ key: String, _ value: Value, expires: Int64, now: Int64) -> Bool {
        if entries[key] == nil, entries.count >= capacity {
            if lastSweep.map({ now &- $0 >= 1000 || now < $0 }) ?? true {
                lastSweep = now
                entries = entries.filter { $0.value.expires > now }
            }
            if entries.count >= capacity { return false }
        }
        entries[key] = (value, expires)
        return true
    }

    /// The entry under `key`: missing, expired, or live with its value.
    func lookup(_ key: String, now: Int64) -> Lookup {
        guard let entry = entries[key] else { return .missing }
        return entry.expires > now ? .live(entry.value, expires: entry.expires) : .expired
    }

    /// Removes and returns the live value (single use).
    mutating func take(_ key: String, now: Int64) -> Value? {
        guard let entry = entries.removeValue(forKey: key), entry.expires > now else { return nil }
        return entry.value
    }

    mutating func remove(_ key: String) {
        entries[key] = nil
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
    /// The client the device's state belongs to (v1; v2 sessions carry their own).
    let client: String
    let mvpd: String
    let deviceID: String
    let registrationCode: String?
    let redirectURL: String?
    /// The ID of the (implicit) AuthnRequest; the IdP's response must answer it.
    let requestID: String
    /// The REST API v2 session (its code) this login completes; nil for a v1 login.
    var v2Code: String? = nil
}

/// An authenticated device.
struct AuthenticationSession: Sendable {
    let mvpd: String
    /// The NameID the IdP asserted.
    let userID: String
    /// The media tokens' `sessionGUID`; authorizations name it, so a new login voids the old ones.
    let sessionGUID: String
    /// Authenticated through the platform SSO token exchange.
    let platformSSO: Bool
    let created: Int64
    /// A TempPass (REST API v2): no subscriber behind it, so only the requestor's and the MVPD's rules apply.
    var temporary = false
}

/// What a replay cache says of an identifier.
enum FirstUse {
    case first
    case replayed
    case full
}

/// The local service provider's state, each part under its own lock: authentication sessions with the authorizations
/// they hold, logins in progress, platform-SSO profile requests, and the replay caches (SAML assertion IDs,
/// clientless nonces). In memory, expiring and bounded.
final class ServiceProviderState: Sendable {
    struct Identity {
        var sessions: ExpiringTable<AuthenticationSession>
        /// Keyed by device and SHA-256 of the resource; the value is the session GUID that was authorized.
        var authorizations: ExpiringTable<String>
    }

    let identity: Locked<Identity>
    let logins: Locked<ExpiringTable<PendingLogin>>
    let profileRequests: Locked<ExpiringTable<String>>
    let assertionIDs: Locked<ExpiringTable<Bool>>
    let nonces: Locked<ExpiringTable<Bool>>

    init(capacity: Int) {
        identity = Locked(Identity(sessions: .init(capacity: capacity), authorizations: .init(capacity: capacity * 4)))
        logins = Locked(.init(capacity: capacity))
        profileRequests = Locked(.init(capacity: capacity))
        assertionIDs = Locked(.init(capacity: capacity))
        nonces = Locked(.init(capacity: capacity))
    }

    /// The key of a device's state for a requestor and the client that acts for it (``APICall/requireClient(requestor:)``):
    /// another client naming the same `deviceId` reaches other state. No part can hold NUL (fields with control
    /// characters are refused), so keys are unique.
    static func deviceKey(_ requestor: String, _ client: String, _ deviceID: String) -> String {
        requestor + "\u{0}" + client + "\u{0}" + deviceID + "\u{0}"
    }

    /// A device's authorization of a resource: the resource is hashed, so that a 16 KiB MRSS resource costs 64 bytes.
    static func authorizationKey(_ requestor: String, _ client: String, _ deviceID: String, _ resource: String) -> String {
        deviceKey(requestor, client, deviceID) + sha256Hex(resource)
    }

    /// Records a replay-protected identifier until `expires`.
    static func firstUse(_ id: String, in table: Locked<ExpiringTable<Bool>>, expires: Int64, now: Int64) -> FirstUse {
        table.withLock { table in
            if case .live = table.lookup(id, now: now) { return .replayed }
            return table.insert(id, true, expires: expires, now: now) ? .first : .full
        }
    }

    /// Ends a device's authentication; its authorizations die with the session GUID they name.
    func logout(requestor: String, client: String, deviceID: String) {
        identity.withLock { $0.sessions.remove(Self.deviceKey(requestor, client, deviceID)) }
    }
}
