import Foundation
import TVECrypto
import TVEPassAPIv2

extension V2Handlers {
    /// The profiles a caller holds, by MVPD: its device's own; for an MVPD it has none of, the one its single-sign-on
    /// identity holds (typed `platformSSO` or `serviceTokenSSO`, for an MVPD of this requestor); and for an MVPD under
    /// degraded access that it still has none of, a `degraded` profile issued by `Adobe` (``DegradedAccess``).
    func callerProfiles(_ caller: V2Caller, now: Int64) throws(ServiceProviderError) -> [String: V2Profile] {
        let key = try caller.deviceKey()
        var profiles = state.liveProfiles(key, now: now)
        if let identity = caller.singleSignOn {
            for (mvpd, profile) in state.liveProfiles(identity.key, now: now)
            where profiles[mvpd] == nil && configuration.mvpd(mvpd, for: caller.requestor.id) != nil {
                profiles[mvpd] = profile.typed(identity.method.profileType)
            }
        }
        for mvpd in configuration.mvpds(for: caller.requestor.id) ?? [] where profiles[mvpd.id] == nil && mvpd.isTempPass != true {
            if let since = provider.degradedAccess.since(mvpd.id) {
                profiles[mvpd.id] = degradedProfile(mvpd.id, deviceKey: key, since: since, now: now)
            }
        }
        return profiles
    }

    /// The profile of a device while its MVPD is under degraded access: issued by Adobe, from the switch's time, for
    /// the authentication lifetime from now; its session ID is the same for the device as long as the switch stays on.
    func degradedProfile(_ mvpd: String, deviceKey: String, since: Int64, now: Int64) -> V2Profile {
        let digest = V2SingleSignOn.hex(deviceKey + "\u{0}" + mvpd + "\u{0}" + String(since))
        return V2Profile(
            mvpd: mvpd, userID: "", sessionGUID: String(digest.prefix(32)), notBefore: since,
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
