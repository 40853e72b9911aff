import Foundation
import TVEConcurrency
import Testing
import TVESandbox
import TVEAccessEnabler
import TVECrypto

/// Waits (up to 5 s) until `condition` holds.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<5000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// A gate an operation waits at until the test opens it (cancellation does not open it).
final class Gate: Sendable {
    private let state = Locked((isOpen: false, waiters: [CheckedContinuation<Void, Never>]()))

    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if !state.isOpen { state.waiters.append(waiter) }
                return state.isOpen
            }
            if isOpen { waiter.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension SerialQueue {
    /// `run` with the plain errors of a test.
    func run<Value>(_ operation: nonisolated(nonsending) () async throws -> Value) async throws -> Value {
        try await run(ifCancelled: CancellationError() as any Error, operation)
    }
}

@Suite("SerialQueue: one operation at a time, in order, cancellable while waiting")
struct SerialQueueTests {
    @Test("operations run one at a time, in the order their callers reached the queue")
    func ordering() async throws {
        let queue = SerialQueue()
        let log = Locked<[Int]>([])
        let active = Locked((now: 0, most: 0))
        let gate = Gate()
        let first = Task {
            try await queue.run {
                await gate.wait(); log.withLock { $0.append(0) }
            }
        }
        #expect(await eventually { queue.isBusy })
        var callers: [Task<Void, any Error>] = []
        for index in 1...20 {
            callers.append(
                Task {
                    try await queue.run {
                        active.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now)
                        }
                        try await Task.sleep(for: .milliseconds(1))
                        log.withLock { $0.append(index) }
                        active.withLock { $0.now -= 1 }
                    }
                })
            // The next caller arrives only once this one waits: the arrival order is known.
            #expect(await eventually { queue.waitingCount == index })
        }
        #expect(log.withLock { $0 }.isEmpty)
        gate.open()
        try await first.value
        for caller in callers { try await caller.value }
        #expect(log.withLock { $0 } == Array(0...20))
        #expect(active.withLock { $0.most } == 1)
        #expect(!queue.isBusy && queue.waitingCount == 0)
    }

    @Test("a caller cancelled while waiting stops waiting at once, never runs, and the callers behind it move up")
    func cancellationWhileWaiting() async throws {
        let queue = SerialQueue()
        let log = Locked<[String]>([])
        let gate = Gate()
        let holder = Task {
            try await queue.run {
                await gate.wait(); log.withLock { $0.append("holder") }
            }
        }
        #expect(await eventually { queue.isBusy })
        let first = Task { try await queue.run { log.withLock { $0.append("first") } } }
        #expect(await eventually { queue.waitingCount == 1 })
        let cancelled = Task { try await queue.run { log.withLock { $0.append("cancelled") } } }
        #expect(await eventually { queue.waitingCount == 2 })
        let last = Task { try await queue.run { log.withLock { $0.append("last") } } }
        #expect(await eventually { queue.waitingCount == 3 })

        cancelled.cancel()
        // It returns while the holder still holds the queue.
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.isBusy && queue.waitingCount == 2)
        gate.open()
        try await holder.value
        try await first.value
        try await last.value
        #expect(log.withLock { $0 } == ["holder", "first", "last"])
        #expect(!queue.isBusy)
    }

    @Test("a caller already cancelled does not run, even when the queue is free")
    func alreadyCancelled() async throws {
        let queue = SerialQueue()
        let ran = Locked(false)
        let gate = Gate()
        let caller = Task {
            await gate.wait()
            try await queue.run { ran.withLock { $0 = true } }
        }
        caller.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!ran.withLock { $0 } && !queue.isBusy)
    }

    @Test("cancelling the running operation's task does not free the queue before the operation returns")
    func cancellingTheRunningOperation() async throws {
        let queue = SerialQueue()
        let log = Locked<[String]>([])
        let gate = Gate()
        let running = Task {
            try await queue.run {
                await gate.wait()
                log.withLock { $0.append("running, cancelled: \(Task.isCancelled)") }
            }
        }
        #expect(await eventually { queue.isBusy })
        let next = Task { try await queue.run { log.withLock { $0.append("next") } } }
        #expect(await eventually { queue.waitingCount == 1 })
        running.cancel()
        try await Task.sleep(for: .milliseconds(20))
        #expect(log.withLock { $0 }.isEmpty && queue.waitingCount == 1)
        gate.open()
        try await running.value
        try await next.value
        #expect(log.withLock { $0 } == ["running, cancelled: true", "next"])
    }

    @Test("an operation that throws passes its error on and frees the queue for the next caller")
    func throwingOperation() async throws {
        struct Failure: Error, Equatable {}
        let queue = SerialQueue()
        await #expect(throws: Failure.self) {
            try await queue.run(ifCancelled: Failure()) { () async throws(Failure) in throw Failure() }
        }
        #expect(!queue.isBusy)
        #expect(try await queue.run { 42 } == 42)
    }

    @Test("many callers at once: each runs exactly once, never two together")
    func manyCallers() async throws {
        let queue = SerialQueue()
        let active = Locked((now: 0, most: 0, runs: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await queue.run {
                        active.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now); $0.runs += 1
                        }
                        await Task.yield()
                        active.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(active.withLock { $0.runs } == 200 && active.withLock { $0.most } == 1)
        #expect(!queue.isBusy && queue.waitingCount == 0)
    }
}
