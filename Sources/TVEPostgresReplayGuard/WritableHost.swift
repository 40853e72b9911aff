import TVEConcurrency

/// Which of the store's hosts takes writes, as far as the guard knows: the index its statements go to, or none (every
/// check then answers "unavailable" at once, fail closed, until a probe finds one). A statement whose connection broke,
/// or that a host refused as read-only, forgets the host and wakes the prober; a statement past its deadline only
/// wakes it (a slow primary is still the primary).
final class WritableHost: Sendable {
    fileprivate struct State {
        var current: Int?
        /// Set by ``lost(_:)`` and ``suspect()``: the prober is to ask now rather than at its next interval.
        var wakeRequested = false
        var waiter: CheckedContinuation<Void, Never>?
        /// How many times the writable host changed (logs and tests).
        var changes = 0
    }

    private let state: Locked<State>

    /// A tracker that starts knowing `initial` (a single host is always the writable one: it is never probed).
    init(initial: Int?) {
        state = Locked(State(current: initial))
    }

    /// The host statements go to now, if any.
    var current: Int? { state.withLock { $0.current } }

    /// How many times the writable host changed.
    var changes: Int { state.withLock { $0.changes } }

    /// A probe round's finding. Returns the previous host when it changed.
    @discardableResult
    func found(_ index: Int?) -> (changed: Bool, previous: Int?) {
        state.withLock { state in
            let previous = state.current
            state.current = index
            if previous != index, index != nil { state.changes += 1 }
            return (previous != index, previous)
        }
    }

    /// The connection to `index` broke or it refused a write: statements stop going there, and the prober asks now.
    func lost(_ index: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.current == index { state.current = nil }
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// A statement on the writable host ran out of time: the prober asks now whether it still takes writes.
    func suspect() {
        state.withLock { $0.takeWaiter() }?.resume()
    }

    /// Waits until ``lost(_:)`` or ``suspect()`` is called (at once if one was since the last wait), `interval` passes,
    /// or the task is cancelled.
    func wait(atMost interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: interval) }
            group.addTask { await self.waitForWake() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.wakeRequested || Task.isCancelled {
                        state.wakeRequested = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}

extension WritableHost.State {
    /// The waiting prober, taken so that it is resumed once; when none waits, the next wait returns at once.
    fileprivate mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
        guard let waiter else {
            wakeRequested = true
            return nil
        }
        self.waiter = nil
        return waiter
    }
}
