internal import COpenSSL
import Foundation

/// Bytes that hold a secret (private key material, a decrypted plaintext, a password), wiped with
/// `OPENSSL_cleanse` when the last copy goes away.
///
/// `SecureBytes` is an immutable value: copies share one buffer, which is wiped and freed when the last copy
/// is released. Its `description` never shows the contents. Compare two values with `==`, which runs in time
/// that depends only on the lengths.
///
/// Read the bytes with ``withUnsafeBytes(_:)`` (no copy) or as a collection. Converting to `[UInt8]`,
/// `Data` or `String` makes a copy that TVEKit cannot wipe: do that only for values that are not secret
/// once decrypted, or at the very edge of your program.
public struct SecureBytes: Sendable, RandomAccessCollection, DataProtocol, ContiguousBytes, Hashable,
    CustomStringConvertible, CustomDebugStringConvertible
{
    final class Storage: @unchecked Sendable {
        // Sendable: the buffer is written only inside `init` before the storage is shared, then only read;
        // `deinit` runs when no other reference exists.
        let buffer: UnsafeMutableRawBufferPointer
        var count: Int

        init(capacity: Int) {
            buffer = .allocate(byteCount: Swift.max(capacity, 1), alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            count = capacity
        }

        deinit {
            wipe(buffer)
            buffer.deallocate()
        }
    }

    let storage: Storage

    /// Makes a buffer of `capacity` bytes and lets `initializer` fill it; `initializer` returns how many
    /// bytes it wrote (at most `capacity`). The bytes past that count are wiped.
    init(capacity: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        let storage = Storage(capacity: capacity)
        let writable = UnsafeMutableRawBufferPointer(rebasing: storage.buffer[0..<capacity])
        let written = try initializer(writable)
        let used = Swift.min(Swift.max(written, 0), capacity)
        if used < capacity {
            wipe(UnsafeMutableRawBufferPointer(rebasing: storage.buffer[used..<capacity]))
        }
        storage.count = used
        self.storage = storage
    }

    /// Copies `bytes` into a new secret buffer. The source is not wiped: wipe it yourself when you own it.
    public init(_ bytes: some DataProtocol) {
        let count = bytes.count
        self.init(capacity: count) { target in
            bytes.copyBytes(to: target)
            return count
        }
    }

    /// Copies the UTF-8 bytes of `string` (for passwords). The `String` itself cannot be wiped.
    public init(utf8 string: String) {
        let utf8 = string.utf8
        self.init(capacity: utf8.count) { buffer in
            buffer.copyBytes(from: utf8)
            return utf8.count
        }
    }

    /// The number of bytes.
    public var count: Int { storage.count }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < storage.count, "SecureBytes index out of range")
        return storage.buffer.load(fromByteOffset: position, as: UInt8.self)
    }

    public var regions: CollectionOfOne<SecureBytes> { CollectionOfOne(self) }

    /// Calls `body` with the bytes, without copying them.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.buffer[0..<storage.count]))
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
    }

    /// Compares in time that depends only on the two lengths.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        ConstantTime.equals(lhs, rhs)
    }

    /// Hashes the length only, so a hash table never leaks contents through timing.
    public func hash(into hasher: inout Hasher) { hasher.combine(count) }

    public var description: String { "SecureBytes(\(count) bytes)" }
    public var debugDescription: String { description }
}
