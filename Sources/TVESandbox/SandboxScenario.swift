import TVEAccessEnabler

/// One of the cookbook's walks, played as an app would against a running ``Sandbox``, through the delegate API: every
/// step checks the callbacks the cookbook promises and throws ``SandboxError`` when one is not what it says.
/// `tvekit demo` prints them; the tests run them.
public struct SandboxScenario: Sendable, Identifiable {
    /// A stable identifier (`classic`, `platform-sso`, `second-screen`).
    public let id: String
    /// What the walk shows.
    public let name: String
    private let walk: @Sendable (ScenarioRun) async throws -> Void

    /// iOS without single sign-on: startup, authentication in the MVPD's login page, preauthorization, authorization
    /// (a plain and an MRSS resource, each token verified as a player's back end would), a denial, user metadata,
    /// logout through the logout page.
    public static let classic = SandboxScenario(id: "classic", name: "iOS, without single sign-on") { try await $0.classic() }
    /// The Apple SSO cookbook with a simulated TV-provider account: the platform picker, the token exchange,
    /// `tokenSource`, the SSO logout's `VSA203`.
    public static let platformSSO = SandboxScenario(id: "platform-sso", name: "iOS, with platform single sign-on") {
        try await $0.platformSSO()
    }
    /// tvOS: a registration code shown on the TV and used on a phone, then authorization and logout.
    public static let secondScreen = SandboxScenario(id: "second-screen", name: "tvOS, second screen") { try await $0.secondScreen() }

    /// TempPass (REST API v2 only): picking a TempPass MVPD authenticates at once, with no login page; a promotional
    /// pass with the viewer's e-mail given to `getAuthentication:withData:`; each gives a media token that verifies.
    public static let tempPass = SandboxScenario(id: "temppass", name: "TempPass and promotional TempPass", needsV2: true) {
        try await $0.tempPass()
    }

    /// Single sign-on with a service token (REST API v2 only): a phone logs in with the viewer's `AD-Service-Token`; a TV
    /// that sends its own token for the same viewer is authenticated at once (`serviceTokenSSO`), and its media token
    /// verifies.
    public static let serviceTokenSSO = SandboxScenario(id: "service-token-sso", name: "Single sign-on with a service token", needsV2: true)
    {
        try await $0.serviceTokenSSO()
    }

    /// Degraded access (REST API v2 only): while Sandbox Cable is down, Adobe's operators switch degraded access on; the
    /// app is authenticated without a login and authorized by the degradation rule, even for a resource the MVPD would
    /// deny; switched off, the degraded authentication is gone.
    public static let degradedAccess = SandboxScenario(id: "degraded", name: "Degraded access while an MVPD is down", needsV2: true) {
        try await $0.degradedAccess()
    }

    /// Every scenario, in the order `tvekit demo` plays them.
    public static let all = [classic, platformSSO, secondScreen, tempPass, serviceTokenSSO, degradedAccess]

    /// The scenario needs REST API v2 (TempPass is a v2 flow).
    public let needsV2: Bool

    init(id: String, name: String, needsV2: Bool = false, walk: @escaping @Sendable (ScenarioRun) async throws -> Void) {
        self.id = id
        self.name = name
        self.needsV2 = needsV2
        self.walk = walk
    }

    /// Plays the scenario against `sandbox` over `api` (REST API v2 unless told), telling `narrator` each call, note and
    /// callback.
    public func run(in sandbox: Sandbox, narrator: ScenarioNarrator = .silent, api: AsyncAccessEnabler.ServiceAPI = .v2) async throws {
        try await walk(ScenarioRun(sandbox: sandbox, narrator: narrator, api: api))
    }
}
