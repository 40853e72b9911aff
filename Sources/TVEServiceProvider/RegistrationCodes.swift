import Foundation
import Hummingbird
import TVEConcurrency
import TVECrypto
import TVETokens
import TVEPassAPI

/// Second-screen registration codes (`/reggie/v1/{requestor}/regcode`): in memory, bounded, expiring.
public final class RegistrationCodes: Sendable {
    /// A registration code as the REST API answers it.
    public typealias Record = PassAPI.RegistrationCodeRecord

    /// Default lifetime 30 minutes; at most 36,000 seconds (Adobe's limits).
    public static let defaultTTL: Int64 = 1800
    /// The longest lifetime a `ttl` may ask for, in seconds (10 hours); a longer one is answered 400 `invalid_parameter`.
    public static let maximumTTL: Int64 = 36_000
    /// Unambiguous characters (no 0/O, 1/I/L).
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    let clock: any MediaTokenClock
    let maximumCodes: Int

    private struct Entry {
        var record: Record
        /// The client that created the code: only it may read, delete or poll it.
        var client: String
        /// A browser login completed with this code: it cannot start another.
        var used = false
    }

    private let codes = Locked<[String: Entry]>([:])

    /// An empty store of at most `maximumCodes` codes (default 100,000). When it is full, expired codes are dropped;
    /// if it is still full, creating a code answers 503 `internal_error`. `clock` stamps and expires the codes.
    public init(maximumCodes: Int = 100_000, clock: any MediaTokenClock = SystemMediaTokenClock()) {
        self.maximumCodes = maximumCodes
        self.clock = clock
    }

    /// Seven characters of ``alphabet``, uniformly: bytes at or above the largest multiple of its size are redrawn.
    static func randomCode() -> String? {
        let limit = 256 / alphabet.count * alphabet.count
        var characters: [Character] = []
        while characters.count < 7 {
            guard let bytes = try? SecureRandom.bytes(count: 16) else { return nil }
            for byte in bytes where Int(byte) < limit && characters.count < 7 { characters.append(alphabet[Int(byte) % alphabet.count]) }
        }
        return String(characters)
    }

    func create(
        requestor: String, client: String, deviceID: String, deviceInfo: String, mvpd: String?, ttl: Int64, userAgent: String?
    ) throws(ServiceProviderError) -> Record {
        let now = clock.nowMilliseconds
        guard let code = Self.randomCode() else { throw .internalError }
        let record = Record(
            id: UUID().uuidString.lowercased(), code: code, requestor: requestor, mvpd: mvpd, generated: now,
            expires: now + ttl * 1000,
            info: .init(deviceID: deviceID, deviceInfo: deviceInfo, userAgent: userAgent, authorizationType: "OAUTH2"))
        let stored = codes.withLock { codes -> Result<Record, ServiceProviderError> in
            if codes.count >= maximumCodes { codes = codes.filter { $0.value.record.expires > now } }
            guard codes.count < maximumCodes, codes[code] == nil else { return .failure(.busy) }
            codes[code] = Entry(record: record, client: client)
            return .success(record)
        }
        return try stored.get()
    }

    /// The record of a live code that `client` created, or nil (unknown, expired, or another client's).
    func record(_ code: String, client: String) -> Record? {
        let now = clock.nowMilliseconds
        return codes.withLock { codes -> Record? in
            guard let entry = codes[code] else { return nil }
            guard entry.record.expires > now else {
                codes[code] = nil
                return nil
            }
            return entry.client == client ? entry.record : nil
        }
    }

    /// The record of a live code of `requestor` that no login has used yet, with the client that created it.
    func loginRecord(_ code: String, requestor: String) -> (record: Record, client: String)? {
        let now = clock.nowMilliseconds
        return codes.withLock { codes in
            guard let entry = codes[code], entry.record.expires > now, !entry.used, entry.record.requestor == requestor else { return nil }
            return (entry.record, entry.client)
        }
    }

    /// Marks a code used by a completed login; `false` when it is gone, expired, used, or not this device's.
    func consume(_ code: String, requestor: String, deviceID: String) -> Bool {
        let now = clock.nowMilliseconds
        return codes.withLock { codes in
            guard var entry = codes[code], entry.record.expires > now, !entry.used, entry.record.requestor == requestor,
                entry.record.info.deviceID == deviceID
            else { return false }
            entry.used = true
            codes[code] = entry
            return true
        }
    }

    /// Deletes a code of `requestor` that `client` created, in one step.
    func delete(_ code: String, requestor: String, client: String) -> Bool {
        codes.withLock { codes in
            guard let entry = codes[code], entry.record.requestor == requestor, entry.client == client else { return false }
            codes[code] = nil
            return true
        }
    }
}

extension ServiceProvider {
    func registrationCodeRoutes<Context: RequestContext>(context: Context.Type = Context.self) -> RouteCollection<Context> {
        let router = RouteCollection(context: Context.self)
        api(router, .post, "reggie/v1/:requestor/regcode") { call in
            let requestor = try call.pathRequestor()
            let client = try call.requireClient(requestor: requestor.id)
            let deviceID = try call.deviceID()
            // Optional, as public clientless clients register without it (the one v1 rule, APICall.deviceInfo()).
            let deviceInfo = try call.deviceInfo() ?? ""
            var ttl = RegistrationCodes.defaultTTL
            if let text = call.field("ttl") {
                guard let value = Int64(text), value > 0, value <= RegistrationCodes.maximumTTL else {
                    throw ServiceProviderError.badRequest("invalid_parameter", "ttl must be 1 to \(RegistrationCodes.maximumTTL) seconds")
                }
                ttl = value
            }
            if let mvpd = call.field("mvpd"), self.configuration.mvpd(mvpd, for: requestor.id) == nil {
                throw ServiceProviderError.unknownMVPD
            }
            // The client's quota of device state (codes, sessions, requests) keeps one client from filling the table.
            try self.attempts.consume(.deviceState, client, now: self.clock.nowMilliseconds)
            let record = try self.codes.create(
                requestor: requestor.id, client: client, deviceID: deviceID, deviceInfo: deviceInfo, mvpd: call.field("mvpd"),
                ttl: ttl, userAgent: call.request.headers[.userAgent].map { String($0.prefix(512)) })
            return Response.json(.created, record)
        }
        api(router, .get, "reggie/v1/:requestor/regcode/:code") { call in
            let requestor = try call.pathRequestor()
            let client = try call.requireClient(requestor: requestor.id)
            guard let record = self.codes.record(call.path.get("code") ?? "", client: client), record.requestor == requestor.id else {
                throw ServiceProviderError.registrationCodeNotFound
            }
            return Response.json(.ok, record)
        }
        api(router, .delete, "reggie/v1/:requestor/regcode/:code") { call in
            let requestor = try call.pathRequestor()
            let client = try call.requireClient(requestor: requestor.id)
            let code = call.path.get("code") ?? ""
            guard self.codes.delete(code, requestor: requestor.id, client: client) else {
                throw ServiceProviderError.registrationCodeNotFound
            }
            return Response(status: .noContent)
        }
        return router
    }
}
