import OpenAPIRuntime
import TVEPassAPIv2

/// The REST API v2 handlers of the fuzzer: every operation answers a fixed `.ok` (a few echo a decoded input value, so
/// that fuzzed text reaches the generated response encoding), so that what the fuzzer reaches is the generated request
/// decoding and response encoding, not a service provider.
struct V2FuzzStub: APIProtocol {
    static let session = Components.Schemas.SessionResponse(
        actionName: "authenticate", actionType: "interactive", code: "FUZZ", reasonType: "none", serviceProvider: "fuzz",
        sessionId: "00000000-0000-0000-0000-000000000000", url: "/api/v2/authenticate/fuzz/FUZZ")

    func startAuthenticationUsingGET(_ input: Operations.StartAuthenticationUsingGET.Input) async throws
        -> Operations.StartAuthenticationUsingGET.Output
    {
        .ok(.init())
    }

    func handleRequestUsingGET(_ input: Operations.HandleRequestUsingGET.Input) async throws -> Operations.HandleRequestUsingGET.Output {
        .ok(.init(body: .json(.init(os: input.query.profile, platform: "fuzz"))))
    }

    func retrieveAuthorizeDecisionsForMvpdUsingPOST(_ input: Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.Input) async throws
        -> Operations.RetrieveAuthorizeDecisionsForMvpdUsingPOST.Output
    {
        var resources: [String] = []
        if case .json(let body) = input.body { resources = Array((body.resources ?? []).prefix(4)) }
        let decisions = resources.map {
            Components.Schemas.DecisionResponse(
                authorized: false, mvpd: input.path.mvpd, resource: $0, serviceProvider: input.path.serviceProvider, source: "fuzz")
        }
        return .ok(.init(body: .json(.init(decisions: decisions))))
    }

    func retrievePreAuthorizeDecisionsForMvpdUsingPOST1(_ input: Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.Input)
        async throws -> Operations.RetrievePreAuthorizeDecisionsForMvpdUsingPOST1.Output
    {
        .ok(.init(body: .json(.init(decisions: []))))
    }

    func getLogoutForMvpdUsingGET(_ input: Operations.GetLogoutForMvpdUsingGET.Input) async throws
        -> Operations.GetLogoutForMvpdUsingGET.Output
    {
        .ok(.init(body: .json(.init(logouts: .init()))))
    }

    func getProfilesUsingGET1(_ input: Operations.GetProfilesUsingGET1.Input) async throws -> Operations.GetProfilesUsingGET1.Output {
        .ok(.init(body: .json(.init(profiles: .init()))))
    }

    func getProfileForCodeUsingGET1(_ input: Operations.GetProfileForCodeUsingGET1.Input) async throws
        -> Operations.GetProfileForCodeUsingGET1.Output
    {
        .ok(.init(body: .json(.init(profiles: .init()))))
    }

    func createPartnerProfileUsingPOST(_ input: Operations.CreatePartnerProfileUsingPOST.Input) async throws
        -> Operations.CreatePartnerProfileUsingPOST.Output
    {
        .ok(.init(body: .json(.init(profiles: .init()))))
    }

    func getProfileForMvpdUsingGET(_ input: Operations.GetProfileForMvpdUsingGET.Input) async throws
        -> Operations.GetProfileForMvpdUsingGET.Output
    {
        .ok(.init(body: .json(.init(profiles: .init()))))
    }

    func createSessionUsingPOST(_ input: Operations.CreateSessionUsingPOST.Input) async throws -> Operations.CreateSessionUsingPOST.Output {
        var session = Self.session
        if case .urlEncodedForm(let form) = input.body { session.mvpd = form.mvpd }
        return .ok(.init(body: .json(session)))
    }

    func retrieveVerificationTokenUsingPOST(_ input: Operations.RetrieveVerificationTokenUsingPOST.Input) async throws
        -> Operations.RetrieveVerificationTokenUsingPOST.Output
    {
        .ok(.init(body: .json(Self.session)))
    }

    func getSessionStatusUsingGET1(_ input: Operations.GetSessionStatusUsingGET1.Input) async throws
        -> Operations.GetSessionStatusUsingGET1.Output
    {
        .ok(.init(body: .json(.init(existingParameters: .init(additionalProperties: ["code": input.path.code])))))
    }

    func resumeSessionUsingPOST(_ input: Operations.ResumeSessionUsingPOST.Input) async throws -> Operations.ResumeSessionUsingPOST.Output {
        .ok(.init(body: .json(Self.session)))
    }
}
