import Foundation
import OpenAPIRuntime
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

/// A REST API v2 authentication session (`POST sessions`): what the login still needs, whose device it is for, and
/// how it ended. Keyed by its code; single use: a completed login cannot start another.
struct V2AuthenticationSession: Sendable {
    let code: String
    let requestor: String
    /// The client (access token) and device that created it: only they may read the profile it made.
    let clientID: String
    let deviceID: String
    let deviceInfo: [String: String]
    var mvpd: String?
    var domainName: String?
    var redirectURL: String?
    let notBefore: Int64
    let notAfter: Int64
    /// A browser login completed with this code.
    var profile: V2Profile?
    /// The single-sign-on identity the session was created with (``V2SingleSignOn/key``): its login's profile is kept
    /// for that identity too.
    var singleSignOnKey: String? = nil

    /// The few keys of the device information a session keeps (each at most 64 bytes): not the whole header.
    static func summary(_ info: PassAPIv2.DeviceInfo?) -> [String: String] {
        var kept: [String: String] = [:]
        for key in ["model", "osName", "osVendor"] {
            if let value = info?.values[key] { kept[key] = String(value.utf8.prefix(64)) ?? String(value.prefix(16)) }
        }
        return kept
    }

    var missingParameters: [String] {
        [("mvpd", mvpd), ("domainName", domainName), ("redirectUrl", redirectURL)].compactMap { $0.1 == nil ? $0.0 : nil }
    }
}

/// A device's authenticated profile with one MVPD.
struct V2Profile: Sendable {
    /// This profile as another app sees it: the same login, with another type (`platformSSO`, `serviceTokenSSO`).
    func typed(_ type: String) -> V2Profile {
        V2Profile(
            mvpd: mvpd, userID: userID, sessionGUID: sessionGUID, notBefore: notBefore, notAfter: notAfter, type: type, issuer: issuer,
            tempPassKey: tempPassKey)
    }

    let mvpd: String
    /// The NameID the IdP asserted (or the TempPass identity).
    let userID: String
    /// The media tokens' `sessionGUID`.
    let sessionGUID: String
    let notBefore: Int64
    let notAfter: Int64
    /// `regular`, `temporary`, `appleSSO`, `platformSSO`, `serviceTokenSSO` or `degraded`.
    let type: String
    /// The entity that owns the profile, as Adobe's answers name it: the MVPD for a login (and the single sign-on
    /// that shares it), `Apple` for Apple's single sign-on, `Adobe` for a TempPass and degraded access.
    let issuer: String
    /// A TempPass's key in ``V2State/tempPasses`` (its use: first use, resources).
    var tempPassKey: String? = nil
}

/// A TempPass's use by its holder (a device, or a promotional pass's viewer): when it began, and the resources a
/// promotional pass was authorized for (``V2Handlers/assetName(_:)``), in order.
struct V2TempPassUse: Sendable {
    let first: Int64
    var assets: [String] = []
}

/// The v2 state of the local service provider: sessions by code, profiles by device (requestor, client, device
/// identifier), TempPass first uses. In memory, expiring, bounded. A login made through v1 does not carry over, as at
/// Adobe.
final class V2State: Sendable {
    let sessions: Locked<ExpiringTable<V2AuthenticationSession>>
    /// A device's profiles by MVPD; the entry lives as long as its longest profile.
    let profiles: Locked<ExpiringTable<[String: V2Profile]>>
    /// A TempPass's use (its first use, a promotional pass's resources), by requestor, MVPD and device (or
    /// promotional identity).
    let tempPasses: Locked<ExpiringTable<V2TempPassUse>>
    /// The client and device each single-sign-on token was first presented by, by the token's SHA-256, until it expires.
    let singleSignOnTokens: Locked<ExpiringTable<V2TokenHolder>>

    init(capacity: Int) {
        singleSignOnTokens = Locked(.init(capacity: capacity))
        sessions = Locked(.init(capacity: capacity))
        profiles = Locked(.init(capacity: capacity))
        tempPasses = Locked(.init(capacity: capacity))
    }

    /// The key of a device's state: requestor, client and device identifier (none can hold NUL).
    static func deviceKey(requestor: String, clientID: String, deviceID: String) -> String {
        requestor + "\u{0}" + clientID + "\u{0}" + deviceID
    }

    /// The device's live profiles by MVPD.
    func liveProfiles(_ key: String, now: Int64) -> [String: V2Profile] {
        profiles.withLock { table in
            guard case .live(let profiles, _) = table.lookup(key, now: now) else { return [:] }
            return profiles.filter { $0.value.notAfter > now }
        }
    }

    /// Records a profile (replacing the device's profile with that MVPD); `false` when the table is full.
    func store(_ profile: V2Profile, for key: String, now: Int64) -> Bool {
        profiles.withLock { table in
            var current: [String: V2Profile] = [:]
            if case .live(let profiles, _) = table.lookup(key, now: now) { current = profiles.filter { $0.value.notAfter > now } }
            current[profile.mvpd] = profile
            let expires = current.values.map(\.notAfter).max() ?? profile.notAfter
            return table.insert(key, current, expires: expires, now: now)
        }
    }

    /// Removes the device's profile with `mvpd`, and returns it.
    func removeProfile(_ mvpd: String, for key: String, now: Int64) -> V2Profile? {
        profiles.withLock { table in
            guard case .live(var profiles, let expires) = table.lookup(key, now: now), let removed = profiles.removeValue(forKey: mvpd)
            else { return nil }
            if profiles.isEmpty {
                table.remove(key)
            } else {
                _ = table.insert(key, profiles, expires: expires, now: now)
            }
            return removed.notAfter > now ? removed : nil
        }
    }
}
