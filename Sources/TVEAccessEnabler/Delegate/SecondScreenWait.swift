import Foundation
import TVEConcurrency
import TVECrypto

/// The delegate API's tvOS wait for a second screen (``AsyncAccessEnabler/waitForSecondScreen()``), run beside its job
/// queue: one wait at a time, each with a generation, so that an answer that comes after the wait was ended or
/// replaced (a logout, another login) is recognised and dropped.
final class SecondScreenWait: Sendable {
    private let current = Locked<(id: UUID, task: Task<Void, Never>)?>(nil)

    /// Ends the wait in progress and starts a new one. `answer` gets the new wait's generation and its outcome (never
    /// called when the wait was cancelled, nor when the login was cancelled in the async API).
    func start(_ core: AsyncAccessEnabler, answer: @escaping @Sendable (UUID, Result<AuthenticationToken, AccessEnablerError>) -> Void) {
        stop()
        let generation = UUID()
        let task = Task {
            let result: Result<AuthenticationToken, AccessEnablerError>
            do throws(AccessEnablerError) {
                result = .success(try await core.waitForSecondScreen())
            } catch {
                if Task.isCancelled || error.code == .providerNotSelected { return }
                result = .failure(error)
            }
            answer(generation, result)
        }
        current.withLock { $0 = (generation, task) }
    }

    /// Ends the wait in progress, if any.
    func stop() {
        current.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current?.task
        }?.cancel()
    }

    /// Whether `generation` is still the current wait; it ends if so.
    func end(_ generation: UUID) -> Bool {
        current.withLock { current in
            guard current?.id == generation else { return false }
            current = nil
            return true
        }
    }
}
