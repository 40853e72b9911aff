import Foundation
import TVECrypto
import TVETokens

/// What the session of the current requestor holds: its stored tokens (in memory, persisted through the token store)
/// and the login in progress.
///
/// The tokens are read from the token store once, when `setRequestor` makes a requestor current (``read(_:)`` then
/// ``activate(_:stored:)``), and written back on every change; every other read is from memory, so the synchronous
/// calls of the enabler (`checkAuthentication`, `deviceID`, ...) do no I/O. The store's own calls run on
/// ``TokenStoreIO``'s queue, never on the enabler's executor. Owned by one ``AsyncAccessEnabler`` and used on its
/// executor only; writers hold its ``SerialQueue``.
final class SessionStore {
    private let io: TokenStoreIO
    private let clock: any MediaTokenClock
    /// The requestor whose session this is.
    private(set) var requestor: String?
    /// Its tokens; nil only when reading them failed (``load()`` tries again).
    private var entitlements: StoredEntitlements?
    /// Why reading them failed.
    private var readError: AccessEnablerError?
    /// The login in progress.
    var pendingLogin: PendingLogin?
    /// `getAuthentication(forceAuthn: true)` asked for a fresh login: the next `setSelectedProvider` must not end at once
    /// with the authentication the device already holds.
    var forcingLogin = false

    init(store: any EntitlementTokenStore, clock: any MediaTokenClock) {
        io = TokenStoreIO(store: store)
        self.clock = clock
    }

    // MARK: Reading

    /// The current requestor's tokens, pruned at the current time, from memory.
    func current() throws(AccessEnablerError) -> StoredEntitlements {
        guard requestor != nil else { throw AccessEnablerError(.invalidRequestor, "setRequestor has not completed") }
        guard var entitlements else { throw readError ?? AccessEnablerError(.storageError, "the token store cannot be read") }
        entitlements.prune(now: clock.nowMilliseconds)
        return entitlements
    }

    /// As ``current()``, reading the token store again if the last read failed.
    nonisolated(nonsending) func load() async throws(AccessEnablerError) -> StoredEntitlements {
        if entitlements == nil, let requestor {
            let stored = await read(requestor)
            // Kept only if the session is still that requestor's and nothing was saved meanwhile.
            if requestor == self.requestor, entitlements == nil { install(stored) }
        }
        return try current()
    }

    /// `requestor`'s tokens: from memory when it is the current requestor, else from the token store (a new device
    /// ID when there are none).
    nonisolated(nonsending) func read(_ requestor: String) async -> Result<StoredEntitlements, AccessEnablerError> {
        if requestor == self.requestor, let entitlements { return .success(entitlements) }
        do {
            let stored = try await io.load(requestor: requestor) ?? StoredEntitlements(deviceID: Self.newDeviceID())
            // Saved while the file was read: memory is newer.
            if requestor == self.requestor, let entitlements { return .success(entitlements) }
            return .success(stored)
        } catch {
            return .failure(error)
        }
    }

    /// Makes `requestor` current with the tokens ``read(_:)`` gave; a change of requestor ends the login in progress.
    func activate(_ requestor: String, stored: Result<StoredEntitlements, AccessEnablerError>) {
        if requestor != self.requestor {
            pendingLogin = nil
            entitlements = nil
        }
        self.requestor = requestor
        install(stored)
    }

    private func install(_ stored: Result<StoredEntitlements, AccessEnablerError>) {
        switch stored {
        case .success(let value):
            entitlements = value
            readError = nil
        case .failure(let error):
            readError = error
        }
    }

    // MARK: Writing (under the enabler's serial queue)

    /// Keeps `entitlements` (at most ``StoredEntitlements/maximumAuthorizations`` authorizations) and writes them to the
    /// token store. Memory changes first: a store that cannot be written leaves them changed all the same.
    nonisolated(nonsending) func save(_ entitlements: StoredEntitlements) async throws(AccessEnablerError) {
        guard let requestor else { throw AccessEnablerError(.invalidRequestor, "setRequestor has not completed") }
        var entitlements = entitlements
        entitlements.limitAuthorizations()
        self.entitlements = entitlements
        readError = nil
        try await io.save(entitlements, requestor: requestor)
    }

    /// Stores a new authentication: it replaces the old one and its authorizations, and `mvpd` becomes the selected
    /// MVPD.
    nonisolated(nonsending) func storeAuthentication(_ token: AuthenticationToken, mvpd: MVPD, tempPassIdentity: [String: String]? = nil)
        async throws(AccessEnablerError)
    {
        var entitlements = try current()
        entitlements.authentication = token
        entitlements.authorizations = [:]
        entitlements.selectedMVPD = mvpd
        entitlements.tempPassIdentity = tempPassIdentity
        // A new login: a logout still owed to the service provider would end it.
        entitlements.pendingLogout = nil
        try await save(entitlements)
    }

    /// 32 random hex digits.
    static func newDeviceID() -> String {
        ((try? SecureRandom.bytes(count: 16)) ?? Array(UUID().uuidString.utf8.prefix(16))).map { String(format: "%02x", $0) }.joined()
    }
}

/// A login in progress: the MVPD picked, its code (v1's registration code, v2's session code) and, on REST API v2,
/// the session's end (milliseconds).
struct PendingLogin: Hashable {
    let mvpd: MVPD
    let code: String
    /// The login page (iOS opens it; on tvOS a second screen may).
    let page: URL
    let notAfter: Int64?
}
