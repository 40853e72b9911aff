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
    func addRegistrationCodeRoutes<Context: RequestContext>(to router: Router<Context>) {
        api(router, .post, "reggie/v1/:requestor/regcode") { call in
            let requestor = try call.pathRequestor()
            try call.requireClient(requestor: requestor.id)
            let deviceID = try call.deviceID()
            guard let deviceInfo = call.field("device_info") ?? ClientRegistry.deviceInfoHeader.flatMap({ call.request.headers[$0] }),
                  FormFields.isAcceptable(deviceInfo, limit: 8192) else {
                throw ServiceProviderError.badRequest("invalid_device_info", "device_info (or X-Device-Info) is required")
            }
            var ttl = RegistrationCodes.defaultTTL
            if let text = call.field("ttl") {
                guard let value = Int64(text), value > 0, value <= RegistrationCodes.maximumTTL else {
                    throw ServiceProviderError.badRequest("invalid_parameter", "ttl must be 1 to \(RegistrationCodes.maximumTTL) seconds")
                }
                ttl = value
            }
            if let mvpd = call.field("mvpd"), self.configuration.mvpd(mvpd, for: requestor.id) == nil { throw ServiceProviderError.unknownMVPD }
            guard let record = self.codes.create(requestor: requestor.id, deviceID: deviceID, deviceInfo: deviceInfo, mvpd: call.field("mvpd"),
                                                 ttl: ttl, userAgent: call.request.headers[.userAgent].map { String($0.prefix(512)) }) else {
                throw ServiceProviderError.busy
            }
            return VerificationService.json(.created, record)
        }
        api(router, .get, "reggie/v1/:requestor/regcode/:code") { call in
            let requestor = try call.pathRequestor()
            try call.requireClient(requestor: requestor.id)
            guard let record = self.codes.record(call.path.get("code") ?? ""), record.requestor == requestor.id else {
                throw ServiceProviderError.registrationCodeNotFound
            }
            return VerificationService.json(.ok, record)
        }
        api(router, .delete, "reggie/v1/:requestor/regcode/:code") { call in
            let requestor = try call.pathRequestor()
            try call.requireClient(requestor: requestor.id)
            let code = call.path.get("code") ?? ""
            guard self.codes.record(code)?.requestor == requestor.id, self.codes.delete(code) else {
                throw ServiceProviderError.registrationCodeNotFound
            }
            return Response(status: .noContent)
        }
    }
}
