import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// `GET /api/v2/{serviceProvider}/logout/{mvpd}?redirectUrl=`: removes the device's profile with the MVPD and says
    /// what is left to do, with Adobe's action types: `logout` (`interactive`: open the MVPD's logout page, which
    /// returns to `redirectUrl`), `partner_logout` (`partner_interactive`: an Apple single sign-on profile, the viewer
    /// signs out in the platform's settings; with the MVPD's page too when there is one to return from), `complete`
    /// (`none`: a TempPass, degraded access with the AuthNAll rule, an MVPD without a logout endpoint, or no page to
    /// return to), or `invalid` (`none`: there was no profile).
    func getLogoutForMvpdUsingGET(_ input: Operations.GetLogoutForMvpdUsingGET.Input) async throws
        -> Operations.GetLogoutForMvpdUsingGET.Output
    {
        let caller = try V2Caller.get()
        guard let mvpd = configuration.mvpd(input.path.mvpd, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        if let url = input.query.redirectUrl, !caller.requestor.allowsRedirect(to: url) { throw V2Errors.invalidRedirectURL }
        // The device's profile, and the one its single-sign-on identity holds: a logout ends single sign-on too.
        let own = state.removeProfile(mvpd.id, for: try caller.deviceKey(), now: now)
        let shared = caller.singleSignOn.flatMap { state.removeProfile(mvpd.id, for: $0.key, now: now) }
        // Under AuthNAll the device holds the rule's profile whatever it held, and the MVPD (its logout page too) is down.
        let degraded = mvpd.isTempPass != true && provider.degradedAccess.authenticatingSince(mvpd.id) != nil
        var logout = Components.Schemas.MvpdLogoutResponse(actionName: "complete", actionType: "none", mvpd: mvpd.id)
        switch (own ?? shared)?.type {
        case nil where !degraded:
            logout.actionName = "invalid"
        case "appleSSO"?:
            // As Adobe's service: the viewer signs out in the platform's settings, and the MVPD's page, when there is
            // one to return from, ends the MVPD's own session.
            logout.actionName = "partner_logout"
            logout.actionType = "partner_interactive"
            if mvpd.hasLogoutEndpoint != false, !degraded {
                logout.url = input.query.redirectUrl.map { Self.logoutPage(mvpd.id, returningTo: $0) }
            }
        case "temporary"?:
            break
        default:
            if !degraded, mvpd.hasLogoutEndpoint != false, let url = input.query.redirectUrl {
                logout.actionName = "logout"
                logout.actionType = "interactive"
                logout.url = Self.logoutPage(mvpd.id, returningTo: url)
            }
        }
        return .ok(.init(body: .json(.init(logouts: .init(additionalProperties: [mvpd.id: logout])))))
    }

    /// The MVPD's sign-out page, which returns to `url`.
    static func logoutPage(_ mvpd: String, returningTo url: String) -> String {
        "/idp/\(FormCodec.percentEncode(mvpd))/logout?" + FormCodec.encode([("redirectUrl", url)])
    }
}
