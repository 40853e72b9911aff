import Foundation
import TVECrypto
import TVEJSON

/// The single-sign-on JWT of REST API v2: the `AD-Service-Token` header (service-token method: an identity service
/// outside Adobe signs the user's identifier) and the `Adobe-Subject-Token` header (platform-identity method: the
/// platform's identity service signs a platform identifier).
///
/// Adobe documents the service token as an RS256 JWT with `iss` (the identity service), `sub` (the user), `aud`
/// (`"Adobe"`), `iat` and `exp`, signed by a key whose public half Adobe holds. **Choice:** TVEKit reads the
/// platform-identity token in the same shape (platforms' own formats differ and are not public), adds an optional
/// `jti`, and ``check(publicKeys:now:maximumLifetime:)`` requires every listed claim.
public struct SingleSignOnToken: Sendable, Hashable {
    /// The audience Adobe documents: `Adobe`.
    public static let audience = "Adobe"
    /// How far `iat` and `nbf` may be ahead of the checker's clock: 60 seconds.
    public static let clockSkew: Int64 = 60

    /// The parsed JWT (header, claims, signature); its name is the software statement's, whose JWT rules it shares:
    /// RS256 only, no `crit`, at most 16 KiB, duplicate claims refused.
    public let jwt: SoftwareStatement
    /// `aud`: one string or a list.
    public let audiences: [String]
    /// `jti`, when present.
    public let tokenID: String?

    /// Parses a token without verifying it.
    /// - Throws: ``MediaTokenError`` `malformedStatement` or `unsupportedAlgorithm`.
    public init(compact: String) throws {
        jwt = try SoftwareStatement(compact: compact)
        guard case .object(let claims)? = try? JSONValue(parsing: Array(jwt.claimsJSON.utf8)) else {
            throw MediaTokenError.malformedStatement(reason: "the JWT claims are not a JSON object")
        }
        switch claims["aud"] {
        case nil: audiences = []
        case .string(let value)?: audiences = [value]
        case .array(let values)?:
            audiences = try values.prefix(16).map { value in
                guard case .string(let text) = value else { throw MediaTokenError.malformedStatement(reason: "\"aud\" holds a non-string") }
                return text
            }
        default: throw MediaTokenError.malformedStatement(reason: "\"aud\" is neither a string nor a list of strings")
        }
        switch claims["jti"] {
        case nil: tokenID = nil
        case .string(let value)?: tokenID = value
        default: throw MediaTokenError.malformedStatement(reason: "\"jti\" is not a string")
        }
    }

    /// `sub`: the user (service token) or the platform identifier (platform identity).
    public var subject: String? { jwt.subject }
    /// `iss`: the identity service.
    public var issuer: String? { jwt.issuer }

    /// Checks the token: its RS256 signature under one of `publicKeys`; `iss` and `sub` present, 1 to 256 bytes;
    /// `aud` names ``audience``; `iat` and `exp` present, `iat` and `nbf` no more than ``clockSkew`` seconds ahead of
    /// `now`, `exp` after `now`, and `exp - iat` at most `maximumLifetime` seconds.
    /// - Parameters:
    ///   - publicKeys: the keys of the token's issuer; one of them must verify the signature.
    ///   - now: seconds since the Unix epoch.
    ///   - maximumLifetime: the longest `exp - iat` accepted, in seconds (default 86,400).
    /// - Throws: ``MediaTokenError`` `invalidSignature` (no key verifies it), `invalidField` (a claim is missing, out of
    ///   range, expired or for another audience), with a reason that names the claim, never its value.
    public func check(publicKeys: [RSAPublicKey], now: Int64, maximumLifetime: Int64 = 86_400) throws {
        guard publicKeys.contains(where: { jwt.isSignatureValid(publicKey: $0) }) else {
            throw MediaTokenError.invalidSignature(reason: "the token's signature does not verify under a trusted key")
        }
        for (name, value) in [("iss", issuer), ("sub", subject)] {
            guard let value, (1...256).contains(value.utf8.count) else {
                throw MediaTokenError.invalidField(reason: "\"\(name)\" is missing, empty or over 256 bytes")
            }
        }
        guard audiences.contains(Self.audience) else {
            throw MediaTokenError.invalidField(reason: "\"aud\" does not name \(Self.audience)")
        }
        guard let issuedAt = jwt.issuedAt, let expiresAt = jwt.expiresAt else {
            throw MediaTokenError.invalidField(reason: "\"iat\" and \"exp\" are required")
        }
        guard issuedAt <= now + Self.clockSkew, (jwt.notBefore ?? issuedAt) <= now + Self.clockSkew else {
            throw MediaTokenError.invalidField(reason: "the token is not valid yet (\"iat\" or \"nbf\" is in the future)")
        }
        guard now < expiresAt else { throw MediaTokenError.invalidField(reason: "the token has expired (\"exp\")") }
        // `exp - iat` overflows for an `iat` near Int64.min: that is a lifetime too long too, never a trap.
        let (lifetime, overflow) = expiresAt.subtractingReportingOverflow(issuedAt)
        guard !overflow, lifetime <= maximumLifetime else {
            throw MediaTokenError.invalidField(reason: "the token lives longer than \(maximumLifetime) seconds (\"exp\" - \"iat\")")
        }
    }

    /// Issues a token (an identity service's part: tests, the sandbox's app side).
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - subject: `sub`.
    ///   - audience: `aud` (``audience`` by default).
    ///   - issuedAt: `iat`, seconds since the Unix epoch.
    ///   - lifetime: `exp - iat`, in seconds (default 3,600).
    ///   - tokenID: `jti` (a random UUID by default).
    ///   - signingKey: the identity service's RSA key.
    /// - Throws: ``MediaTokenError`` `signingFailed`.
    public static func issue(
        issuer: String, subject: String, audience: String = Self.audience, issuedAt: Int64, lifetime: Int64 = 3600,
        tokenID: String? = UUID().uuidString.lowercased(), signingKey: RSAPrivateKey
    ) throws -> SingleSignOnToken {
        struct Claims: Encodable {
            let iss: String
            let sub: String
            let aud: String
            let iat: Int64
            let exp: Int64
            let jti: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = try encoder.encode(
            Claims(iss: issuer, sub: subject, aud: audience, iat: issuedAt, exp: issuedAt + lifetime, jti: tokenID))
        let input = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode([UInt8](claims))
        do {
            let signature = try signingKey.signature(for: Array(input.utf8), padding: .pkcs1v15SHA256)
            return try SingleSignOnToken(compact: input + "." + Base64URL.encode(signature))
        } catch let error as TVECryptoError {
            throw MediaTokenError.signingFailed(reason: "signing the token failed: \(error.reason)")
        }
    }
}
