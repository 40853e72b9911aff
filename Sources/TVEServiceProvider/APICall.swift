import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEPassAPI
import TVEMetadata
import TVESAML
import TVETokens

/// One API request: its form fields (query string, then an `application/x-www-form-urlencoded` body), path
/// parameters, and the checks every endpoint shares.
struct APICall: Sendable {
    let provider: ServiceProvider
    let request: Request
    let path: Parameters
    /// Fields in order of appearance, query first.
    let fields: [(name: String, value: String)]
    /// The peer's address (for the attempt limits).
    let address: String

    init(provider: ServiceProvider, request: Request, parameters: Parameters, address: String) async throws(ServiceProviderError) {
        self.provider = provider
        self.request = request
        self.address = address
        path = parameters
        // A Bearer token is checked before the body is decoded (the body limit has read it, bounded, for every route).
        if let authorization = request.headers[.authorization], authorization.prefix(7).lowercased() == "bearer ",
            provider.registry.client(forBearer: authorization) == nil
        {
            throw .unauthorizedClient
        }
        let query = request.uri.query ?? ""
        guard Self.fieldCount(query.utf8) <= Self.maximumFields else { throw Self.tooManyFields }
        var fields = FormCodec.decode(query)
        if request.method == .post || request.method == .delete,
            request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        {
            guard let body = try? await request.body.collect(upTo: ServiceProvider.maximumBodyBytes) else {
                throw .init(
                    status: 413, code: "invalid_parameter", message: "Payload Too Large",
                    details: "the body is over \(ServiceProvider.maximumBodyBytes) bytes", action: .none)
            }
            guard Self.fieldCount(body.readableBytesView) + fields.count <= Self.maximumFields else { throw Self.tooManyFields }
            fields += FormCodec.decode(String(decoding: body.readableBytesView, as: UTF8.self))
        }
        self.fields = fields
        // The one device_info rule of every v1 endpoint: optional, checked when present.
        _ = try deviceInfo()
    }

    /// The first value of `name`.
    func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Every value of `name`.
    func fields(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// A required, non-empty field without control characters, at most `limit` bytes.
    func required(_ name: String, limit: Int = ServiceProvider.maximumFieldBytes, error: ServiceProviderError? = nil)
        throws(ServiceProviderError) -> String
    {
        guard let value = field(name), APICall.isAcceptable(value, limit: limit) else {
            throw error ?? .badRequest("invalid_parameter", "\(name) is required (at most \(limit) bytes, no control characters)")
        }
        return value
    }

    /// The configured requestor named by the `requestor` (or `requestor_id`) field, or else by the clientless
    /// `Authorization` header (public clientless clients send it only there). The header's signature is checked by
    /// ``requireClient(requestor:)``, which every route calls next; a field that names another requestor than the
    /// header stays an error there.
    func requestor() throws(ServiceProviderError) -> ServiceProviderConfiguration.Requestor {
        var named = field("requestor") ?? field("requestor_id")
        if named == nil, let header = request.headers[.authorization], header.contains("signature_method=HMAC-SHA1") {
            named = (try? ClientlessAuthorization(header: header))?.requestorID
        }
        guard let id = named, !id.isEmpty else {
            throw .badRequest("invalid_requestor", "requestor is required")
        }
        guard let requestor = provider.configuration.requestor(id) else { throw .unknownRequestor }
        return requestor
    }

    /// The configured requestor named by the `{requestor}` path parameter.
    func pathRequestor() throws(ServiceProviderError) -> ServiceProviderConfiguration.Requestor {
        guard let requestor = path.get("requestor").flatMap({ provider.configuration.requestor($0) }) else { throw .unknownRequestor }
        return requestor
    }

    func deviceID() throws(ServiceProviderError) -> String { try required("deviceId", limit: 256, error: .missingDeviceID) }

    /// The device information of the call, under one rule for every v1 endpoint: optional, as the `device_info` field
    /// or the `X-Device-Info` header (Base64 JSON as Adobe documents it, not decoded here); when present, at most 4 KiB
    /// without control characters, or 400 `invalid_device_info`.
    func deviceInfo() throws(ServiceProviderError) -> String? {
        guard let value = field("device_info") ?? ClientRegistry.deviceInfoHeader.flatMap({ request.headers[$0] }) else { return nil }
        guard APICall.isAcceptable(value, limit: 4096) else {
            throw .badRequest("invalid_device_info", "device_info (or X-Device-Info) must be at most 4096 bytes without control characters")
        }
        return value
    }

    /// Checks the client credential: a Bearer access token; a clientless HMAC-SHA1 header for `requestor` (fresh, its
    /// nonce unused, signed with a configured secret); or a `signed_requestor_id` of `requestor` by a configured key.
    ///
    /// **Choice:** the clientless header's `request_uri` is not compared with the request's path: public clients
    /// disagree on what it holds (FORMATS.md §4), and the HMAC, the method, the time and the nonce bind it.
    ///
    /// - Returns: the client the device state of this call belongs to: the access token's client, the clientless
    ///   public key, or (legacy SDKs, which all sign the same requestor ID) the requestor's signed-ID clients as one.
    ///   A device's authentication, authorizations, codes and metadata are visible to that client only.
    @discardableResult
    func requireClient(requestor: String) throws(ServiceProviderError) -> String {
        let authorization = request.headers[.authorization]
        if let authorization, authorization.prefix(7).lowercased() == "bearer " {
            guard case .granted(let client) = provider.access(bearer: authorization, requestor: requestor) else {
                throw .unauthorizedClient
            }
            return "bearer\u{0}" + client
        }
        if let authorization, authorization.contains("signature_method=HMAC-SHA1") {
            return "clientless\u{0}" + (try checkClientless(authorization, requestor: requestor))
        }
        if let signature = field("signed_requestor_id") {
            let valid = provider.keys.requestorSigningKeys.contains { key in
                (try? SignedRequestorID.isValid(signature, for: requestor, publicKey: key)) == true
            }
            guard valid else { throw .unauthorizedClient }
            return "signed-requestor-id"
        }
        throw .unauthorizedClient
    }

    /// Checks a clientless header and returns its public key.
    private func checkClientless(_ header: String, requestor: String) throws(ServiceProviderError) -> String {
        let now = provider.clock.nowMilliseconds
        guard let authorization = try? ClientlessAuthorization(header: header),
            authorization.requestorID == requestor,
            authorization.method == request.method.rawValue,
            authorization.isFresh(now: now, maximumAge: ServiceProvider.clientlessMaximumAge),
            let credential = provider.configuration.requestor(requestor)?.clientlessCredentials?.first(where: {
                $0.publicKey == authorization.publicKey
            }),
            authorization.isValid(secret: SecureBytes(utf8: credential.secret), publicKey: credential.publicKey)
        else { throw .unauthorizedClient }
        // The nonce (at most 128 bytes, so that the cache stays small) is single use for as long as the request time is
        // fresh: until 5 minutes after it.
        guard authorization.nonce.utf8.count <= 128 else { throw .unauthorizedClient }
        let expires = max(now, authorization.requestTime) + ServiceProvider.clientlessMaximumAge + 1
        switch ServiceProviderState.firstUse(
            requestor + "\u{0}" + authorization.nonce, in: provider.state.nonces, expires: expires, now: now)
        {
        case .first: return authorization.publicKey
        case .replayed: throw .unauthorizedClient
        case .full: throw .busy
        }
    }
}

extension APICall {
    /// The most fields a call may carry (query and body together); counted before anything is decoded.
    static let maximumFields = 256

    static let tooManyFields = ServiceProviderError.badRequest("invalid_parameter", "a request carries at most \(maximumFields) fields")

    /// The fields of a form (a query or a body), or nil when it holds more than ``maximumFields``: they are counted on
    /// its bytes before anything is decoded.
    static func boundedForm(_ text: String) -> [(name: String, value: String)]? {
        fieldCount(text.utf8) <= maximumFields ? FormCodec.decode(text) : nil
    }

    /// The number of `name=value` pairs a form text holds, counted on its bytes.
    static func fieldCount(_ bytes: some Sequence<UInt8>) -> Int {
        var count = 0
        var pairHasBytes = false
        for byte in bytes {
            if byte == UInt8(ascii: "&") {
                if pairHasBytes { count += 1 }
                pairHasBytes = false
            } else {
                pairHasBytes = true
            }
        }
        return count + (pairHasBytes ? 1 : 0)
    }

    /// A field value is acceptable: not empty, at most `limit` bytes, no control characters.
    static func isAcceptable(_ value: String, limit: Int) -> Bool {
        !value.isEmpty && value.utf8.count <= limit && !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
