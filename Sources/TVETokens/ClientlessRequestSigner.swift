import Foundation
import TVECrypto

/// The HMAC-SHA1 `Authorization` header of the older clientless (second-screen) REST calls, the tvOS SDK's
/// `secret` / `publicKey` pair (FORMATS.md §4):
///
/// ```
/// msg = "<METHOD> requestor_id=<rid>, nonce=<uuid>, signature_method=HMAC-SHA1, request_time=<epoch ms>, request_uri=<path>"
/// Authorization: <msg>, public_key=<publicKey>, signature=<Base64(HMAC-SHA1(key: UTF-8 secret, data: UTF-8 msg))>
/// ```
///
/// HMAC-SHA1 is what the protocol specifies; HMAC-SHA1 is not affected by SHA-1's collision weakness.
public struct ClientlessRequestSigner: Sendable {
    /// The requestor ID, written as `requestor_id`.
    public let requestorID: String
    /// The public key (the tvOS SDK's `publicKey`), written as `public_key`: it tells the service which secret to use.
    public let publicKey: String
    private let secret: SecureBytes
    private let clock: any MediaTokenClock
    private let makeNonce: @Sendable () -> String

    /// A signer for one requestor's clientless credentials.
    /// - Parameters:
    ///   - requestorID: the requestor ID, written as `requestor_id`.
    ///   - publicKey: the public key (the tvOS SDK's `publicKey`), written as `public_key`.
    ///   - secret: the shared secret (the tvOS SDK's `secret`); kept in a wiped buffer.
    ///   - clock: the time written in each header; the system clock by default.
    ///   - nonce: makes each request's nonce; a lower-case random UUID by default.
    /// - Throws: ``MediaTokenError/Code/invalidConfiguration`` for an empty or unusable field.
    public init(
        requestorID: String, publicKey: String, secret: SecureBytes, clock: any MediaTokenClock = SystemMediaTokenClock(),
        nonce: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) throws {
        for (name, value) in [("requestor ID", requestorID), ("public key", publicKey)] {
            guard !value.isEmpty, ClientlessAuthorization.isFieldSafe(value) else {
                throw MediaTokenError.invalidConfiguration(reason: "the \(name) is empty or holds \", \" or a control character")
            }
        }
        guard !secret.isEmpty else { throw MediaTokenError.invalidConfiguration(reason: "the secret is empty") }
        self.requestorID = requestorID
        self.publicKey = publicKey
        self.secret = secret
        self.clock = clock
        self.makeNonce = nonce
    }

    /// The `Authorization` header value for a request, with a fresh nonce and the clock's time.
    /// - Parameters:
    ///   - method: the HTTP method in upper case (`GET`, `POST`, ...).
    ///   - requestURI: the request path (peers send the path only, for example `/api/v1/authorize`).
    public func authorizationHeader(method: String, requestURI: String) throws -> String {
        try authorizationHeader(method: method, requestURI: requestURI, nonce: makeNonce(), requestTime: clock.nowMilliseconds)
    }

    /// The header value for fixed inputs (tests, replays).
    /// - Throws: ``MediaTokenError/Code/invalidField`` for a lower-case or empty method, an empty field, a field
    ///   holding `", "` or a control character, or a negative time.
    public func authorizationHeader(method: String, requestURI: String, nonce: String, requestTime: Int64) throws -> String {
        let authorization: ClientlessAuthorization
        do {
            authorization = try ClientlessAuthorization(
                method: method, requestorID: requestorID, nonce: nonce, requestTime: requestTime,
                requestURI: requestURI, publicKey: publicKey, signature: "")
        } catch let error as MediaTokenError {
            throw MediaTokenError.invalidField(reason: error.reason)
        }
        let signature = try Self.signature(of: authorization.message, secret: secret)
        return authorization.message + ", public_key=\(publicKey), signature=\(signature)"
    }

    static func signature(of message: String, secret: some DataProtocol) throws -> String {
        do {
            return Base64.encode(try HMAC.authenticationCode(for: Array(message.utf8), key: secret, hash: .sha1))
        } catch let error as TVECryptoError {
            throw MediaTokenError.signingFailed(reason: "HMAC failed: \(error.reason)")
        }
    }
}
