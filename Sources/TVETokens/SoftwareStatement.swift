import Foundation
import TVECrypto
import TVEJSON

/// The software statement of Dynamic Client Registration: an RS256 JWT from the TVE Dashboard whose claims
/// identify the application (`sub`, `iss` = `auth.adobe.com`, `iat`, `nbf`, ...).
///
/// ``init(compact:)`` reads it without trusting it; ``verified(compact:publicKey:)`` also checks the RS256
/// signature. Only `RS256` is accepted: `none`, `HS256` (which would let an attacker use the public key as an HMAC
/// secret — algorithm confusion) and every other algorithm are refused, and so is a `crit` header.
public struct SoftwareStatement: Sendable, Hashable {
    /// The header's `alg` (always `RS256` once parsed).
    public let algorithm: String
    /// The header's `kid`, when present.
    public let keyID: String?
    /// `sub`: the statement's identifier (a UUID).
    public let subject: String?
    /// `iss`: the issuer (`auth.adobe.com`).
    public let issuer: String?
    /// `iat`, `nbf`, `exp`: seconds since the Unix epoch, when present.
    public let issuedAt: Int64?
    /// `nbf`: the time before which the statement is not valid, in seconds since the Unix epoch, when present.
    public let notBefore: Int64?
    /// `exp`: the time from which the statement is no longer valid, in seconds since the Unix epoch, when present.
    public let expiresAt: Int64?
    /// The claims as JSON text (for claims without an accessor).
    public let claimsJSON: String
    /// The compact text as given.
    public let compact: String

    /// The longest statement accepted.
    public static let maximumBytes = 16 * 1024

    private let signingInput: [UInt8]
    private let signature: [UInt8]

    /// Parses a statement without verifying it.
    /// - Throws: ``MediaTokenError/Code/malformedStatement``, ``MediaTokenError/Code/unsupportedAlgorithm``.
    public init(compact: String) throws {
        let text = compact.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Self.maximumBytes else {
            throw MediaTokenError.malformedStatement(reason: "the statement is over \(Self.maximumBytes) bytes")
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw MediaTokenError.malformedStatement(reason: "a JWT has 3 dot-separated parts; this one has \(parts.count)")
        }
        func decode(_ index: Int, _ name: String) throws -> [UInt8] {
            do { return try Base64URL.decode(parts[index]) } catch {
                throw MediaTokenError.malformedStatement(reason: "the JWT \(name) is not Base64url")
            }
        }
        let headerBytes = try decode(0, "header")
        let claimBytes = try decode(1, "claims")
        let signature = try decode(2, "signature")
        // The strict parser: a duplicate "alg" or "sub" is refused, so no other JWT reader can see a different header.
        guard case .object(let header)? = try? JSONValue(parsing: headerBytes), case .string(let alg)? = header["alg"] else {
            throw MediaTokenError.malformedStatement(reason: "the JWT header is not a JSON object with a string \"alg\"")
        }
        guard alg == "RS256" else {
            throw MediaTokenError.unsupportedAlgorithm(reason: "the JWT algorithm must be RS256")
        }
        guard header["crit"] == nil else {
            throw MediaTokenError.unsupportedAlgorithm(
                reason: "the JWT names critical extensions (\"crit\"), which TVEKit does not implement")
        }
        guard case .object(let claims)? = try? JSONValue(parsing: claimBytes) else {
            throw MediaTokenError.malformedStatement(reason: "the JWT claims are not a JSON object")
        }
        func string(_ name: String) throws -> String? {
            switch claims[name] {
            case nil: return nil
            case .string(let value)?: return value
            default: throw MediaTokenError.malformedStatement(reason: "the claim \"\(name)\" is not a string")
            }
        }
        func integer(_ name: String) throws -> Int64? {
            switch claims[name] {
            case nil: return nil
            case .integer(let value)?: return value
            default: throw MediaTokenError.malformedStatement(reason: "the claim \"\(name)\" is not an integer")
            }
        }
        guard !signature.isEmpty else { throw MediaTokenError.malformedStatement(reason: "the JWT signature is empty") }
        algorithm = alg
        keyID = header["kid"]?.stringValue
        subject = try string("sub")
        issuer = try string("iss")
        issuedAt = try integer("iat")
        notBefore = try integer("nbf")
        expiresAt = try integer("exp")
        claimsJSON = String(decoding: claimBytes, as: UTF8.self)
        self.compact = text
        signingInput = Array(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.signature = signature
    }

    /// Whether the RS256 signature verifies under `publicKey`.
    public func isSignatureValid(publicKey: RSAPublicKey) -> Bool {
        publicKey.isValidSignature(signature, for: signingInput, padding: .pkcs1v15SHA256)
    }

    /// Parses and verifies the signature; throws ``MediaTokenError/Code/invalidSignature`` when it does not verify.
    ///
    /// Only the signature is checked: `nbf`, `exp` and `iss` are the caller's to judge (Adobe's statements are valid
    /// until revoked and carry no `exp`); see ``isValid(at:)`` for the time claims.
    public static func verified(compact: String, publicKey: RSAPublicKey) throws -> SoftwareStatement {
        let statement = try SoftwareStatement(compact: compact)
        guard statement.isSignatureValid(publicKey: publicKey) else {
            throw MediaTokenError.invalidSignature(reason: "the JWT signature does not verify under the given key")
        }
        return statement
    }

    /// Whether `nbf` and `exp`, when present, hold at `date` (seconds since the Unix epoch).
    public func isValid(at date: Int64) -> Bool {
        (notBefore.map { $0 <= date } ?? true) && (expiresAt.map { date < $0 } ?? true)
    }

    /// Makes an RS256 statement (for the local service provider and tests).
    public static func issue(
        subject: String, issuer: String = "auth.adobe.com", issuedAt: Int64, notBefore: Int64? = nil,
        signingKey: RSAPrivateKey
    ) throws -> SoftwareStatement {
        struct Payload: Encodable { let sub: String; let nbf: Int64; let iss: String; let iat: Int64 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = try encoder.encode(Payload(sub: subject, nbf: notBefore ?? issuedAt, iss: issuer, iat: issuedAt))
        let input = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode([UInt8](claims))
        do {
            let signature = try signingKey.signature(for: Array(input.utf8), padding: .pkcs1v15SHA256)
            return try SoftwareStatement(compact: input + "." + Base64URL.encode(signature))
        } catch let error as TVECryptoError {
            throw MediaTokenError.signingFailed(reason: "signing the statement failed: \(error.reason)")
        }
    }
}
