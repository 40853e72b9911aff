internal import COpenSSL
internal import CTVEOpenSSL
import Foundation
import TVEConcurrency

/// Owns one `EVP_PKEY` and a small pool of initialised operation contexts for it.
///
/// OpenSSL 3 makes each `EVP_PKEY_*_init` fetch the algorithm implementation from the provider; a context that
/// was initialised once can run the same operation again and again. The pool keeps such contexts, keyed by
/// operation and parameters, and lends each to one caller at a time, so the hot paths (verify, sign, decrypt)
/// skip the fetch and the allocation after the first call on each thread.
final class EVPKey: @unchecked Sendable {
    // Sendable: the EVP_PKEY is immutable after construction and its reference count is atomic; contexts
    // in the pool are only touched under `pool`'s lock or by the single caller that borrowed them.
    let pointer: OpaquePointer
    let bits: Int
    let byteCount: Int

    enum Operation: Hashable {
        case verify(HashFunction)
        case sign(HashFunction)
        case decryptPKCS1
        case decryptOAEP(HashFunction, HashFunction)
        case encryptPKCS1
        case encryptOAEP(HashFunction, HashFunction)
    }

    /// An initialised `EVP_PKEY_CTX`, plus an `EVP_MD_CTX` for the operations that hash their input first.
    ///
    /// Verification contexts carry no `EVP_PKEY_CTX` (`pointer` is `nil`): they verify with ``RSAPublicOperation``.
    struct Context: @unchecked Sendable {
        // Sendable: a context in the pool belongs to nobody until it is taken out under the lock.
        let pointer: OpaquePointer?
        let digest: OpaquePointer?
        let rsaPublic: RSAPublicOperation?

        func free() {
            EVP_PKEY_CTX_free(pointer)
            if let digest { EVP_MD_CTX_free(digest) }
        }

        /// Hashes `input` into `output` (room for `hash.digestByteCount` bytes) with the pooled digest context.
        func hash(_ input: UnsafeRawBufferPointer, with hash: HashFunction, into output: UnsafeMutablePointer<UInt8>) -> Bool {
            guard let digest else { return (try? hash.digestInto(input, output)) != nil }
            var length: UInt32 = 0
            return EVP_DigestInit_ex2(digest, hash.evpMD, nil) == 1
                && EVP_DigestUpdate(digest, input.baseAddress ?? UnsafeRawPointer(emptyBytePointer), input.count) == 1
                && EVP_DigestFinal_ex(digest, output, &length) == 1
                && Int(length) == hash.digestByteCount
        }
    }

    /// The most idle contexts kept per operation (more than the threads that usually share one key).
    private static let poolLimit = 16
    // A key serves a handful of operations at most, so a linear scan beats hashing the key.
    private let pool = Locked<[(operation: Operation, contexts: [Context])]>([])

    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        bits = Int(EVP_PKEY_get_bits(pointer))
        byteCount = Int(EVP_PKEY_get_size(pointer))
    }

    deinit {
        // No other reference exists while deinit runs, so the pool needs no lock here.
        for context in pool.unlockedValue.flatMap(\.contexts) { context.free() }
        EVP_PKEY_free(pointer)
    }

    /// Runs `body` with an initialised context for `operation`, then returns the context to the pool.
    ///
    /// A context whose operation merely failed (a signature that does not verify, a ciphertext that does not
    /// decrypt) goes back to the pool: OpenSSL's RSA contexts keep no per-call state, and treating failures like
    /// successes keeps the two paths alike. A context is freed when `body` throws, and contexts with an OAEP label
    /// are never pooled.
    func withContext<R>(for operation: Operation, label: [UInt8] = [], _ body: (Context) throws -> R) throws -> R {
        let poolable = label.isEmpty
        let reused: Context? =
            poolable
            ? pool.withLock { pool -> Context? in
                for index in pool.indices where pool[index].operation == operation { return pool[index].contexts.popLast() }
                return nil
            } : nil
        let context = try reused ?? makeContext(for: operation, label: label)
        do {
            let result = try body(context)
            if poolable {
                let kept = pool.withLock { pool -> Bool in
                    // Mutate in place: copying the array out and back would allocate on every call.
                    guard let index = pool.firstIndex(where: { $0.operation == operation }) else {
                        pool.append((operation, [context]))
                        return true
                    }
                    guard pool[index].contexts.count < Self.poolLimit else { return false }
                    pool[index].contexts.append(context)
                    return true
                }
                if !kept { context.free() }
            } else {
                context.free()
            }
            return result
        } catch {
            context.free()
            throw error
        }
    }

    private func makeContext(for operation: Operation, label: [UInt8]) throws -> Context {
        if case .verify = operation {
            let rsaPublic = try RSAPublicOperation(key: pointer)
            guard let digest = EVP_MD_CTX_new() else {
                throw TVECryptoError.openSSLFailure(reason: "EVP_MD_CTX_new failed")
            }
            return Context(pointer: nil, digest: digest, rsaPublic: rsaPublic)
        }
        let context = try makeKeyContext(for: operation, label: label)
        switch operation {
        case .sign:
            guard let digest = EVP_MD_CTX_new() else {
                EVP_PKEY_CTX_free(context)
                throw TVECryptoError.openSSLFailure(reason: "EVP_MD_CTX_new failed")
            }
            return Context(pointer: context, digest: digest, rsaPublic: nil)
        default:
            return Context(pointer: context, digest: nil, rsaPublic: nil)
        }
    }

    private func makeKeyContext(for operation: Operation, label: [UInt8]) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw TVECryptoError.openSSLFailure(reason: "EVP_PKEY_CTX_new_from_pkey failed")
        }
        var ok: Bool
        switch operation {
        case .verify:
            ok = false  // verification contexts are made by `makeContext` without an EVP_PKEY_CTX
        case .sign(let hash):
            ok =
                EVP_PKEY_sign_init(context) == 1
                && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
                && EVP_PKEY_CTX_set_signature_md(context, hash.evpMD) == 1
        case .decryptPKCS1:
            ok =
                EVP_PKEY_decrypt_init(context) == 1
                && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
                && copenssl_rsa_disable_implicit_rejection(context) == 1
        case .encryptPKCS1:
            ok =
                EVP_PKEY_encrypt_init(context) == 1
                && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        case .decryptOAEP(let hash, let mgf1), .encryptOAEP(let hash, let mgf1):
            if case .decryptOAEP = operation {
                ok = EVP_PKEY_decrypt_init(context) == 1
            } else {
                ok = EVP_PKEY_encrypt_init(context) == 1
            }
            ok =
                ok
                && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_oaep_md(context, hash.evpMD) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(context, mgf1.evpMD) == 1
            if ok, !label.isEmpty {
                ok = label.withUnsafeBufferPointer { copenssl_rsa_set_oaep_label(context, $0.baseAddress, $0.count) == 1 }
            }
        }
        guard ok else {
            EVP_PKEY_CTX_free(context)
            throw TVECryptoError.openSSLFailure(reason: "could not set up an RSA context for \(operation)")
        }
        return context
    }

    /// Takes a new reference to the same `EVP_PKEY`.
    static func retaining(_ pointer: OpaquePointer) -> EVPKey {
        EVP_PKEY_up_ref(pointer)
        return EVPKey(taking: pointer)
    }
}

/// Owns one `BIO` for the length of a call.
final class BIOBox {
    let pointer: OpaquePointer
    /// An empty, growable memory BIO.
    init() throws {
        guard let pointer = BIO_new(BIO_s_mem()) else { throw TVECryptoError.openSSLFailure(reason: "BIO_new failed") }
        self.pointer = pointer
    }
    /// The bytes written so far.
    var contents: [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = copenssl_BIO_get_mem_data(pointer, &data)
        guard let data, length > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }
    var string: String { String(decoding: contents, as: UTF8.self) }
    deinit { BIO_free(pointer) }
}
