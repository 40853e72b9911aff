internal import COpenSSL
internal import CTVEOpenSSL
import Foundation
import Synchronization

/// The contents of a PKCS#12 (`.p12`, `.pfx`) file (RFC 7292): an RSA private key, its certificate and the
/// rest of the chain.
///
/// Adobe Pass programmers receive their signing key as a PKCS#12 file; load it once per process (opening the
/// file costs milliseconds of PBKDF2) and keep the ``privateKey``.
///
/// Both kinds of file open:
/// - modern files (OpenSSL 3's default: AES-256-CBC, PBKDF2, HMAC-SHA-256);
/// - legacy files (3DES and RC2-40, HMAC-SHA-1: `openssl pkcs12 -legacy`, older Java and Windows exports).
///   OpenSSL 3 decrypts RC2 and single-DES only through its *legacy provider*. When a file needs it, TVEKit
///   loads that provider, once, into OpenSSL's default library context, next to the default provider. From
///   then on the legacy algorithms are available to every OpenSSL user in the process; nothing else changes.
///
/// The password is first checked against the file's MAC, so a wrong password is reported as
/// ``TVECryptoError/Code/wrongPassword`` and never confused with a damaged file. Files without a MAC (`openssl
/// pkcs12 -nomac`) have no integrity protection and are refused with ``TVECryptoError/Code/malformedPKCS12``.
///
/// The iteration counts of the MAC and of every password-encrypted part are read before any key derivation
/// runs; a file asking for more than ``maximumPBEIterations`` (2,000,000) is refused with
/// ``TVECryptoError/Code/inputTooLarge``, so a hostile file cannot keep a core busy for minutes.
public struct PKCS12Bundle: Sendable {
    /// The private key.
    public let privateKey: RSAPrivateKey
    /// The certificate of the private key.
    public let certificate: X509Certificate
    /// The other certificates in the file (intermediates, root), in file order.
    public let chain: [X509Certificate]

    /// The largest file accepted, 1 MiB.
    public static let maximumEncodedBytes = 1 << 20

    /// Opens a PKCS#12 file.
    /// - Parameters:
    ///   - derRepresentation: the file's bytes.
    ///   - password: the file's password (may be empty).
    /// - Throws: ``TVECryptoError/Code/malformedPKCS12`` (not PKCS#12, truncated, no key or no certificate),
    ///   ``TVECryptoError/Code/wrongPassword``, ``TVECryptoError/Code/unsupportedKeyType`` (not RSA),
    ///   ``TVECryptoError/Code/keyCertificateMismatch``, key size errors, size and iteration-count errors.
    public init(derRepresentation: some DataProtocol, password: String) throws {
        try checkInputSize(derRepresentation.count, limit: Self.maximumEncodedBytes, what: "PKCS#12 file")
        guard !password.utf8.contains(0) else {
            throw TVECryptoError.invalidParameter(reason: "the password contains a NUL character")
        }
        // A NUL-terminated copy that is wiped when released (the caller's String itself cannot be wiped).
        let utf8 = password.utf8
        let secret = SecureBytes(capacity: utf8.count + 1) { buffer in
            buffer.copyBytes(from: utf8)
            return utf8.count + 1
        }
        guard
            let p12 = derRepresentation.withContiguousBytes({
                RSAKeyPolicy.decodeDER($0, { d2i_PKCS12(nil, $0, $1) }, free: { PKCS12_free($0) })
            })
        else {
            throw TVECryptoError.malformedPKCS12(reason: "the data is not a complete PKCS#12 structure")
        }
        defer { PKCS12_free(p12) }

        let parts = try secret.withUnsafeBytes { raw -> (OpaquePointer, OpaquePointer, [OpaquePointer]) in
            let text = raw.bindMemory(to: CChar.self).baseAddress
            // An empty password may have been encoded either as an empty string or as no password at all.
            var candidates: [UnsafePointer<CChar>?] = [text]
            if utf8.isEmpty { candidates.append(nil) }
            // Bound the work first: every iteration count in the file, before any key derivation runs.
            for candidate in candidates {
                let iterations = copenssl_pkcs12_max_iterations(p12, candidate, RSAKeyPolicy.maximumPBEIterations)
                try RSAKeyPolicy.checkIterations(iterations, what: "PKCS#12 file")
            }
            // A file without a MAC has no integrity protection (its certificate could be swapped unnoticed), and
            // OpenSSL's PKCS12_parse refuses it whenever a password is given: refuse it clearly instead.
            guard PKCS12_mac_present(p12) == 1 else {
                throw TVECryptoError.malformedPKCS12(reason: "the PKCS#12 file has no MAC (integrity check); such files are not accepted")
            }
            guard let chosen = candidates.first(where: { PKCS12_verify_mac(p12, $0, -1) == 1 }) else {
                throw TVECryptoError.wrongPassword(reason: "the password does not match the PKCS#12 MAC")
            }
            return try Self.parse(p12, password: chosen)
        }
        let (keyPointer, certificatePointer, chainPointers) = parts
        var chainOwned = chainPointers[...]
        let certificate: X509Certificate
        do {
            defer { EVP_PKEY_free(keyPointer) }
            certificate = try X509Certificate(taking: certificatePointer)
            guard X509_check_private_key(certificatePointer, keyPointer) == 1 else {
                throw TVECryptoError.keyCertificateMismatch(reason: "the PKCS#12 private key does not belong to its certificate")
            }
            privateKey = try RSAPrivateKey(backing: EVPKey.retaining(keyPointer), allowingSmallKeys: false)
            var chain: [X509Certificate] = []
            while let next = chainOwned.popFirst() { chain.append(try X509Certificate(taking: next)) }
            self.chain = chain
        } catch {
            chainOwned.forEach { X509_free($0) }
            throw error
        }
        self.certificate = certificate
    }

    /// The most PKCS#12 and PBKDF2 iterations a file may ask for (see the type's documentation).
    public static var maximumPBEIterations: Int { RSAKeyPolicy.maximumPBEIterations }

    /// Runs `PKCS12_parse`. When it fails because an algorithm is missing from the loaded providers (RC2 and DES
    /// live in the legacy provider), loads the legacy provider and tries once more. Returns owned pointers.
    private static func parse(_ p12: OpaquePointer, password: UnsafePointer<CChar>?) throws -> (
        OpaquePointer, OpaquePointer, [OpaquePointer]
    ) {
        var result = parseOnce(p12, password: password)
        if result == nil {
            let needsLegacy = copenssl_drain_errors_has_unsupported() == 1
            if needsLegacy, !LegacyProvider.isLoaded, LegacyProvider.load() {
                result = parseOnce(p12, password: password)
            }
        }
        guard let (key, certificate, chain) = result else {
            throw TVECryptoError.malformedPKCS12(reason: "the PKCS#12 contents cannot be decrypted or parsed")
        }
        guard let key else {
            certificate.map { X509_free($0) }
            chain.forEach { X509_free($0) }
            throw TVECryptoError.malformedPKCS12(reason: "the PKCS#12 file holds no private key")
        }
        guard let certificate else {
            EVP_PKEY_free(key)
            chain.forEach { X509_free($0) }
            throw TVECryptoError.malformedPKCS12(reason: "the PKCS#12 file holds no certificate for its key")
        }
        return (key, certificate, chain)
    }

    private static func parseOnce(_ p12: OpaquePointer, password: UnsafePointer<CChar>?) -> (
        OpaquePointer?, OpaquePointer?, [OpaquePointer]
    )? {
        var key: OpaquePointer? = nil
        var certificate: OpaquePointer? = nil
        var stack: OpaquePointer? = nil
        guard PKCS12_parse(p12, password, &key, &certificate, &stack) == 1 else {
            // PKCS12_parse does not free a chain stack it allocated before failing.
            if let stack { copenssl_sk_X509_pop_free(stack) }
            return nil
        }
        var chain: [OpaquePointer] = []
        if let stack {
            let count = copenssl_sk_X509_num(stack)
            for index in 0..<max(count, 0) {
                if let item = copenssl_sk_X509_value(stack, index) {
                    X509_up_ref(item)
                    chain.append(item)
                }
            }
            copenssl_sk_X509_pop_free(stack)
        }
        return (key, certificate, chain)
    }
}

/// OpenSSL's legacy provider (RC2, DES, ...), loaded at most once per process, only when a file needs it.
enum LegacyProvider {
    /// The provider handles, kept for the life of the process (the providers stay loaded; keeping the handles
    /// also keeps them reachable, so leak checkers do not report them).
    private final class Handles: @unchecked Sendable {
        // Sendable: written once in the lazy initialiser, never read or changed afterwards.
        let handles: [OpaquePointer]
        init(_ handles: [OpaquePointer]) { self.handles = handles }
    }

    private static let loaded: Handles? = {
        // Loading one provider explicitly turns off the automatic fallback to the default provider in a
        // context that has not used it yet, so load the default provider too.
        guard let defaultProvider = OSSL_PROVIDER_load(nil, "default") else {
            ERR_clear_error()
            return nil
        }
        guard let legacyProvider = OSSL_PROVIDER_load(nil, "legacy") else {
            ERR_clear_error()
            return Handles([defaultProvider])
        }
        return Handles([defaultProvider, legacyProvider])
    }()
    private static let attempted = AtomicFlag()

    static var isLoaded: Bool { attempted.isSet && (loaded?.handles.count ?? 0) == 2 }

    /// Loads the provider (once); returns whether it is available.
    static func load() -> Bool {
        attempted.set()
        return (loaded?.handles.count ?? 0) == 2
    }
}

/// A flag that is set once and read from any thread.
final class AtomicFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
