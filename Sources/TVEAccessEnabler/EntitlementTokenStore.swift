/// Where the flow layer keeps its tokens.
public protocol EntitlementTokenStore: Sendable {
    func load(requestor: String) throws -> StoredEntitlements?
    func save(_ entitlements: StoredEntitlements, requestor: String) throws
}
