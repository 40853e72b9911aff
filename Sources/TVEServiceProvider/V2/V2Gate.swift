import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

/// The checks every v2 call passes before the generated code decodes it, in Adobe's order and with Adobe's codes:
/// the service provider of the path, the bearer access token (every route but the browser's `authenticate`), the
/// device headers the route requires (``requiredDeviceHeaders``, as Adobe's file marks them), the optional headers
/// when present, and the body's size. The caller it establishes reaches the handler as ``V2Caller/current``.
///
/// It also turns every error into Adobe's Enhanced Error answer (a request the generated code cannot decode is a 400
/// with the route's parameter code; anything unexpected a 500 with no detail) and marks every answer
/// `Cache-Control: no-store`: they carry tokens, codes and profiles.
struct V2Gate: ServerMiddleware {
    let provider: ServiceProvider

    /// The operations (Adobe's operation IDs) whose `AP-Device-Identifier` and `X-Device-Info` are required.
    static let requiredDeviceHeaders: Set<String> = [
        "createSessionUsingPOST", "retrieveVerificationTokenUsingPOST", "createPartnerProfileUsingPOST", "getProfilesUsingGET_1",
        "getProfileForMvpdUsingGET", "retrieveAuthorizeDecisionsForMvpdUsingPOST", "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1",
        "getLogoutForMvpdUsingGET",
    ]
    /// The one operation a browser calls, without an access token.
    static let browserOperation = "startAuthenticationUsingGET"
    /// The code of a request body or parameter the generated code cannot decode, by operation.
    static let parameterCodes: [String: String] = [
        "createSessionUsingPOST": "invalid_parameter_mvpd", "resumeSessionUsingPOST": "invalid_parameter_code",
        "retrieveAuthorizeDecisionsForMvpdUsingPOST": "invalid_parameter_resources",
        "retrievePreAuthorizeDecisionsForMvpdUsingPOST_1": "invalid_parameter_resources",
        "createPartnerProfileUsingPOST": "invalid_parameter_saml_response",
        "retrieveVerificationTokenUsingPOST": "invalid_parameter_redirect_url",
    ]
    /// The largest body, by operation (a `SAMLResponse` is the largest).
    static func maximumBodyBytes(_ operationID: String) -> Int {
        operationID == "createPartnerProfileUsingPOST" ? ServiceProvider.maximumBodyBytes : 64 * 1024
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var answer: (HTTPResponse, HTTPBody?)
        do {
            let caller = try self.caller(request, metadata: metadata, operationID: operationID)
            let bounded = try await Self.bounded(
                body, request: request, limit: Self.maximumBodyBytes(operationID), code: Self.parameterCode(operationID))
            // The generated code requires the header Adobe's file marks required: it gets the values the call resolved to.
            var request = request
            if let info = caller.deviceInfo, info.source != .header, let name = HTTPField.Name(PassAPIv2.DeviceInfo.headerName) {
                request.headerFields[name] = info.info.header
            }
            answer = try await V2Caller.$current.withValue(caller) { [request] in try await next(request, bounded, metadata) }
        } catch let error as ServiceProviderError {
            answer = Self.answer(error)
        } catch let error as ServerError {
            if let error = error.underlyingError as? ServiceProviderError {
                answer = Self.answer(error)
            } else {
                answer = Self.answer(
                    V2Errors.badRequest(
                        Self.parameterCode(operationID), "the request does not follow the contract: \(Self.describe(error.underlyingError))"
                    ))
            }
        } catch {
            answer = Self.answer(.internalError)
        }
        answer.0.headerFields[.cacheControl] = "no-store"
        // The generated server percent-encodes header values (OpenAPI's simple style); a Location is a URL as it is.
        if let location = answer.0.headerFields[.location] { answer.0.headerFields[.location] = PassAPIv2.headerValue(location) }
        return answer
    }

    /// The requestor, client and device headers of a request, each checked.
    func caller(_ request: HTTPRequest, metadata: ServerRequestMetadata, operationID: String) throws(ServiceProviderError) -> V2Caller {
        guard let name = metadata.pathParameters["serviceProvider"], let requestor = provider.configuration.requestor(String(name)) else {
            throw V2Errors.unknownServiceProvider
        }
        var clientID: String?
        if operationID != Self.browserOperation {
            switch provider.access(bearer: request.headerFields[.authorization], requestor: requestor.id) {
            case .granted(let client): clientID = client
            case .unknownToken: throw V2Errors.invalidAccessToken
            case .otherServiceProvider: throw V2Errors.wrongServiceProvider
            }
        }
        let required = Self.requiredDeviceHeaders.contains(operationID)
        func header<T>(_ name: String, missing: ServiceProviderError?, _ read: (String) throws(PassAPIv2.HeaderError) -> T)
            throws(ServiceProviderError) -> T?
        {
            guard let field = HTTPField.Name(name), let value = request.headerFields[field] else {
                if let missing { throw missing }
                return nil
            }
            do {
                return try read(PassAPIv2.headerValue(value))
            } catch {
                throw V2Errors.badRequest(error.code, error.reason)
            }
        }
        let device = try header(
            PassAPIv2.DeviceIdentifier.headerName, missing: required ? V2Errors.missingDeviceIdentifier : nil,
            PassAPIv2.DeviceIdentifier.init(header:))
        // Required where Adobe's file marks it, and then resolved as Adobe's service does (V2DeviceInfo); elsewhere
        // optional, checked in full when present under the strict switch.
        let infoHeader = HTTPField.Name(PassAPIv2.DeviceInfo.headerName).flatMap { request.headerFields[$0] }.map(PassAPIv2.headerValue)
        let strict = provider.configuration.strict
        let deviceInfo: V2DeviceInfo? =
            required || (strict && infoHeader != nil)
            ? try V2DeviceInfo.resolve(header: infoHeader, request: request, strict: strict) : nil
        let status = try header(
            PassAPIv2.PartnerFrameworkStatus.headerName, missing: nil, PassAPIv2.PartnerFrameworkStatus.init(header:))
        let identity = try header(PassAPIv2.TempPassIdentity.headerName, missing: nil, PassAPIv2.TempPassIdentity.init(header:))
        return V2Caller(
            requestor: requestor, clientID: clientID, device: device, deviceInfo: deviceInfo, partnerFrameworkStatus: status,
            tempPassIdentity: identity, address: try Self.address(),
            singleSignOn: try clientID.flatMap { client throws(ServiceProviderError) in
                try V2SingleSignOn.of(request, provider: provider, requestor: requestor, clientID: client, device: device)
            })
    }

    /// The client's address, which the v2 route group hands over from the request context (``V2AddressBridge``).
    static func address() throws(ServiceProviderError) -> String {
        guard let address = ClientAddress.current else { throw .internalError }
        return address
    }

    /// The code of a request this operation cannot use.
    static func parameterCode(_ operationID: String) -> String { parameterCodes[operationID] ?? "invalid_parameter_service_provider" }

    /// The body, read up to `limit` bytes (refused at once when its Content-Length says more); a body of more than
    /// ``APICall/maximumFields`` form fields is refused before the generated code decodes it, whatever its `Content-Type`
    /// says but JSON: the generated server decodes a body with no `Content-Type`, `*/*` or `application/*` as a form, and
    /// swift-openapi-runtime merges repeated form keys in quadratic time (64,000 repeats cost 25 s of CPU).
    static func bounded(_ body: HTTPBody?, request: HTTPRequest, limit: Int, code: String) async throws(ServiceProviderError) -> HTTPBody? {
        guard let body else { return nil }
        if let length = request.headerFields[.contentLength].flatMap({ Int($0) }), length > limit { throw V2Errors.tooLarge(code) }
        let bytes: [UInt8]
        do {
            bytes = try await [UInt8](collecting: body, upTo: limit)
        } catch {
            throw V2Errors.tooLarge(code)
        }
        let isJSON = request.headerFields[.contentType]?.lowercased().hasPrefix("application/json") == true
        if !isJSON, APICall.fieldCount(bytes) > APICall.maximumFields {
            throw V2Errors.badRequest(code, "a form carries at most \(APICall.maximumFields) fields")
        }
        return HTTPBody(bytes)
    }

    /// An Enhanced Error answer with Adobe's body shape.
    static func answer(_ error: ServiceProviderError) -> (HTTPResponse, HTTPBody?) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(V2Errors.information(error))) ?? Data("{}".utf8)
        var response = HTTPResponse(status: error.status)
        response.headerFields[.contentType] = "application/json"
        return (response, HTTPBody(body))
    }

    /// What the generated code could not decode, in fixed words: never the request's values.
    static func describe(_ error: any Error) -> String {
        if error is DecodingError { return "a field of the body has the wrong type or is missing" }
        let text = String(describing: error)
        for (marker, words) in [
            ("required header", "a required header is missing"), ("content type", "the Content-Type is not the route's"),
            ("Accept", "the Accept header is not acceptable"), ("request body", "the body is missing"),
            ("query parameter", "a query parameter is missing or malformed"), ("path parameter", "a path parameter is missing"),
        ] where text.range(of: marker, options: .caseInsensitive) != nil {
            return words
        }
        return "the request could not be decoded"
    }
}
