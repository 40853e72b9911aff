import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import TVECrypto
import TVETokens

/// Second-screen registration codes (`/reggie/v1/{requestor}/regcode`): in memory, bounded, expiring.
public final class RegistrationCodes: Sendable {
    public struct Record: Sendable, Hashable, Encodable {
        public struct Info: Sendable, Hashable, Encodable {
            public let deviceId: String
            public let deviceInfo: String
            public let userAgent: String?
            public let authorizationType: String
        }
        public let id: String
        public let code: String
        public let requestor: String
        public let mvpd: String?
        public let generated: Int64
        public let expires: Int64
        public let info: Info
    }

    /// Default lifetime 30 minutes; at most 36,000 seconds (Adobe's limits).
    public static let defaultTTL: Int64 = 1800
    public static let maximumTTL: Int64 = 36_000
    /// Unambiguous characters (no 0/O, 1/I/L).
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    let clock: any MediaTokenClock
    let maximumCodes: Int
    private let codes = NIOLockedValueBox<[String: Record]>([:])

    public init(maximumCodes: Int = 100_000, clock: any MediaTokenClock = SystemMediaTokenClock()) {
        self.maximumCodes = maximumCodes
        self.clock = clock
    }

    func create(requestor: String, deviceID: String, deviceInfo: String, mvpd: String?, ttl: Int64, userAgent: String?) -> Record? {
        let now = clock.nowMilliseconds
        guard let random = try? SecureRandom.bytes(count: 7) else { return nil }
        let code = String(random.map { Self.alphabet[Int($0) % Self.alphabet.count] })
        let record = Record(id: UUID().uuidString.lowercased(), code: code, requestor: requestor, mvpd: mvpd, generated: now,
                            expires: now + ttl * 1000,
                            info: .init(deviceId: deviceID, deviceInfo: deviceInfo, userAgent: userAgent, authorizationType: "OAUTH2"))
        return codes.withLockedValue { codes -> Record? in
            if codes.count >= maximumCodes { codes = codes.filter { $0.value.expires > now } }
            guard codes.count < maximumCodes, codes[code] == nil else { return nil }
            codes[code] = record
            return record
        }
    }

    /// The record of a live code, or nil (unknown or expired).
    public func record(_ code: String) -> Record? {
        let now = clock.nowMilliseconds
        return codes.withLockedValue { codes -> Record? in
            guard let record = codes[code] else { return nil }
            guard record.expires > now else {
                codes[code] = nil
                return nil
            }
            return record
        }
    }

    func delete(_ code: String) -> Bool { codes.withLockedValue { $0.removeValue(forKey: code) != nil } }
}

extension ServiceProvider {
    /// Query parameters and, for POST, `application/x-www-form-urlencoded` body fields (query first).
    static func parameters(_ request: Request, body: ByteBuffer?) -> [String: String] {
        var fields: [String: String] = [:]
        if let body { fields = ClientRegistry.formFields(String(decoding: body.readableBytesView, as: UTF8.self)) }
        for (name, value) in request.uri.queryParameters { fields[String(name)] = String(value) }
        return fields
    }

    func addRegistrationCodeRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("reggie/v1/:requestor/regcode") { request, context -> Response in
            if let denied = self.requireBearer(request) { return denied }
            let requestor = context.parameters.get("requestor") ?? ""
            guard self.configuration.mvpds(for: requestor) != nil else {
                return VerificationService.json(.badRequest, LegacyError(status: 400, message: "Unknown requestor", details: nil))
            }
            let body = try? await request.body.collect(upTo: 16 * 1024)
            let fields = Self.parameters(request, body: body)
            let deviceInfo = fields["device_info"] ?? ClientRegistry.deviceInfoHeader.flatMap { request.headers[$0] }
            guard let deviceID = fields["deviceId"], !deviceID.isEmpty, deviceID.utf8.count <= 256, let deviceInfo, !deviceInfo.isEmpty else {
                return VerificationService.json(.badRequest, LegacyError(status: 400, message: "Bad request",
                                                                         details: "deviceId and device_info (or X-Device-Info) are required"))
            }
            var ttl = RegistrationCodes.defaultTTL
            if let text = fields["ttl"] {
                guard let value = Int64(text), value > 0, value <= RegistrationCodes.maximumTTL else {
                    return VerificationService.json(.badRequest, LegacyError(status: 400, message: "Bad request",
                                                                             details: "ttl must be 1 to \(RegistrationCodes.maximumTTL) seconds"))
                }
                ttl = value
            }
            guard let record = self.codes.create(requestor: requestor, deviceID: deviceID, deviceInfo: deviceInfo, mvpd: fields["mvpd"],
                                                 ttl: ttl, userAgent: request.headers[.userAgent]) else {
                return VerificationService.json(.serviceUnavailable, LegacyError(status: 503, message: "Too many registration codes", details: nil))
            }
            return VerificationService.json(.created, record)
        }
        router.get("reggie/v1/:requestor/regcode/:code") { request, context -> Response in
            if let denied = self.requireBearer(request) { return denied }
            guard let record = self.codes.record(context.parameters.get("code") ?? ""),
                  record.requestor == context.parameters.get("requestor") else {
                return VerificationService.json(.notFound, LegacyError(status: 404, message: "Registration code not found", details: nil))
            }
            return VerificationService.json(.ok, record)
        }
        router.delete("reggie/v1/:requestor/regcode/:code") { request, context -> Response in
            if let denied = self.requireBearer(request) { return denied }
            let code = context.parameters.get("code") ?? ""
            guard self.codes.record(code)?.requestor == context.parameters.get("requestor"), self.codes.delete(code) else {
                return VerificationService.json(.notFound, LegacyError(status: 404, message: "Registration code not found", details: nil))
            }
            return Response(status: .noContent)
        }
    }
}
