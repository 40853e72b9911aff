import Foundation
import TVEConcurrency
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2

/// Why a TempPass cannot serve a call, in the order Adobe's pages check it.
enum V2TempPassFailure: Error, Sendable, Hashable {
    /// The pass is configured wrongly (``ServiceProviderConfiguration/MVPD/tempPassConfigurationInvalid``).
    case invalidConfiguration
    /// A promotional pass without `AP-TempPass-Identity`.
    case missingIdentity
    /// The pass has run out.
    case durationExceeded
    /// A promotional pass has been authorized for its limit of resources.
    case resourcesExceeded
}

extension V2Errors {
    /// The Enhanced Error of a TempPass failure, as Adobe's pages give it.
    ///
    /// **Choice** (Adobe's pages differ by route, and TVEKit answers as each page does): the action of a run-out or
    /// misconfigured pass is `authentication` or `configuration`, except on `profiles/{mvpd}` for a promotional pass,
    /// whose page answers `none` for both (`actionNone`).
    static func tempPass(_ failure: V2TempPassFailure, actionNone: Bool = false) -> ServiceProviderError {
        switch failure {
        case .invalidConfiguration:
            return ServiceProviderError(
                status: 500, code: "invalid_configuration_temporary_access", message: "The temporary access configuration is invalid.",
                details: "the TempPass is not configured for this service provider", action: actionNone ? .none : .configuration)
        case .missingIdentity:
            return badRequest(
                "invalid_header_identity_for_temporary_access", "a promotional TempPass needs the AP-TempPass-Identity header")
        case .durationExceeded:
            return ServiceProviderError(
                status: 403, code: "temporary_access_duration_limit_exceeded",
                message: "The temporary access duration limit has been exceeded.", details: "the temporary pass has run out",
                action: actionNone ? .none : .authentication)
        case .resourcesExceeded:
            return ServiceProviderError(
                status: 403, code: "temporary_access_resources_limit_exceeded",
                message: "The temporary access resources limit has been exceeded.",
                details: "the promotional pass was used for its limit of resources", action: .authentication)
        }
    }
}

extension ServiceProviderConfiguration.MVPD {
    /// What is wrong with this MVPD's TempPass options.
    var tempPassProblems: [String] {
        var problems: [String] = []
        if let limit = tempPassResourceLimit {
            if promotionalTempPass != true || isTempPass != true {
                problems.append("MVPD \(id): tempPassResourceLimit is for a promotional TempPass only")
            }
            if !(1...1000).contains(limit) { problems.append("MVPD \(id): tempPassResourceLimit must be 1 to 1000") }
        }
        if tempPassConfigurationInvalid == true, isTempPass != true {
            problems.append("MVPD \(id): tempPassConfigurationInvalid is for a TempPass only")
        }
        return problems
    }
}

extension V2Handlers {
    /// The key of a TempPass (SHA-256, so that a large identity costs no memory): the requestor, the MVPD, and the
    /// device, or for a promotional TempPass the `AP-TempPass-Identity`; nil when a promotional pass has none. Not the
    /// client: a device that registers again gets no new pass.
    func tempPassKey(
        _ mvpd: ServiceProviderConfiguration.MVPD, requestor: String, deviceID: String, identity: PassAPIv2.TempPassIdentity?
    ) -> String? {
        let holder: String
        if mvpd.promotionalTempPass == true {
            guard let identity else { return nil }
            holder = "identity\u{0}" + identity.key
        } else {
            holder = "device\u{0}" + deviceID
        }
        return sha256Hex(requestor + "\u{0}" + mvpd.id + "\u{0}" + holder)
    }

    /// The live use of the TempPass `key`, nil when it was never used (or is forgotten).
    func tempPassUse(_ key: String, now: Int64) -> V2TempPassUse? {
        guard case .live(let use, _) = state.tempPasses.withLock({ $0.lookup(key, now: now) }) else { return nil }
        return use
    }

    /// The TempPass `mvpd` of a device (or a promotional pass's viewer) now: the failure that stops it, else its key
    /// and use (nil when it has not started).
    func tempPassState(
        _ mvpd: ServiceProviderConfiguration.MVPD, requestor: String, deviceID: String, identity: PassAPIv2.TempPassIdentity?,
        now: Int64
    ) -> Result<(key: String, use: V2TempPassUse?), V2TempPassFailure> {
        if mvpd.tempPassConfigurationInvalid == true { return .failure(.invalidConfiguration) }
        guard let key = tempPassKey(mvpd, requestor: requestor, deviceID: deviceID, identity: identity) else {
            return .failure(.missingIdentity)
        }
        let use = tempPassUse(key, now: now)
        if let use, now >= use.first + mvpd.tempPassMilliseconds { return .failure(.durationExceeded) }
        return .success((key, use))
    }

    /// The check of the profile routes for a TempPass: its configuration, the promotional identity, its duration, and
    /// its resources (a promotional pass whose limit is used up answers 403, as Adobe's pages show).
    func checkTempPassProfile(
        _ mvpd: ServiceProviderConfiguration.MVPD, requestor: String, deviceID: String, identity: PassAPIv2.TempPassIdentity?,
        now: Int64, actionNone: Bool
    ) throws(ServiceProviderError) {
        switch tempPassState(mvpd, requestor: requestor, deviceID: deviceID, identity: identity, now: now) {
        case .failure(let failure):
            throw V2Errors.tempPass(failure, actionNone: actionNone && mvpd.promotionalTempPass == true)
        case .success(let pass):
            if let limit = mvpd.tempPassResourceLimit, let use = pass.use, use.assets.count >= limit {
                throw V2Errors.tempPass(.resourcesExceeded)
            }
        }
    }

    /// The name a promotional pass's `used_assets` lists a resource under: the resource itself up to 256 bytes, else
    /// `sha256:` and its digest (so that a pass's record stays small).
    static func assetName(_ resource: String) -> String {
        resource.utf8.count <= 256 ? resource : "sha256:" + sha256Hex(resource)
    }

    /// Whether the promotional pass `key` may be authorized for `resource`: one it was authorized for, or a new one
    /// within `limit`; `record` adds a new one to the pass's resources.
    func allowsTempPassResource(_ resource: String, key: String, limit: Int?, record: Bool, now: Int64) -> Bool {
        let name = Self.assetName(resource)
        return state.tempPasses.withLock { table -> Bool in
            guard case .live(var use, let expires) = table.lookup(key, now: now) else { return false }
            if use.assets.contains(name) { return true }
            if let limit, use.assets.count >= limit { return false }
            guard record else { return true }
            use.assets.append(name)
            return table.insert(key, use, expires: expires, now: now)
        }
    }

    /// Starts (or finds) the TempPass `mvpd` of `holder` and records its profile for the holder's device: the profile,
    /// or nil when the pass is misconfigured (it can be chosen; its profiles and decisions answer 500).
    func startTempPass(_ mvpd: ServiceProviderConfiguration.MVPD, holder: V2Holder, now: Int64) throws(ServiceProviderError)
        -> V2Profile?
    {
        guard mvpd.tempPassConfigurationInvalid != true else { return nil }
        guard
            let passKey = tempPassKey(
                mvpd, requestor: holder.requestor.id, deviceID: holder.deviceID, identity: holder.tempPassIdentity)
        else { throw V2Errors.tempPass(.missingIdentity) }
        let duration = mvpd.tempPassMilliseconds
        if case .missing = state.tempPasses.withLock({ $0.lookup(passKey, now: now) }) {
            try provider.attempts.consume(.deviceState, holder.clientID, now: now)
        }
        let first = try state.tempPasses.withLock { table -> Result<Int64, ServiceProviderError> in
            if case .live(let use, _) = table.lookup(passKey, now: now) { return .success(use.first) }
            let use = V2TempPassUse(first: now)
            guard table.insert(passKey, use, expires: now + duration + Self.tempPassMemory, now: now) else { return .failure(.busy) }
            return .success(now)
        }.get()
        guard now < first + duration else { throw V2Errors.tempPass(.durationExceeded) }
        let profile = V2Profile(
            mvpd: mvpd.id, userID: "temppass_" + passKey.prefix(40), sessionGUID: UUID().uuidString.lowercased(), notBefore: first,
            notAfter: first + duration, type: "temporary", issuer: "Adobe", tempPassKey: passKey)
        guard state.store(profile, for: holder.deviceKey, now: now) else { throw .busy }
        return profile
    }
}
