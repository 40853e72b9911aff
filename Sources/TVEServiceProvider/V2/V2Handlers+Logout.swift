import Foundation
import OpenAPIRuntime
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESAML
import TVETokens

extension V2Handlers {
    /// `GET /api/v2/{serviceProvider}/logout/{mvpd}?redirectUrl=`: removes the device's profile with the MVPD and says
    /// what is left to do: `logout` (open the MVPD's logout page, which returns to `redirectUrl`), `complete` (nothing:
    /// a TempPass, or no page to return to), `partner_logout` (an Apple single sign-on profile: the viewer signs out
    /// in the platform's settings; with the MVPD's page too when there is one to return from), or `invalid` (there was
    /// no profile).
    func getLogoutForMvpdUsingGET(_ input: Operations.GetLogoutForMvpdUsingGET.Input) async throws
        -> Operations.GetLogoutForMvpdUsingGET.Output
    {
        let caller = try V2Caller.get()
        guard let mvpd = configuration.mvpd(input.path.mvpd, for: caller.requestor.id) else { throw V2Errors.unknownMVPD }
        if let url = input.query.redirectUrl, !caller.requestor.allowsRedirect(to: url) { throw V2Errors.invalidRedirectURL }
        // The device's profile, and the one its single-sign-on identity holds: a logout ends single sign-on too.
        let own = state.removeProfile(mvpd.id, for: try caller.deviceKey(), now: now)
        let shared = caller.singleSignOn.flatMap { state.removeProfile(mvpd.id, for: $0.key, now: now) }
        let removed = own ?? shared
        var logout = Components.Schemas.MvpdLogoutResponse(actionName: "complete", actionType: "direct", mvpd: mvpd.id)
        switch removed?.type {
        case nil:
            logout.actionName = "invalid"
            logout.actionType = "none"
        case "appleSSO"?:
            // As Adobe's service: the viewer signs out in the platform's settings, and the MVPD's page, when there is
            // one to return from, ends the MVPD's own session.
            logout.actionName = "partner_logout"
            logout.actionType = "interactive"
            logout.url = input.query.redirectUrl.map { Self.logoutPage(mvpd.id, returningTo: $0) }
        case "temporary"?:
            break
        default:
            if let url = input.query.redirectUrl {
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
