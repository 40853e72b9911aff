import TVECrypto

/// Tokens in memory only: gone with the process.
public final class InMemoryTokenStore: EntitlementTokenStore {
    private let entries = Locked<[String: StoredEntitlements]>([:])

    public init() {}

    public func load(requestor: String) -> StoredEntitlements? { entries.withLock { $0[requestor] } }

    public func save(_ entitlements: StoredEntitlements, requestor: String) {
        entries.withLock { $0[requestor] = entitlements }
    }
}
