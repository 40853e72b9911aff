import Foundation
import Testing
import TVESandbox
import TVEAccessEnabler
import TVEJSON

/// The delegate API's mapping, fed outcomes directly: the exact callbacks, codes and tracking arrays, no network.
@Suite("DelegateTranslator: async results to delegate callbacks and tracking data")
struct DelegateTranslatorTests {
    static let iOS = DelegateTranslator(platform: .iOS)
    static let tvOS = DelegateTranslator(platform: .tvOS)
    static let provider = URL(string: "http://127.0.0.1:1") ?? URL(filePath: "/")
    static let mvpds = [
        MVPD(id: "SandboxCable", displayName: "Sandbox Cable", serviceProvider: provider),
        MVPD(id: "SandboxSSO", displayName: "Sandbox SSO", serviceProvider: provider),
    ]
    static let token = AuthenticationToken(requestor: "tvekit-sandbox", mvpd: "SandboxCable", userID: "viewer", expires: 1)
    /// MD5("viewer"), in hex.
    static let guid = "4b2a1529867b8d697685b1722ccd0149"
    static let iOSFields = ["mobile", "ios", "iOS"]
    static let tvOSFields = ["unknown", "ios", "tvOS"]

    @Test("setRequestor: the silent sign-in's statuses then 1; a failure's status (its code) then 0")
    func requestor() {
        #expect(Self.iOS.requestor(.configured(statuses: [])) == [.setRequestorComplete(1)])
        #expect(
            Self.iOS.requestor(.configured(statuses: [.permissionDenied, .permissionUndetermined]))
                == [.status(.permissionDenied), .status(.permissionUndetermined), .setRequestorComplete(1)])
        let throttled = AccessEnablerError(.throttled, "the service provider throttled GET /api/v1/config/tvekit-sandbox", httpStatus: 429)
        #expect(
            Self.iOS.requestor(.failed(throttled))
                == [.status(AdvancedStatus(id: "CFG429", level: .error, message: throttled.message)), .setRequestorComplete(0)])
    }

    @Test("checkAuthentication: a cached authenticationDetection (7 values, MD5 user GUID) then 1, or 0 with USER_NOT_AUTHENTICATED_ERROR")
    func authenticationCheck() {
        #expect(
            Self.iOS.authenticationCheck(statuses: [], token: Self.token)
                == [
                    .sendTrackingData(["true", "SandboxCable", Self.guid, "true"] + Self.iOSFields, event: .authentication),
                    .setAuthenticationStatus(1, errorCode: ""),
                ])
        #expect(
            Self.tvOS.authenticationCheck(statuses: [.frameworkError("no framework")], token: nil)
                == [
                    .status(.frameworkError("no framework")),
                    .sendTrackingData(["false", "", "", "true"] + Self.tvOSFields, event: .authentication),
                    .setAuthenticationStatus(0, errorCode: "USER_NOT_AUTHENTICATED_ERROR"),
                ])
    }

    @Test("getAuthentication: stored, logged in, the classic dialog, the platform fallback, a login step")
    func authentication() throws {
        #expect(
            Self.iOS.authentication(.stored(Self.token))
                == [
                    .sendTrackingData(["true", "SandboxCable", Self.guid, "true"] + Self.iOSFields, event: .authentication),
                    .setAuthenticationStatus(1, errorCode: ""),
                ])
        #expect(
            Self.tvOS.authentication(.loggedIn(Self.token))
                == [
                    .sendTrackingData(["true", "SandboxCable", Self.guid, "false"] + Self.tvOSFields, event: .authentication),
                    .setAuthenticationStatus(1, errorCode: ""),
                ])
        #expect(
            Self.iOS.authentication(.selectProvider(Self.mvpds))
                == [
                    .sendTrackingData(["false", "", "", "true"] + Self.iOSFields, event: .authentication),
                    .displayProviderDialog(Self.mvpds),
                ])
        #expect(
            Self.iOS.authentication(.platformFallback(.otherProvider, Self.mvpds)) == [
                .status(.otherProvider), .displayProviderDialog(Self.mvpds),
            ])
        #expect(Self.iOS.authentication(.platformFallback(nil, Self.mvpds)) == [.displayProviderDialog(Self.mvpds)])
        let page = try #require(URL(string: "http://127.0.0.1:1/api/v1/authenticate?reg_code=ABC1234"))
        #expect(Self.iOS.authentication(.login(.navigate(page, useSVC: false))) == [.navigateToUrl(page, useSVC: false)])
        #expect(Self.iOS.authentication(.login(.navigate(page, useSVC: true))) == [.navigateToUrl(page, useSVC: true)])
        #expect(Self.tvOS.authentication(.login(.registrationCode("ABC1234"))) == [.status(.registrationCode("ABC1234"))])
    }

    @Test("a failed authentication: the seeds' three codes as they are; any other code as status first, then GENERIC_AUTHENTICATION_ERROR")
    func authenticationFailures() {
        let cancelled = AccessEnablerError(.providerNotSelected, "no provider was selected")
        #expect(Self.iOS.authentication(.failed(cancelled)) == [.setAuthenticationStatus(0, errorCode: "PROVIDER_NOT_SELECTED_ERROR")])
        let storage = AccessEnablerError(.storageError, "the token store cannot be written")
        #expect(
            Self.iOS.authentication(.failed(storage))
                == [
                    .status(AdvancedStatus(id: "LS011", level: .error, message: storage.message)),
                    .setAuthenticationStatus(0, errorCode: "GENERIC_AUTHENTICATION_ERROR"),
                ])
        let generic = AccessEnablerError(.genericAuthentication, "the service provider has no authentication for this device")
        #expect(
            Self.iOS.authentication(.loginFailed(generic))
                == [
                    .sendTrackingData(["false", "", "", "false"] + Self.iOSFields, event: .authentication),
                    .setAuthenticationStatus(0, errorCode: "GENERIC_AUTHENTICATION_ERROR"),
                ])
        let unavailable = AccessEnablerError(.providerNotAvailable, "the MVPD Nope is not offered to this requestor")
        #expect(
            Self.iOS.authentication(.loginFailed(unavailable))
                == [
                    .sendTrackingData(["false", "", "", "false"] + Self.iOSFields, event: .authentication),
                    .status(AdvancedStatus(id: "PROVIDER_NOT_AVAILABLE_ERROR", level: .error, message: unavailable.message)),
                    .setAuthenticationStatus(0, errorCode: "GENERIC_AUTHENTICATION_ERROR"),
                ])
    }

    @Test("setSelectedProvider: mvpdSelection (4 values) for an MVPD, nothing for a cancel; the logout page's redirect gives 0")
    func providerSelectionAndLogoutPage() {
        #expect(
            Self.iOS.providerSelected("SandboxCable") == [.sendTrackingData(["SandboxCable"] + Self.iOSFields, event: .getSelectedProvider)]
        )
        #expect(
            Self.tvOS.providerSelected("SandboxCable") == [
                .sendTrackingData(["SandboxCable"] + Self.tvOSFields, event: .getSelectedProvider)
            ])
        #expect(Self.iOS.providerSelected(nil) == [])
        #expect(Self.iOS.logoutPageClosed() == [.setAuthenticationStatus(0, errorCode: "")])
    }

    @Test("authorization: authorizationDetection (9 values) then setToken, or tokenRequestFailed with the seeds' code and the MVPD's words")
    func authorization() {
        #expect(
            Self.iOS.authorization("news", .notAuthenticated)
                == [
                    .sendTrackingData(
                        ["false", "", "", "false", "USER_NOT_AUTHENTICATED_ERROR", "the user is not authenticated"] + Self.iOSFields,
                        event: .authorization),
                    .tokenRequestFailed("news", errorCode: "USER_NOT_AUTHENTICATED_ERROR", errorDescription: ""),
                ])
        #expect(
            Self.iOS.authorization("news", .authorized("c2hvcnQ=", authentication: Self.token, cached: true))
                == [
                    .sendTrackingData(["true", "SandboxCable", Self.guid, "true", "", ""] + Self.iOSFields, event: .authorization),
                    .setToken("c2hvcnQ=", resource: "news"),
                ])
        let denied = AccessEnablerError(.userNotAuthorized, "Your parental controls block this program.", httpStatus: 403)
        #expect(
            Self.iOS.authorization("mature-show", .failed(denied, authentication: Self.token, cached: false))
                == [
                    .sendTrackingData(
                        ["false", "SandboxCable", Self.guid, "false", "USER_NOT_AUTHORIZED_ERROR", denied.message] + Self.iOSFields,
                        event: .authorization),
                    .tokenRequestFailed("mature-show", errorCode: "USER_NOT_AUTHORIZED_ERROR", errorDescription: denied.message),
                ])
        let gone = AccessEnablerError(.userNotAuthenticated, "the device is not authenticated", httpStatus: 412)
        #expect(
            Self.iOS.authorization("news", .failed(gone, authentication: Self.token, cached: true)).last
                == .tokenRequestFailed("news", errorCode: "USER_NOT_AUTHENTICATED_ERROR", errorDescription: ""))
        let failed = AccessEnablerError(.genericAuthorization, "authorize failed (HTTP 500)", httpStatus: 500)
        #expect(
            Self.tvOS.authorization("news", .failed(failed, authentication: Self.token, cached: false))
                == [
                    .sendTrackingData(
                        ["false", "SandboxCable", Self.guid, "false", "GENERIC_AUTHORIZATION_ERROR", failed.message] + Self.tvOSFields,
                        event: .authorization),
                    .tokenRequestFailed("news", errorCode: "USER_NOT_AUTHORIZED_ERROR", errorDescription: failed.message),
                ])
        #expect(Self.iOS.preauthorized(["news"]) == [.preauthorizedResources(["news"])])
    }

    @Test("logout: VSA203 after SSO, a warning when the provider was not told, then the page (iOS) or status 0; a store failure too")
    func logout() throws {
        let page = try #require(URL(string: "http://127.0.0.1:1/api/v1/logout"))
        let serverError = AccessEnablerError(.internalError, "logout failed (HTTP 500: Internal Error)", httpStatus: 500)
        #expect(
            Self.iOS.logout(.success(.init(page: page, platformSSO: true, serverError: serverError)), useSVC: false)
                == [
                    .status(.signOutInSettings),
                    .status(AdvancedStatus(id: "INTERNAL_ERROR", level: .warning, message: "logged out here; " + serverError.message)),
                    .navigateToUrl(page, useSVC: false),
                ])
        #expect(
            Self.iOS.logout(.success(.init(page: page, platformSSO: false, serverError: nil)), useSVC: true) == [
                .navigateToUrl(page, useSVC: true)
            ])
        #expect(
            Self.tvOS.logout(.success(.init(page: nil, platformSSO: true, serverError: nil)), useSVC: false)
                == [.status(.signOutInSettings(on: .tvOS)), .setAuthenticationStatus(0, errorCode: "")])
        // vsa203NamesTheTVOSSettingsPath: the message names where a tvOS user signs out.
        #expect(AdvancedStatus.signOutInSettings(on: .tvOS).message.contains("Settings > Users and Accounts > TV Provider"))
        #expect(AdvancedStatus.signOutInSettings.message.contains("(Settings > TV Provider)"))
        let storage = AccessEnablerError(.storageError, "cannot write the token file")
        #expect(
            Self.iOS.logout(.failure(storage), useSVC: false)
                == [
                    .status(AdvancedStatus(id: "LS011", level: .error, message: storage.message)),
                    .setAuthenticationStatus(0, errorCode: ""),
                ])
    }

    @Test("getMetadata echoes the request with its opcode; no answer is nil and not encrypted; getSelectedProvider")
    func metadataAndProvider() {
        let zip = MetadataRequest.userMetadata(key: "zip")
        #expect(
            Self.iOS.metadata(zip, answer: MetadataAnswer(value: .string("c2VjcmV0"), encrypted: true))
                == [.setMetadataStatus(.string("c2VjcmV0"), encrypted: true, key: .userMeta, arguments: zip)])
        let requests: [(MetadataRequest, MetadataOpcode)] = [
            (.authenticationTTL, .authentication), (.authorizationTTL(resource: "news"), .authorization),
            (.deviceID, .deviceID), (zip, .userMeta),
        ]
        for (request, opcode) in requests {
            #expect(Self.iOS.metadata(request, answer: nil) == [.setMetadataStatus(nil, encrypted: false, key: opcode, arguments: request)])
        }
        #expect(Self.iOS.selectedProvider(Self.mvpds[0]) == [.selectedProvider(Self.mvpds[0])])
        #expect(Self.iOS.selectedProvider(nil) == [.selectedProvider(nil)])
        #expect(DelegateTranslator.hashedGUID("viewer") == Self.guid)
    }

    @Test("each callback reaches its delegate method (navigateToUrl without useSVC unless asked), status its receiver; none when gone")
    func delivery() throws {
        let recorder = Recorder()
        let page = try #require(URL(string: "http://127.0.0.1:1/login"))
        let callbacks: [DelegateCallback] = [
            .setRequestorComplete(1), .setAuthenticationStatus(0, errorCode: "USER_NOT_AUTHENTICATED_ERROR"),
            .displayProviderDialog(Self.mvpds),
            .navigateToUrl(page, useSVC: false), .navigateToUrl(page, useSVC: true), .setToken("t", resource: "news"),
            .tokenRequestFailed("news", errorCode: "USER_NOT_AUTHORIZED_ERROR", errorDescription: "no"), .preauthorizedResources(["news"]),
            .selectedProvider(nil), .setMetadataStatus(nil, encrypted: false, key: .deviceID, arguments: .deviceID),
            .sendTrackingData(["a"], event: .authorization), .presentTvProviderDialog(TVProviderDialog(payload: "p")),
            .dismissTvProviderDialog(TVProviderDialog(payload: "p")), .status(.otherProvider),
        ]
        for callback in callbacks { callback.send(to: recorder, status: recorder) }
        #expect(
            recorder.all == [
                .requestorComplete(1), .authenticationStatus(0, "USER_NOT_AUTHENTICATED_ERROR"),
                .providerDialog(["SandboxCable", "SandboxSSO"]),
                .navigate(page, useSVC: false), .navigate(page, useSVC: true), .token("t", resource: "news"),
                .failed("news", code: "USER_NOT_AUTHORIZED_ERROR", description: "no"), .preauthorized(["news"]), .selected(nil),
                .metadata(nil, encrypted: false, key: .deviceID), .tracking(.authorization, ["a"]), .present, .dismiss,
                .status("N003", AdvancedStatus.otherProvider.message),
            ])
        recorder.reset()
        DelegateCallback.status(.otherProvider).send(to: recorder, status: nil)
        DelegateCallback.setRequestorComplete(1).send(to: nil, status: recorder)
        #expect(recorder.all.isEmpty)
    }
}
