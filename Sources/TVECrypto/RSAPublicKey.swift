internal import COpenSSL
import Foundation

/// An RSA public key, parsed once and kept as an OpenSSL `EVP_PKEY`.
///
/// Load keys once and reuse the value: parsing costs far more than a verification (OpenSSL 3's decoders make
/// a per-call parse 10 to 25 times slower than the verify itself). One value is safe to use from many threads
/// and tasks at once; each call borrows an initialised OpenSSL context from a small per-key pool.
///
/// Keys under 2048 bits are refused with ``TVECryptoError/Code/keyTooSmall`` unless you load them through an
/// `unsafe` initialiser; keys over 16384 bits are refused always.
public struct RSAPublicKey: Sendable, Hashable, CustomStringConvertible {
    let backing: EVPKey
    /// The SubjectPublicKeyInfo DER encoding (RFC 5280 §4.1.2.7).
    public let derRepresentation: [UInt8]

    init(backing: EVPKey, allowingSmallKeys: Bool) throws {
        try self.init(backing: backing, policy: allowingSmallKeys ? .unsafe : .standard)
    }

    /// Which key sizes a loader accepts.
    enum SizePolicy {
        /// 2048 bits and up.
        case standard
        /// 1024 bits and up: the `allowing1024BitKeys` loaders.
        case legacy1024
        /// 512 bits and up: the `unsafe` initialisers.
        case unsafe

        init(allowing1024BitKeys: Bool) { self = allowing1024BitKeys ? .legacy1024 : .standard }

        func check(_ key: OpaquePointer) throws {
            switch self {
            case .standard:
                try RSAKeyPolicy.check(
                    key, minimumBits: RSAKeyPolicy.minimumBits,
                    hint: " (pass allowing1024BitKeys: true to accept a 1024-bit key)")
            case .legacy1024: try RSAKeyPolicy.check(key, minimumBits: RSAKeyPolicy.minimumLegacyBits, hint: "")
            case .unsafe: try RSAKeyPolicy.check(key, minimumBits: RSAKeyPolicy.minimumUnsafeBits, hint: "")
            }
        }
    }

    init(backing: EVPKey, policy: SizePolicy) throws {
        try policy.check(backing.pointer)
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(backing.pointer, &output)
        guard length > 0, let output else { throw TVECryptoError.openSSLFailure(reason: "i2d_PUBKEY failed") }
        derRepresentation = [UInt8](UnsafeBufferPointer(start: output, count: Int(length)))
        copenssl_OPENSSL_free(output)
        self.backing = backing
    }

    /// Loads a PEM public key: `PUBLIC KEY` (SubjectPublicKeyInfo) or `RSA PUBLIC KEY` (PKCS#1).
    /// - Throws: ``TVECryptoError/Code/malformedKey``, ``TVECryptoError/Code/unsupportedKeyType``,
    ///   ``TVECryptoError/Code/keyTooSmall``, ``TVECryptoError/Code/keyTooLarge``, size errors.
    public init(pemRepresentation: String) throws {
        try self.init(pem: Array(pemRepresentation.utf8), policy: .standard, certificates: false)
    }

    /// Loads a DER public key: SubjectPublicKeyInfo or PKCS#1 `RSAPublicKey`. Trailing bytes are an error.
    public init(derRepresentation: some DataProtocol) throws {
        try self.init(der: derRepresentation, policy: .standard)
    }

    /// Like ``init(pemRepresentation:)`` but accepts keys from 512 bits up.
    /// - Warning: keys under 2048 bits can be factored by well-funded attackers; use this only for legacy data
    ///   and tests.
    public init(unsafePEMRepresentation pem: String) throws {
        try self.init(pem: Array(pem.utf8), policy: .unsafe, certificates: false)
    }

    /// Like ``init(derRepresentation:)`` but accepts keys from 512 bits up.
    /// - Warning: see ``init(unsafePEMRepresentation:)``.
    public init(unsafeDERRepresentation der: some DataProtocol) throws {
        try self.init(der: der, policy: .unsafe)
    }

    /// The public key of an X.509 certificate.
    /// - Parameters:
    ///   - certificate: the certificate whose subject public key is taken (its validity is not checked here).
    ///   - allowing1024BitKeys: accept keys of 1024 to 2047 bits (legacy signers such as Adobe's media-token key of
    ///     2015–2017); off by default. Only for verifying what such a key signed.
    public init(certificate: X509Certificate, allowing1024BitKeys: Bool = false) throws {
        try self.init(certificate: certificate, policy: SizePolicy(allowing1024BitKeys: allowing1024BitKeys))
    }

    init(certificate: X509Certificate, policy: SizePolicy) throws {
        guard let key = X509_get0_pubkey(certificate.backing.pointer) else {
            throw TVECryptoError.malformedCertificate(reason: "the certificate's public key cannot be decoded")
        }
        try self.init(backing: EVPKey.retaining(key), policy: policy)
    }

    /// Loads whatever a key file may hold: a PEM or DER public key (SubjectPublicKeyInfo or PKCS#1) or an
    /// X.509 certificate (PEM or DER), whose key is taken. This is what `tvekit signature verify` reads.
    /// - Parameters:
    ///   - bytes: the file's contents, PEM or DER.
    ///   - allowing1024BitKeys: accept keys of 1024 to 2047 bits; off by default. Only for verifying what a legacy
    ///     signer signed (Adobe's media-token key of 2015–2017 has 1024 bits).
    public init(encodedKeyOrCertificate bytes: some DataProtocol, allowing1024BitKeys: Bool = false) throws {
        let policy = SizePolicy(allowing1024BitKeys: allowing1024BitKeys)
        try checkInputSize(bytes.count, limit: X509Certificate.maximumEncodedBytes, what: "public key or certificate")
        if PEMBlock.looksLikePEM(bytes) {
            try self.init(pem: [UInt8](bytes), policy: policy, certificates: true)
            return
        }
        if let key = RSAKeyPolicy.decodeDERPublicKeyOrNil(bytes) {
            try self.init(backing: EVPKey(taking: key), policy: policy)
            return
        }
        let certificate: X509Certificate
        do {
            certificate = try X509Certificate(derRepresentation: bytes)
        } catch let error as TVECryptoError where error.code == .malformedCertificate {
            throw TVECryptoError.malformedKey(reason: "the bytes are neither a public key nor a certificate, in PEM or DER")
        }
        try self.init(certificate: certificate, policy: policy)
    }

    /// Loads every key of a file that may hold several: PEM blocks of certificates and public keys (`CERTIFICATE`,
    /// `PUBLIC KEY`, `RSA PUBLIC KEY`, in order; other blocks are ignored), or one DER public key or certificate,
    /// or concatenated DER certificates. This is what `tvekit token verify --cert` reads.
    /// - Throws: ``TVECryptoError/Code/malformedKey`` when no key is found, or the error of the first unusable key.
    public static func keys(encodedKeysOrCertificates bytes: some DataProtocol, allowing1024BitKeys: Bool = false) throws -> [RSAPublicKey]
    {
        let policy = SizePolicy(allowing1024BitKeys: allowing1024BitKeys)
        try checkInputSize(bytes.count, limit: X509Certificate.maximumEncodedBytes, what: "public keys or certificates")
        if PEMBlock.looksLikePEM(bytes) {
            let blocks: [PEMBlock]
            switch PEMBlock.parseAll(bytes) {
            case .success(let parsed): blocks = parsed
            case .failure(let error): throw TVECryptoError.malformedKey(reason: error.reason)
            }
            var keys: [RSAPublicKey] = []
            for block in blocks {
                switch block.label {
                case "CERTIFICATE":
                    keys.append(try RSAPublicKey(certificate: X509Certificate(derRepresentation: block.der), policy: policy))
                case "PUBLIC KEY", "RSA PUBLIC KEY": keys.append(try RSAPublicKey(der: block.der, policy: policy))
                default: continue
                }
            }
            guard !keys.isEmpty else {
                throw TVECryptoError.malformedKey(reason: "no CERTIFICATE, PUBLIC KEY or RSA PUBLIC KEY block found")
            }
            return keys
        }
        if let key = RSAKeyPolicy.decodeDERPublicKeyOrNil(bytes) {
            return [try RSAPublicKey(backing: EVPKey(taking: key), policy: policy)]
        }
        let certificates: [X509Certificate]
        do {
            certificates = try X509Certificate.certificates(derRepresentation: bytes)
        } catch let error as TVECryptoError where error.code == .malformedCertificate {
            throw TVECryptoError.malformedKey(reason: "the bytes are neither public keys nor certificates, in PEM or DER")
        }
        guard !certificates.isEmpty else { throw TVECryptoError.malformedKey(reason: "the input is empty") }
        return try certificates.map { try RSAPublicKey(certificate: $0, policy: policy) }
    }

    init(der: some DataProtocol, policy: SizePolicy) throws {
        try checkInputSize(der.count, limit: RSAKeyPolicy.maximumEncodedKeyBytes, what: "DER public key")
        guard let key = der.withContiguousBytes({ RSAKeyPolicy.decodePublicDER($0) }) else {
            throw TVECryptoError.malformedKey(reason: "the DER data is not a SubjectPublicKeyInfo or PKCS#1 RSAPublicKey")
        }
        try self.init(backing: EVPKey(taking: key), policy: policy)
    }

    private init(pem: [UInt8], policy: SizePolicy, certificates: Bool) throws {
        try checkInputSize(
            pem.count, limit: certificates ? X509Certificate.maximumEncodedBytes : RSAKeyPolicy.maximumEncodedKeyBytes,
            what: "PEM public key")
        let blocks: [PEMBlock]
        switch PEMBlock.parseAll(pem) {
        case .success(let parsed): blocks = parsed
        case .failure(let error): throw TVECryptoError.malformedKey(reason: error.reason)
        }
        let accepted = ["PUBLIC KEY", "RSA PUBLIC KEY"] + (certificates ? ["CERTIFICATE"] : [])
        guard let block = blocks.first(where: { accepted.contains($0.label) }) else {
            let found = blocks.map(\.label)
            if found.contains(where: { $0.contains("PRIVATE KEY") }) {
                throw TVECryptoError.malformedKey(reason: "the PEM holds a private key where a public key was expected")
            }
            throw TVECryptoError.malformedKey(
                reason: found.isEmpty
                    ? "no PEM block found"
                    : "no public key block; found \(found.joined(separator: ", "))")
        }
        if block.label == "CERTIFICATE" {
            try self.init(certificate: X509Certificate(derRepresentation: block.der), policy: policy)
            return
        }
        try self.init(der: block.der, policy: policy)
    }

    /// The modulus length in bits.
    public var keySizeInBits: Int { backing.bits }

    /// The modulus length in bytes (k in RFC 8017): the size of a signature and of one ciphertext block.
    public var modulusByteCount: Int { backing.byteCount }

    /// The PEM encoding (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo).
    public var pemRepresentation: String {
        "-----BEGIN PUBLIC KEY-----\n" + Base64.encode(derRepresentation, lineLength: 64) + "\n-----END PUBLIC KEY-----\n"
    }

    /// The SHA-256 digest of ``derRepresentation``, as hexadecimal text (a key identifier for logs).
    public var sha256Fingerprint: String {
        hexString((try? HashFunction.sha256.hash(derRepresentation)) ?? [])
    }

    public var description: String { "RSAPublicKey(\(keySizeInBits) bits, sha256 \(sha256Fingerprint.prefix(16)))" }

    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }

    // MARK: Signatures

    /// Returns whether `signature` is a valid signature of `message` under this key.
    ///
    /// The signature must be exactly as long as the modulus (RFC 8017 §8.2.2 step 1). The encoded
    /// `DigestInfo` is compared in full, so BER variants, trailing garbage and wrong hashes are rejected.
    /// - Parameters:
    ///   - signature: the raw signature bytes (decode Base64 first).
    ///   - message: the signed bytes; they are hashed here.
    ///   - padding: the scheme and hash; ``RSASignaturePadding/pkcs1v15SHA256`` by default.
    /// - Returns: `true` only for a valid signature. Never throws: any failure is `false`.
    @inlinable
    public func isValidSignature(
        _ signature: some DataProtocol, for message: some DataProtocol,
        padding: RSASignaturePadding = .pkcs1v15SHA256
    ) -> Bool {
        // A thin generic layer, specialised in the caller's module, over a non-generic core: unspecialised generic
        // code across a module boundary would cost more than the hashing.
        signature.withContiguousBytes { signatureBytes in
            message.withContiguousBytes { messageBytes in
                _isValidSignature(signatureBytes, for: messageBytes, padding: padding)
            }
        }
    }

    @usableFromInline
    func _isValidSignature(
        _ signatureBytes: UnsafeRawBufferPointer, for messageBytes: UnsafeRawBufferPointer,
        padding: RSASignaturePadding
    ) -> Bool {
        guard signatureBytes.count == backing.byteCount else { return false }
        // Room for the largest digest (SHA-512).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digest -> Bool in
            guard let base = digest.baseAddress else { return false }
            return hashAndCheckSignature(signatureBytes, message: messageBytes, padding: padding, digest: base) == true
        }
    }

    /// Whether `signature` is valid for a message whose digest (under `padding`'s hash) is `digest`: the same check as
    /// ``isValidSignature(_:for:padding:)`` for a caller that has the digest already.
    package func isValidSignature(_ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, padding: RSASignaturePadding)
        -> Bool
    {
        let hash = padding.hash
        guard signature.count == backing.byteCount, digest.count == hash.digestByteCount, let digestBase = digest.baseAddress else {
            return false
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * signature.count) { scratch -> Bool in
            let valid = try? backing.withContext(for: .verify(hash)) { context -> Bool in
                guard let operation = context.rsaPublic else { return false }
                return operation.isValidPKCS1v15(
                    signature: signature, digest: digestBase.assumingMemoryBound(to: UInt8.self), hash: hash, scratch: scratch)
            }
            return valid == true
        }
    }

    /// Hashes `message` with `padding`'s hash into `digest` and checks `signature` against that digest, with one pooled
    /// context for both (its digest context, not one made per call): ``isValidSignature(_:for:padding:)``'s core, and
    /// the media-token verifier's path, which keeps the digest for its replay key and for further keys.
    /// - Parameter digest: room for the hash's digest, written whenever the result is not `nil`.
    /// - Returns: `nil` when the message could not be hashed, else whether the signature is valid.
    package func hashAndCheckSignature(
        _ signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, padding: RSASignaturePadding,
        digest: UnsafeMutablePointer<UInt8>
    ) -> Bool? {
        let hash = padding.hash
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * backing.byteCount) { scratch -> Bool? in
            let outcome = try? backing.withContext(for: .verify(hash)) { context -> Bool? in
                guard context.hash(message, with: hash, into: digest) else { return nil }
                guard signature.count == backing.byteCount, let operation = context.rsaPublic else { return false }
                return operation.isValidPKCS1v15(signature: signature, digest: digest, hash: hash, scratch: scratch)
            }
            return outcome ?? nil
        }
    }

    // MARK: Encryption

    /// Encrypts `plaintext` to this key.
    /// - Throws: ``TVECryptoError/Code/invalidParameter`` when the plaintext is longer than the padding allows
    ///   (modulus bytes minus 11 for PKCS#1 v1.5, minus 2·hLen+2 for OAEP).
    public func encrypt(_ plaintext: some DataProtocol, padding: RSAEncryptionPadding) throws -> [UInt8] {
        let limit = backing.byteCount - padding.overhead
        guard plaintext.count <= limit else {
            throw TVECryptoError.invalidParameter(
                reason: "the plaintext is \(plaintext.count) bytes; \(padding) with this key takes at most \(limit)")
        }
        var output = [UInt8](repeating: 0, count: backing.byteCount)
        var length = output.count
        let ok = try plaintext.withContiguousBytes { input in
            try backing.withContext(for: padding.operation(decrypt: false), label: padding.label) { context in
                output.withUnsafeMutableBufferPointer {
                    EVP_PKEY_encrypt(context.pointer, $0.baseAddress, &length, input.bytePointer, input.count) == 1
                }
            }
        }
        guard ok, length == backing.byteCount else { throw TVECryptoError.encryptionFailed(reason: "RSA encryption failed") }
        return output
    }

    /// Encrypts any amount of data as concatenated RSAES-PKCS1-v1_5 blocks, each exactly the modulus size, as
    /// Adobe Pass user metadata does (FORMATS.md §2). Each block holds up to modulus bytes − 11 of plaintext.
    /// - Warning: PKCS#1 v1.5 encryption is legacy; see `RSAEncryptionPadding/_weakAndInsecurePKCS1v15`.
    public func encryptPKCS1v15Blocks(_ plaintext: some DataProtocol) throws -> [UInt8] {
        guard plaintext.count <= RSAPrivateKey.maximumBlockCiphertextBytes / 2 else {
            throw TVECryptoError.inputTooLarge(reason: "the plaintext is over \(RSAPrivateKey.maximumBlockCiphertextBytes / 2) bytes")
        }
        let chunk = backing.byteCount - 11
        let bytes = [UInt8](plaintext)
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + chunk, bytes.count)
            output += try encrypt(bytes[start..<end], padding: ._weakAndInsecurePKCS1v15)
            start = end
        } while start < bytes.count
        return output
    }
}
