import Foundation
import TVECrypto
import TVEPassAPIv2

extension V2Handlers {
    /// The profiles a caller's own device holds, by MVPD (see the holder's variant).
    func callerProfiles(_ caller: V2Caller, now: Int64) throws(ServiceProviderError) -> [String: V2Profile] {
        callerProfiles(try caller.holder(), now: now)
    }

    /// The profiles a device holds, by MVPD: its own; for an MVPD it has none of, the one its single-sign-on identity
    /// holds (typed `platformSSO` or `serviceTokenSSO`, for an MVPD of this requestor); and for an MVPD under degraded
    /// access with Adobe's AuthNAll rule that it still has none of, a `degraded` profile issued by `Adobe`
    /// (``DegradedAccess``).
    func callerProfiles(_ holder: V2Holder, now: Int64) -> [String: V2Profile] {
        let key = holder.deviceKey
        var profiles = state.liveProfiles(key, now: now)
        if let identity = holder.singleSignOn {
            for (mvpd, profile) in state.liveProfiles(identity.key, now: now)
            where profiles[mvpd] == nil && configuration.mvpd(mvpd, for: holder.requestor.id) != nil {
                profiles[mvpd] = profile.typed(identity.method.profileType)
            }
        }
        for mvpd in configuration.mvpds(for: holder.requestor.id) ?? [] where profiles[mvpd.id] == nil && mvpd.isTempPass != true {
            if let since = provider.degradedAccess.authenticatingSince(mvpd.id) {
                profiles[mvpd.id] = degradedProfile(mvpd.id, deviceKey: key, since: since, now: now)
            }
        }
        return profiles
    }

    /// The profile of a device while its MVPD is under degraded access with the AuthNAll rule: issued by Adobe, from
    /// the rule's time, for the authentication lifetime from now; its session ID and user ID are the same for the device
    /// as long as the rule stays on.
    func degradedProfile(_ mvpd: String, deviceKey: String, since: Int64, now: Int64) -> V2Profile {
        let digest = sha256Hex(deviceKey + "\u{0}" + mvpd + "\u{0}" + String(since))
        return V2Profile(
            mvpd: mvpd, userID: String(digest.suffix(32)), sessionGUID: String(digest.prefix(32)), notBefore: since,
            notAfter: now + configuration.authenticationTTL * 1000, type: "degraded", issuer: "Adobe")
    }
}

extension ServiceProvider {
    /// Records a login's profile for the device and, when the login carried a single-sign-on identity, for that identity.
    func storeV2Profile(_ profile: V2Profile, deviceKey: String, singleSignOnKey: String?, now: Int64) throws(ServiceProviderError) {
        guard v2.store(profile, for: deviceKey, now: now) else { throw .busy }
        if let singleSignOnKey, !v2.store(profile, for: singleSignOnKey, now: now) { throw .busy }
    }
}
