internal import COpenSSL

/// OpenSSL algorithm objects fetched once per process.
///
/// In OpenSSL 3, passing a legacy `EVP_sha256()`-style object makes every init call fetch the
/// implementation from the provider again; fetching once and reusing the object removes that cost from
/// every hash, signature and cipher call. Fetched objects are immutable and reference counted, so one
/// object serves every thread.
final class FetchedAlgorithms: @unchecked Sendable {
    // Sendable: the pointers are written once in `init` and only read afterwards; OpenSSL's fetched
    // EVP_MD/EVP_CIPHER objects are safe to share between threads.
    let sha1: OpaquePointer
    let sha224: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer
    let aes128CBC: OpaquePointer
    let aes192CBC: OpaquePointer
    let aes256CBC: OpaquePointer
    let aes128GCM: OpaquePointer
    let aes192GCM: OpaquePointer
    let aes256GCM: OpaquePointer

    init() {
        func md(_ name: String, _ fallback: () -> OpaquePointer?) -> OpaquePointer {
            // The default provider always has these. The fallback is OpenSSL's built-in static table
            // (EVP_sha256() and friends return the address of a static object and are never NULL).
            if let fetched = EVP_MD_fetch(nil, name, nil) { return fetched }
            ERR_clear_error()
            return fallback().unsafelyUnwrapped
        }
        func cipher(_ name: String, _ fallback: () -> OpaquePointer?) -> OpaquePointer {
            if let fetched = EVP_CIPHER_fetch(nil, name, nil) { return fetched }
            ERR_clear_error()
            return fallback().unsafelyUnwrapped
        }
        sha1 = md("SHA1", EVP_sha1)
        sha224 = md("SHA2-224", EVP_sha224)
        sha256 = md("SHA2-256", EVP_sha256)
        sha384 = md("SHA2-384", EVP_sha384)
        sha512 = md("SHA2-512", EVP_sha512)
        aes128CBC = cipher("AES-128-CBC", EVP_aes_128_cbc)
        aes192CBC = cipher("AES-192-CBC", EVP_aes_192_cbc)
        aes256CBC = cipher("AES-256-CBC", EVP_aes_256_cbc)
        aes128GCM = cipher("AES-128-GCM", EVP_aes_128_gcm)
        aes192GCM = cipher("AES-192-GCM", EVP_aes_192_gcm)
        aes256GCM = cipher("AES-256-GCM", EVP_aes_256_gcm)
    }

    static let shared = FetchedAlgorithms()
}
