internal import COpenSSL
import Foundation

extension DataProtocol {
    /// Calls `body` with the bytes as one contiguous buffer, copying only when the collection is not contiguous
    /// (a `DispatchData` with several regions, say). A copy made here is wiped before it is freed.
    @inlinable @inline(__always)
    func withContiguousBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = [UInt8](self)
        defer { copy.withUnsafeMutableBytes { wipe($0) } }
        return try copy.withUnsafeBytes { try body($0) }
    }
}

/// Overwrites memory with zeros in a way the optimiser cannot remove (`OPENSSL_cleanse`).
@usableFromInline
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    OPENSSL_cleanse(base, buffer.count)
}

/// A pointer that is never null, for C calls that reject `NULL` even when the length is zero.
// nonisolated(unsafe): the byte is written once here and never again; it is only ever read.
nonisolated(unsafe) let emptyBytePointer: UnsafePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
}()

extension UnsafeRawBufferPointer {
    /// The start as `UInt8` pointer, or a valid pointer to a zero byte when the buffer is empty.
    var bytePointer: UnsafePointer<UInt8> {
        baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyBytePointer
    }
}

/// Checks an input size against a documented limit, and that it is not empty.
func checkInputSize(_ count: Int, limit: Int, what: String) throws {
    if count == 0 { throw TVECryptoError.emptyInput(reason: "the \(what) is empty") }
    if count > limit { throw TVECryptoError.inputTooLarge(reason: "the \(what) is \(count) bytes; the limit is \(limit)") }
}

/// Lowercase hexadecimal text of bytes.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
