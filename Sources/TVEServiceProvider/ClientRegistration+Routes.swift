import Foundation
import HTTPTypes
import Hummingbird
import TVEPassAPI
import TVEPassAPIv2
import TVETokens

extension ClientRegistry {
    static let deviceInfoHeader = HTTPField.Name("X-Device-Info")

    /// Adds `POST /o/client/register` and `POST /o/client/token` to `router`.
    ///
    /// Registration takes `X-Device-Info` when the app sends it and does without it, as Adobe's service does
    /// (``requiresDeviceInfo`` makes it required, with every key Adobe's file lists). The token request's `client_id`,
    /// `client_secret` and `grant_type` may come in the query string (where Adobe's DCR contract puts them) or in a form
    /// body (as Adobe's pages and SDKs send them); a name given in both with different values is refused. Wrong client
    /// secrets count against the caller's address (``AttemptLimiter/Kind/credential``).
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.addRoutes(routes(context: Context.self))
    }

    /// `POST /o/client/register` and `POST /o/client/token`, as one route collection (see ``addRoutes(to:)``).
    public func routes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        router.post("o/client/register") { request, context -> Response in
            guard self.allowRegistration(from: ClientAddress.of(context)) else {
                return ClientRegistrationError(
                    status: .tooManyRequests, error: "temporarily_unavailable",
                    description: "too many registrations from this address; try again later"
                ).response
            }
            if self.requiresDeviceInfo {
                guard let name = Self.deviceInfoHeader, let value = request.headers[name],
                    (try? PassAPIv2.DeviceInfo(header: PassAPIv2.headerValue(value))) != nil
                else {
                    return ClientRegistrationError(
                        status: .badRequest, error: "invalid_request",
                        description: "the X-Device-Info header is required: Base64 JSON with every key Adobe's contract lists"
                    ).response
                }
            }
            guard let body = try? await request.body.collect(upTo: 64 * 1024),
                let input = PassAPI.decode(PassAPI.ClientRegistrationRequest.self, from: Data(body.readableBytesView))
            else {
                return ClientRegistrationError(
                    status: .badRequest, error: "invalid_request", description: "the body must be JSON {software_statement, redirect_uri?}"
                ).response
            }
            do {
                let client = try self.register(softwareStatement: input.softwareStatement, redirectURI: input.redirectURI)
                return Response.json(
                    .created,
                    PassAPI.ClientRegistrationResponse(
                        clientID: client.id, clientSecret: client.secret, clientIDIssuedAt: client.issuedAt,
                        redirectURIs: client.redirectURIs, grantTypes: ["client_credentials"], scopes: ["api:client:v2"]))
            } catch let error as ClientRegistrationError {
                return error.response
            } catch {
                return ClientRegistrationError(status: .internalServerError, error: "server_error", description: "unexpected failure")
                    .response
            }
        }
        router.post("o/client/token") { request, context -> Response in
            do {
                let grant = try await Self.grant(request)
                guard grant.grantType == "client_credentials" else {
                    throw ClientRegistrationError(
                        status: .badRequest, error: "unsupported_grant_type", description: "only client_credentials is supported")
                }
                // Counted per address and client: a neighbour's wrong guesses lock no other client out.
                let address = ClientAddress.of(context) + "\u{0}" + grant.clientID
                let now = self.clock.nowMilliseconds
                guard self.attempts.allows(.credential, address, now: now) else {
                    throw ClientRegistrationError(
                        status: .tooManyRequests, error: "temporarily_unavailable",
                        description: "too many wrong client credentials from this address; try again later")
                }
                let token: String
                let created: Int64
                do throws(ClientRegistrationError) {
                    (token, created) = try self.token(clientID: grant.clientID, clientSecret: grant.clientSecret)
                } catch {
                    if error.code == "invalid_client" { self.attempts.fail(.credential, address, now: now) }
                    throw error
                }
                return Response.json(
                    .created,
                    PassAPI.AccessTokenResponse(
                        id: Self.randomToken(), accessToken: token, createdAt: created, expiresIn: self.accessTokenLifetime,
                        tokenType: "bearer"))
            } catch let error as ClientRegistrationError {
                return error.response
            } catch {
                return ClientRegistrationError(status: .internalServerError, error: "server_error", description: "unexpected failure")
                    .response
            }
        }
        return router
    }

    /// The token request's grant: its fields from the query string and from a form body (read up to 16 KiB, at most
    /// ``APICall/maximumFields`` fields in all), each name once or with one value.
    static func grant(_ request: Request) async throws(ClientRegistrationError) -> PassAPI.AccessTokenRequest {
        let query = request.uri.query ?? ""
        guard let body = try? await request.body.collect(upTo: 16 * 1024) else {
            throw ClientRegistrationError(status: .badRequest, error: "invalid_request", description: "the body is too large")
        }
        guard APICall.fieldCount(query.utf8) + APICall.fieldCount(body.readableBytesView) <= APICall.maximumFields else {
            throw ClientRegistrationError(
                status: .badRequest, error: "invalid_request", description: "a request carries at most \(APICall.maximumFields) fields")
        }
        let fields = FormCodec.decode(query) + FormCodec.decode(String(decoding: body.readableBytesView, as: UTF8.self))
        for name in ["client_id", "client_secret", "grant_type"] where Set(fields.filter { $0.name == name }.map(\.value)).count > 1 {
            throw ClientRegistrationError(
                status: .badRequest, error: "invalid_request", description: "\(name) is given twice with different values")
        }
        guard let grant = PassAPI.AccessTokenRequest(formFields: fields) else {
            throw ClientRegistrationError(
                status: .badRequest, error: "invalid_request",
                description: "client_id, client_secret and grant_type are required (query string or form body)")
        }
        return grant
    }
}
