import Foundation
import Testing
import TVECrypto
import TVESandbox
@testable import TVEServiceProvider

/// What a sample's `feature` needs of the sandbox, set up by the replay (see `TestVectors/adobe-samples/SOURCE.md`).
extension AdobeSampleReplay {
    /// The MVPD Adobe's `Dish` (an MVPD without a logout endpoint) is replayed with.
    static let mvpdWithoutLogout = "SandboxNoLogout"
    /// Adobe's TempPass_TEST40 lasts 3 minutes (its configuration's display name says so): the replay's TempPass too,
    /// so that a pass runs out within the life of a session's code (30 minutes), as at Adobe.
    static let tempPassSeconds: Int64 = 180
    /// The resource the replay authorizes a promotional TempPass for before a `promotionalTempPassResources` sample,
    /// so that its limit of one is used.
    static let usedAsset = "adobe-sample-used-asset"

    /// The sandbox's configuration for `sample`: ``ServiceProviderConfiguration/sandbox`` with the replay's TempPass of
    /// 3 minutes, and what the sample's feature needs: an MVPD without a logout endpoint (`mvpdWithoutLogout`), both
    /// TempPasses misconfigured (`invalidTempPassConfiguration`), a promotional TempPass of one resource
    /// (`promotionalTempPassResources`).
    static func configuration(for sample: AdobeSample) -> ServiceProviderConfiguration {
        var configuration = ServiceProviderConfiguration.sandbox
        for index in configuration.mvpds.indices where configuration.mvpds[index].id == "SandboxTempPass" {
            configuration.mvpds[index].tempPassDuration = tempPassSeconds
        }
        switch sample.feature {
        case "mvpdWithoutLogout":
            var mvpd = configuration.mvpds[0]
            mvpd.id = mvpdWithoutLogout
            mvpd.displayName = "Sandbox Without Logout"
            mvpd.hasLogoutEndpoint = false
            configuration.mvpds.append(mvpd)
            configuration.requestors[0].mvpds.append(mvpd.id)
        case "invalidTempPassConfiguration":
            for index in configuration.mvpds.indices where configuration.mvpds[index].isTempPass == true {
                configuration.mvpds[index].tempPassConfigurationInvalid = true
            }
        case "promotionalTempPassResources":
            for index in configuration.mvpds.indices where configuration.mvpds[index].promotionalTempPass == true {
                configuration.mvpds[index].tempPassResourceLimit = 1
            }
        default: break
        }
        return configuration
    }

    /// The degradation rule a `degraded` sample is replayed under: the one its name gives (`(AuthZNone)`), else AuthNAll,
    /// the rule Adobe's degraded-access flows give sessions, profiles and logouts.
    static func degradationMode(_ name: String) -> DegradedAccess.Mode {
        DegradedAccess.Mode.allCases.first { name.contains("(\($0.rawValue))") } ?? .authenticateAll
    }

    /// The state a sample's feature needs once its `given` steps are made (a `degraded` sample's steps are made before
    /// the MVPD goes down, as Adobe's flows have them): degradation on for `${degradedMvpd}`; a promotional TempPass's
    /// one resource used; and for a single-sign-on token placeholder, a login of another device with the same identity
    /// and a fresh token of that identity for this device.
    func prepareFeature(values: inout [String: String]) async throws {
        if sample.feature == "degraded" {
            sandbox.provider.degradedAccess.begin(mvpd: sample.mapped("${degradedMvpd}"), mode: Self.degradationMode(sample.name))
        }
        if sample.feature == "promotionalTempPassResources" {
            var headers = device.headers
            headers["AP-TempPass-Identity"] = sample.request.headers?["AP-TempPass-Identity"]
            let used = try await device.raw(
                "POST", "\(ProviderHarness.requestor)/decisions/authorize/SandboxPromoPass", json: #"{"resources":["\#(Self.usedAsset)"]}"#,
                headers: headers)
            guard (used.json["decisions"] as? [[String: Any]])?.first?["authorized"] as? Bool == true else {
                throw StepFailure("the promotional TempPass's one resource could not be used", used)
            }
        }
        let headers = Set((sample.request.headers ?? [:]).values)
        for (placeholder, method) in [("platformIdentityToken", "platform"), ("serviceToken", "service")]
        where headers.contains("{\(placeholder)}") {
            let (header, key, _) = V2SingleSignOnTests.method(method, sandbox.keys)
            let peer = V2Device(sandbox, name: "adobe-sample-sso-peer")
            let peerToken = try V2SingleSignOnTests.token(sandbox, key: key, subject: "adobe-sample-viewer")
            try await V2SingleSignOnTests.login(peer, headers: V2SingleSignOnTests.headers(peer, header, peerToken))
            values[placeholder] = try V2SingleSignOnTests.token(sandbox, key: key, subject: "adobe-sample-viewer")
        }
    }
}
