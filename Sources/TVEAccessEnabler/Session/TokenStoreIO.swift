import Foundation

/// Runs the token store's calls on a dispatch queue of their own, never on the enabler's executor nor on the
/// cooperative pool: a ``FileTokenStore`` opens, reads, writes and syncs files, and those calls block. The queue is
/// serial, so the calls run in the order they were made and a save is never overtaken by an older one.
final class TokenStoreIO: Sendable {
    let store: any EntitlementTokenStore
    private let queue = DispatchQueue(label: "tvekit.accessenabler.tokenstore")

    init(store: any EntitlementTokenStore) {
        self.store = store
    }

    /// The tokens stored for `requestor`, or nil when there are none.
    func load(requestor: String) async throws(AccessEnablerError) -> StoredEntitlements? {
        let store = self.store
        return try await perform("the token store cannot be read") { try store.load(requestor: requestor) }.get()
    }

    /// Writes `entitlements` for `requestor`.
    func save(_ entitlements: StoredEntitlements, requestor: String) async throws(AccessEnablerError) {
        let store = self.store
        try await perform("the token store cannot be written") { try store.save(entitlements, requestor: requestor) }.get()
    }

    /// Runs `call` on the queue; an error that is not an ``AccessEnablerError`` becomes `LS011` with `failure`.
    private func perform<Value: Sendable>(_ failure: String, _ call: @escaping @Sendable () throws -> Value) async
        -> Result<Value, AccessEnablerError>
    {
        await withCheckedContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: .success(try call()))
                } catch let error as AccessEnablerError {
                    continuation.resume(returning: .failure(error))
                } catch {
                    continuation.resume(returning: .failure(AccessEnablerError(.storageError, failure)))
                }
            }
        }
    }
}
