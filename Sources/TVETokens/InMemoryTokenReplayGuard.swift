import Foundation
import TVEConcurrency
import TVECrypto

/// A bounded in-memory ``TokenReplayGuard`` for one process.
///
/// Records expire with their token and are dropped as time passes (a min-heap by expiry, O(log n) per token).
/// Memory is capped at ``capacity`` records; when that many unexpired tokens are recorded, new tokens are refused
/// (fail closed: they verify as `TOKEN_REPLAYED`) rather than forgetting a record that could then be replayed.
/// Safe to share between threads and tasks. Several processes need a shared store instead (implement the protocol).
public final class InMemoryTokenReplayGuard: TokenReplayGuard, Sendable {
    /// The records: by key, and a min-heap by expiry.
    fileprivate struct Records {
        var expiries: [TokenReplayKey: Int64] = [:]
        var heap: [(expiresAt: Int64, key: TokenReplayKey)] = []
    }

    /// The most records kept at once.
    public let capacity: Int
    private let records = Locked(Records())

    /// - Parameter capacity: the most unexpired tokens remembered (default 1,000,000, about 100 MB at most).
    public init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    /// The number of records currently kept.
    public var count: Int { records.withLock { $0.expiries.count } }

    public func recordFirstUse(of key: TokenReplayKey, expiresAt: Int64, now: Int64) -> Bool {
        records.withLock { records in
            records.evictExpired(now: now)
            if let recorded = records.expiries[key], recorded > now { return false }
            guard records.expiries.count < capacity else { return false }
            records.expiries[key] = expiresAt
            records.push((expiresAt, key))
            return true
        }
    }
}

extension InMemoryTokenReplayGuard.Records {
    mutating func evictExpired(now: Int64) {
        while let top = heap.first, top.expiresAt <= now {
            pop()
            if let recorded = expiries[top.key], recorded <= now { expiries[top.key] = nil }
        }
    }

    mutating func push(_ element: (expiresAt: Int64, key: TokenReplayKey)) {
        heap.append(element)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].expiresAt < heap[parent].expiresAt else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].expiresAt < heap[smallest].expiresAt { smallest = left }
            if right < heap.count, heap[right].expiresAt < heap[smallest].expiresAt { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
