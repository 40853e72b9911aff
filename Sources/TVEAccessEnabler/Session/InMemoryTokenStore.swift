import TVEConcurrency
import TVECrypto

/// Tokens in memory only: gone with the process.
public final class InMemoryTokenStore: EntitlementTokenStore {
    private let entries = Locked<[String: StoredEntitlements]>([:])

    /// An empty store.
    public init() {}

    /// The tokens last saved for `requestor`, or nil; never throws.
    public func load(requestor: String) -> StoredEntitlements? { entries.withLock { $0[requestor] } }

    /// Keeps `entitlements` for `requestor`, in place of what was there; never throws.
    public func save(_ entitlements: StoredEntitlements, requestor: String) {
        entries.withLock { $0[requestor] = entitlements }
    }
}
