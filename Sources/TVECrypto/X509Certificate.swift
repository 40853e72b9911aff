internal import COpenSSL
internal import CTVEOpenSSL
import Foundation

/// Owns one `X509`.
final class X509Box: @unchecked Sendable {
    // Sendable: the certificate is not modified after parsing; OpenSSL caches its extensions under its own lock.
    let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// An X.509 certificate (RFC 5280), parsed once.
///
/// The fields a TV Everywhere deployment looks at (subject, issuer, serial number, validity, fingerprint, public
/// key) are read when the certificate is loaded. ``isValid(at:)`` checks the validity window only; it does not
/// build or check a chain of trust.
public struct X509Certificate: Sendable, Hashable, CustomStringConvertible {
    let backing: X509Box
    /// The DER encoding.
    public let derRepresentation: [UInt8]
    /// The subject distinguished name in RFC 2253 form (`CN=example,O=Example Inc,C=US`).
    public let subject: String
    /// The issuer distinguished name in RFC 2253 form.
    public let issuer: String
    /// The serial number as uppercase hexadecimal (a leading `-` for the rare negative serials).
    public let serialNumber: String
    /// The start of the validity period (`notBefore`).
    public let notValidBefore: Date
    /// The end of the validity period (`notAfter`).
    public let notValidAfter: Date
    /// The SHA-256 digest of ``derRepresentation``.
    public let sha256Fingerprint: [UInt8]
    /// The public key algorithm (`RSA`, `EC`, `ED25519`, ...).
    public let publicKeyAlgorithm: String
    /// The public key size in bits.
    public let publicKeySizeInBits: Int

    /// The largest encoded certificate or bundle accepted, 1 MiB.
    public static let maximumEncodedBytes = 1 << 20

    init(taking pointer: OpaquePointer) throws {
        let box = X509Box(taking: pointer)
        backing = box
        var output: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(pointer, &output)
        guard length > 0, let output else { throw TVECryptoError.malformedCertificate(reason: "i2d_X509 failed") }
        derRepresentation = [UInt8](UnsafeBufferPointer(start: output, count: Int(length)))
        copenssl_OPENSSL_free(output)
        subject = try Self.name(X509_get_subject_name(pointer))
        issuer = try Self.name(X509_get_issuer_name(pointer))
        serialNumber = try Self.serial(pointer)
        guard let notBefore = Self.date(X509_get0_notBefore(pointer)), let notAfter = Self.date(X509_get0_notAfter(pointer)) else {
            throw TVECryptoError.malformedCertificate(reason: "the validity dates cannot be read")
        }
        notValidBefore = notBefore
        notValidAfter = notAfter
        sha256Fingerprint = try HashFunction.sha256.hash(derRepresentation)
        if let key = X509_get0_pubkey(pointer) {
            publicKeyAlgorithm = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
            publicKeySizeInBits = Int(EVP_PKEY_get_bits(key))
        } else {
            ERR_clear_error()
            publicKeyAlgorithm = "unknown"
            publicKeySizeInBits = 0
        }
    }

    /// Loads one certificate from PEM (`-----BEGIN CERTIFICATE-----`).
    /// - Throws: ``TVECryptoError/Code/malformedCertificate`` when there is no certificate or more than one
    ///   (use ``certificates(pemRepresentation:)`` for bundles); size errors.
    public init(pemRepresentation: String) throws {
        let all = try Self.certificates(pemRepresentation: pemRepresentation)
        guard all.count == 1, let only = all.first else {
            throw TVECryptoError.malformedCertificate(
                reason: "the PEM holds \(all.count) certificates; use X509Certificate.certificates(pemRepresentation:) for a bundle")
        }
        self = only
    }

    /// Loads one certificate from DER. Trailing bytes are an error.
    public init(derRepresentation: some DataProtocol) throws {
        try checkInputSize(derRepresentation.count, limit: Self.maximumEncodedBytes, what: "DER certificate")
        guard
            let pointer = derRepresentation.withContiguousBytes({
                RSAKeyPolicy.decodeDER($0, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) })
            })
        else {
            throw TVECryptoError.malformedCertificate(reason: "the DER data is not one X.509 certificate")
        }
        try self.init(taking: pointer)
    }

    /// Loads every certificate of a PEM bundle, in order. Other PEM blocks are ignored.
    /// - Throws: ``TVECryptoError/Code/malformedCertificate`` when a block is malformed or there is none.
    public static func certificates(pemRepresentation: String) throws -> [X509Certificate] {
        let bytes = Array(pemRepresentation.utf8)
        try checkInputSize(bytes.count, limit: maximumEncodedBytes, what: "PEM certificate bundle")
        let blocks: [PEMBlock]
        switch PEMBlock.parseAll(bytes) {
        case .success(let parsed): blocks = parsed
        case .failure(let error): throw TVECryptoError.malformedCertificate(reason: error.reason)
        }
        let certificates = try blocks.filter { $0.label == "CERTIFICATE" }.map { try X509Certificate(derRepresentation: $0.der) }
        guard !certificates.isEmpty else { throw TVECryptoError.malformedCertificate(reason: "no CERTIFICATE block found") }
        return certificates
    }

    /// Loads every certificate of concatenated DER certificates, in order.
    public static func certificates(derRepresentation: some DataProtocol) throws -> [X509Certificate] {
        try checkInputSize(derRepresentation.count, limit: maximumEncodedBytes, what: "DER certificate bundle")
        return try derRepresentation.withContiguousBytes { bytes in
            var result: [X509Certificate] = []
            var cursor: UnsafePointer<UInt8>? = bytes.bytePointer
            let end = bytes.bytePointer + bytes.count
            while let start = cursor, start < end {
                guard let pointer = d2i_X509(nil, &cursor, end - start) else {
                    throw TVECryptoError.malformedCertificate(reason: "certificate \(result.count + 1) of the DER bundle is malformed")
                }
                result.append(try X509Certificate(taking: pointer))
            }
            return result
        }
    }

    /// Loads every certificate of a PEM or DER input, whichever it is.
    public static func certificates(encoded bytes: some DataProtocol) throws -> [X509Certificate] {
        if PEMBlock.looksLikePEM(bytes) {
            return try certificates(pemRepresentation: String(decoding: [UInt8](bytes), as: UTF8.self))
        }
        return try certificates(derRepresentation: bytes)
    }

    /// The PEM encoding.
    public var pemRepresentation: String {
        "-----BEGIN CERTIFICATE-----\n" + Base64.encode(derRepresentation, lineLength: 64) + "\n-----END CERTIFICATE-----\n"
    }

    /// ``sha256Fingerprint`` as colon-separated uppercase hexadecimal, as `openssl x509 -fingerprint` prints it.
    public var sha256FingerprintText: String {
        sha256Fingerprint.map { hexString([$0]).uppercased() }.joined(separator: ":")
    }

    /// Whether `date` lies within the validity period (inclusive at both ends, RFC 5280 §4.1.2.5).
    public func isValid(at date: Date = Date()) -> Bool {
        notValidBefore <= date && date <= notValidAfter
    }

    public var description: String { "X509Certificate(subject: \(subject), serial: \(serialNumber))" }

    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }

    // MARK: Field readers

    private static func name(_ name: OpaquePointer?) throws -> String {
        guard let name else { return "" }
        let bio = try BIOBox()
        guard X509_NAME_print_ex(bio.pointer, name, 0, copenssl_XN_FLAG_RFC2253) >= 0 else {
            throw TVECryptoError.malformedCertificate(reason: "a distinguished name cannot be printed")
        }
        return bio.string
    }

    private static func serial(_ certificate: OpaquePointer) throws -> String {
        guard let integer = X509_get0_serialNumber(certificate), let number = ASN1_INTEGER_to_BN(integer, nil) else {
            throw TVECryptoError.malformedCertificate(reason: "the serial number cannot be read")
        }
        defer { BN_free(number) }
        guard let hex = BN_bn2hex(number) else { throw TVECryptoError.openSSLFailure(reason: "BN_bn2hex failed") }
        defer { copenssl_OPENSSL_free(hex) }
        return String(cString: hex)
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var value = tm()
        guard ASN1_TIME_to_tm(time, &value) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(copenssl_timegm(&value)))
    }
}
