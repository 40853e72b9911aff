import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A pthread mutex. Chosen over `Synchronization.Mutex` because ThreadSanitizer understands pthread locks, so
/// `swift test --sanitize=thread` checks the code that uses it instead of reporting the lock itself.
final class Lock: @unchecked Sendable {
    // Sendable: the mutex is the synchronisation; it is only touched through pthread calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// Serialises every call into OpenSSL's decoders (key, certificate and PKCS#12 parsing).
///
/// OpenSSL 3.0's decoder framework has had thread-safety bugs (openssl/openssl#14020), and under
/// ThreadSanitizer's timing concurrent private-key decoding was seen to fail with `DECODER routines::unsupported`.
/// TVEKit parses keys once per process, so holding one lock while parsing costs nothing where it matters; the
/// operations on parsed keys (verify, sign, decrypt) are never serialised.
let openSSLDecoderLock = Lock(recursive: true)
