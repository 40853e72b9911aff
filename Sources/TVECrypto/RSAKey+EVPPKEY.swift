// The keys' OpenSSL handles, lent to the rest of the package: TVEBenchmarkSupport sets up its own bare OpenSSL
// contexts on the same `EVP_PKEY` (the baselines that `tvekit speed` and the benchmarks compare TVEKit against).
// `package`, so nothing outside TVEKit sees them; the pointer is an `OpaquePointer`, no C type.

extension RSAPublicKey {
    /// Runs `body` with the key's `EVP_PKEY`, which stays alive for the call.
    ///
    /// `body` must not free the pointer or keep it past the call without taking a reference of its own
    /// (`EVP_PKEY_CTX_new_from_pkey` takes one).
    package func withUnsafeEVPPKEY<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(backing) { try body(backing.pointer) }
    }
}

extension RSAPrivateKey {
    /// Runs `body` with the key's `EVP_PKEY` (the private key), which stays alive for the call.
    ///
    /// `body` must not free the pointer or keep it past the call without taking a reference of its own
    /// (`EVP_PKEY_CTX_new_from_pkey` takes one).
    package func withUnsafeEVPPKEY<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(backing) { try body(backing.pointer) }
    }
}
