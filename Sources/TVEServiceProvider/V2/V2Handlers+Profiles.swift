import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEJSON
import TVEMetadata
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    func getProfilesUsingGET1(_ input: Operations.GetProfilesUsingGET1.Input) async throws -> Operations.GetProfilesUsingGET1.Output {
        let caller = try V2Caller.get()
        let profiles = try callerProfiles(caller, now: now)
        return .ok(.init(body: .json(try profilesResponse(profiles.values, requestor: caller.requestor))))
    }

    /// The device's profile with one MVPD. For a TempPass, the pass's state first, as Adobe's pages answer it: 500 for
    /// a misconfigured pass, 400 without a promotional pass's identity, 403 once it has run out or a promotional pass
    /// has used its resources.
    func getProfileForMvpdUsingGET(_ input: Operations.GetProfileForMvpdUsingGET.Input) async throws
        -> Operations.GetProfileForMvpdUsingGET.Output
    {
        let caller = try V2Caller.get()
        guard let mvpd = configuration.mvpd(input.path.mvpd, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        let holder = try caller.holder()
        let now = self.now
        if mvpd.isTempPass == true {
            try checkTempPassProfile(
                mvpd, requestor: holder.requestor.id, deviceID: holder.deviceID, identity: holder.tempPassIdentity, now: now,
                actionNone: true)
        }
        let profile = callerProfiles(holder, now: now)[mvpd.id]
        return .ok(.init(body: .json(try profilesResponse(profile.map { [$0] } ?? [], requestor: caller.requestor))))
    }

    /// The profile a second-screen login made with `code`: only the client and device that created the session may
    /// read it (the device identifier is optional on this route; when sent it must match). Empty until the login
    /// completes; a session that needed no login reads the profile it was answered with (a TempPass's, checked as on
    /// `profiles/{mvpd}`), or under degraded access (AuthNAll) the device's degraded profile.
    func getProfileForCodeUsingGET1(_ input: Operations.GetProfileForCodeUsingGET1.Input) async throws
        -> Operations.GetProfileForCodeUsingGET1.Output
    {
        let caller = try V2Caller.get()
        let now = self.now
        let session = try liveSession(input.path.code, caller: caller, now: now)
        guard session.clientID == caller.clientID, caller.device.map({ $0.fingerprint == session.deviceID }) ?? true else {
            throw V2Errors.unknownCode
        }
        let mvpd = session.mvpd.flatMap { configuration.mvpd($0, for: caller.requestor.id) }
        if let mvpd, mvpd.isTempPass == true {
            try checkTempPassProfile(
                mvpd, requestor: session.requestor, deviceID: session.deviceID, identity: caller.tempPassIdentity, now: now,
                actionNone: false)
        }
        var profiles = session.profile.map { [$0] } ?? []
        if profiles.isEmpty, let mvpd, mvpd.isTempPass != true, let since = provider.degradedAccess.authenticatingSince(mvpd.id) {
            profiles = [degradedProfile(mvpd.id, deviceKey: caller.holder(of: session).deviceKey, since: since, now: now)]
        }
        return .ok(.init(body: .json(try profilesResponse(profiles, requestor: caller.requestor))))
    }

    /// Profiles in Adobe's shape, with the subscriber's metadata as attributes.
    func profilesResponse(_ profiles: some Sequence<V2Profile>, requestor: ServiceProviderConfiguration.Requestor)
        throws(ServiceProviderError)
        -> Components.Schemas.ProfilesResponse
    {
        var map: [String: Components.Schemas.MvpdProfileResponse] = [:]
        for profile in profiles {
            map[profile.mvpd] = Components.Schemas.MvpdProfileResponse(
                attributes: .init(additionalProperties: try attributes(of: profile, requestor: requestor)), issuer: profile.issuer,
                notAfter: profile.notAfter, notBefore: profile.notBefore, sessionId: profile.sessionGUID, _type: profile.type)
        }
        return .init(profiles: .init(additionalProperties: map))
    }

    /// A TempPass's attributes, as Adobe's profiles carry them: `expiration_date` (the pass's end, epoch milliseconds)
    /// and, for a promotional pass, `used_assets` (the resources it was authorized for) and `remaining_resources`
    /// (how many more it may be, when it has a limit).
    func passAttributes(of profile: V2Profile) -> [String: JSONValue] {
        guard profile.type == "temporary" else { return [:] }
        var values: [String: JSONValue] = ["expiration_date": .integer(profile.notAfter)]
        guard let mvpd = configuration.mvpds.first(where: { $0.id == profile.mvpd }), mvpd.promotionalTempPass == true else {
            return values
        }
        let used = profile.tempPassKey.flatMap { tempPassUse($0, now: now) }?.assets ?? []
        values["used_assets"] = .array(used.map { .string($0) })
        if let limit = mvpd.tempPassResourceLimit { values["remaining_resources"] = .integer(Int64(max(0, limit - used.count))) }
        return values
    }

    /// The user metadata of a profile: `plain` values as they are, the requestor's `encryptedMetadataKeys` as `enc`
    /// values encrypted to the programmer's key (when the service provider has one), in the requestor's encoding.
    ///
    /// **Choice:** an `enc` value is what TVEKit's v1 metadata holds for that key (RSA PKCS#1 v1.5 blocks, Base64, or a
    /// compact JWE with `metadataEncryption: jwe`); Adobe does not say which it uses in v2.
    func attributes(of profile: V2Profile, requestor: ServiceProviderConfiguration.Requestor) throws(ServiceProviderError)
        -> [String: Components.Schemas.UserMetadataResponse]
    {
        var values = passAttributes(of: profile)
        if profile.type == "appleSSO" { values["tokenSource"] = .string("Apple") }
        if let user = configuration.mvpds.first(where: { $0.id == profile.mvpd })?.users.first(where: {
            LocalIdentityProvider.nameID(of: $0) == profile.userID
        }) {
            for (key, text) in user.metadata { values[key] = JSONValue(jsonText: Array(text.utf8)) ?? .string(text) }
        }
        // A profile always names its user (Adobe's profiles carry `userID`): the MVPD's NameID unless the metadata sets one.
        if values["userID"] == nil, !profile.userID.isEmpty { values["userID"] = .string(profile.userID) }
        var encrypted = Set(requestor.encryptedMetadataKeys ?? [])
        // Single sign-on profiles also name the MVPD and its user (`upstreamUserID`), as Adobe's do; the upstream user
        // is encrypted whenever the user ID is.
        if profile.type == "platformSSO" || profile.type == "serviceTokenSSO" {
            values["mvpd"] = .string(profile.mvpd)
            values["upstreamUserID"] = .string(profile.userID)
            if encrypted.contains("userID") { encrypted.insert("upstreamUserID") }
        }
        let encryptor = provider.keys.metadataEncryptionKey.map { key in
            MetadataEncryptor(
                publicKey: key, encoding: requestor.metadataEncryption == "jwe" ? .jwe(.rsaOAEP256, .a256GCM) : .rsaBlocks(lineLength: nil))
        }
        var attributes: [String: Components.Schemas.UserMetadataResponse] = [:]
        for (key, value) in values {
            do {
                if let encryptor, encrypted.contains(key) {
                    attributes[key] = .init(
                        state: "enc", value: try OpenAPIValueContainer(unvalidatedValue: try encryptor.encryptValue(value)))
                } else {
                    let container = try JSONDecoder().decode(OpenAPIValueContainer.self, from: Data(value.jsonText.utf8))
                    attributes[key] = .init(state: "plain", value: container)
                }
            } catch {
                throw ServiceProviderError(
                    status: 500, code: "invalid_configuration_user_metadata_certificate", message: "Internal Error",
                    details: "the user metadata could not be encoded", action: .configuration)
            }
        }
        return attributes
    }
}
