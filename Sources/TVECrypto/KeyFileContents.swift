import Foundation

/// What a key or certificate file holds, as `tvekit key inspect` reports it.
///
/// ``inspect(_:password:allowing1024BitKeys:)`` recognises PEM files (any mix of certificates, public keys and private keys), DER
/// certificates, DER public and private keys, and PKCS#12 files. Every object is fully parsed, so an inspection
/// that succeeds means the library will load the file.
public struct KeyFileContents: Sendable {
    /// One object found in the file.
    public enum Item: Sendable {
        /// An X.509 certificate.
        case certificate(X509Certificate)
        /// An RSA public key.
        case publicKey(RSAPublicKey)
        /// An RSA private key, decrypted with the password when it was encrypted.
        case privateKey(RSAPrivateKey)
    }

    /// The container format: `PEM`, `DER` or `PKCS#12`.
    public let format: String
    /// The objects, in file order (for PKCS#12: the private key, its certificate, then the chain).
    public let items: [Item]

    /// Reads `bytes`.
    /// - Parameters:
    ///   - bytes: the file's contents: PEM (any number of objects), DER or PKCS#12.
    ///   - password: the passphrase of an encrypted private key or the password of a PKCS#12 file.
    ///   - allowing1024BitKeys: load public keys (bare, or from certificates) of 1024 to 2047 bits too, so that a file
    ///     holding a legacy signer's key can be described (Adobe's media-token key of 2015–2017 has 1024 bits); off by
    ///     default. Private keys keep the 2048-bit floor.
    /// - Throws: the ``TVECryptoError`` of the first object that does not load, or
    ///   ``TVECryptoError/Code/malformedKey`` when nothing is recognised.
    public static func inspect(
        _ bytes: some DataProtocol, password: String? = nil, allowing1024BitKeys: Bool = false
    ) throws -> KeyFileContents {
        let policy = RSAPublicKey.SizePolicy(allowing1024BitKeys: allowing1024BitKeys)
        try checkInputSize(bytes.count, limit: X509Certificate.maximumEncodedBytes, what: "key file")
        if PEMBlock.looksLikePEM(bytes) {
            var blocks: [PEMBlock]
            switch PEMBlock.parseAll(bytes) {
            case .success(let parsed): blocks = parsed
            case .failure(let error): throw TVECryptoError.malformedKey(reason: error.reason)
            }
            defer { for index in blocks.indices { blocks[index].wipe() } }
            var items: [Item] = []
            for block in blocks {
                switch block.label {
                case "CERTIFICATE":
                    items.append(.certificate(try X509Certificate(derRepresentation: block.der)))
                case "PUBLIC KEY", "RSA PUBLIC KEY":
                    items.append(.publicKey(try RSAPublicKey(der: block.der, policy: policy)))
                case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY":
                    var slice = bytes.withContiguousBytes { [UInt8]($0[block.range]) }
                    defer { slice.withUnsafeMutableBytes { wipe($0) } }
                    items.append(
                        .privateKey(
                            try RSAPrivateKey(
                                pem: slice, passphrase: password.map(SecureBytes.init(utf8:)),
                                allowingSmallKeys: false)))
                case let label where label.hasSuffix("PRIVATE KEY"):
                    throw TVECryptoError.unsupportedKeyType(reason: "the file holds an \(label), not an RSA key")
                default:
                    continue
                }
            }
            guard !items.isEmpty else { throw TVECryptoError.malformedKey(reason: "no certificate or key block in the PEM file") }
            return KeyFileContents(format: "PEM", items: items)
        }
        if let certificates = try? X509Certificate.certificates(derRepresentation: bytes) {
            return KeyFileContents(format: "DER", items: certificates.map { .certificate($0) })
        }
        if let key = try? RSAPublicKey(der: bytes, policy: policy) {
            return KeyFileContents(format: "DER", items: [.publicKey(key)])
        }
        do {
            let bundle = try PKCS12Bundle(derRepresentation: bytes, password: password ?? "")
            return KeyFileContents(
                format: "PKCS#12",
                items: [.privateKey(bundle.privateKey), .certificate(bundle.certificate)]
                    + bundle.chain.map { .certificate($0) })
        } catch let error as TVECryptoError where error.code != .malformedPKCS12 {
            throw error
        } catch {
            // Not PKCS#12: last, a DER private key.
        }
        return KeyFileContents(format: "DER", items: [.privateKey(try RSAPrivateKey(derRepresentation: bytes, passphrase: password))])
    }
}
