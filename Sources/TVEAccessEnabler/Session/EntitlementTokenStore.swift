/// Where the flow layer keeps its tokens.
public protocol EntitlementTokenStore: Sendable {
    /// The tokens stored for `requestor`, or nil when there are none (the flow layer then makes a new device ID).
    ///
    /// The flow layer calls the store on a serial dispatch queue of its own, never on the cooperative pool, so a call
    /// may block; an error that is not an ``AccessEnablerError`` is reported as ``AccessEnablerError/Code/storageError``.
    func load(requestor: String) throws -> StoredEntitlements?
    /// Replaces the tokens stored for `requestor` with `entitlements`; called on the same queue as
    /// ``load(requestor:)``, in the order the changes were made.
    func save(_ entitlements: StoredEntitlements, requestor: String) throws
}
