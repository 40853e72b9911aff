#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a pthread mutex: the one lock of the package (see ARCHITECTURE.md, "Synchronisation").
///
/// TVEKit uses two synchronisation primitives, and only these: `Locked` for state that several threads read and
/// change together, and the standard library's `Atomic` (module `Synchronization`) for a single flag or counter.
/// `Locked` is built on a pthread mutex rather than `Synchronization.Mutex` because ThreadSanitizer understands
/// pthread locks: with `Mutex` (futex-based on Linux), `make sanitize` reports the guarded state as racy. Never
/// hold it across an `await` or a call that waits (the closure is synchronous).
package final class Locked<Value>: @unchecked Sendable {
    // Sendable: `value` is only touched inside `withLock`, under the mutex.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock.
    @inline(__always)
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// The value when no other thread can reach it any more (in a `deinit`), without the lock.
    package var unlockedValue: Value { value }
}
