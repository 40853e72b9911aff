import ArgumentParser
import Foundation
import Hummingbird
import TVEAccessEnabler
import TVECrypto
import TVEJSON
import TVEMetadata
import TVEServer
import TVETokens

/// `tvekit demo`: the whole cookbook, as an app would walk it, against the local service provider.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk the AccessEnabler cookbook against a local service provider and print the transcript.",
        discussion: """
            Starts the local service provider (the sandbox, fresh keys) on an ephemeral loopback port, then plays an app:
            setRequestor, authentication through the MVPD's login form, preauthorization, authorization, media-token
            verification, user-metadata decryption, the platform single-sign-on path with a simulated TV-provider
            account, the tvOS second screen, and logout. Each callback is printed with its time. Exit 0 when every step
            gave the callbacks the cookbook promises, 1 otherwise.
            """
    )

    @Flag(name: .long, help: "Print the transcript as JSON (one object) instead of text.")
    var json = false

    func run() async throws {
        let transcript = Transcript(json: json)
        let configuration = ServiceProviderConfiguration.sandbox
        transcript.note("generating the sandbox keys")
        let keys = try SandboxKeys()
        let provider = try ServiceProvider(configuration: configuration, keys: keys.serviceProviderKeys)
        let router = Router(context: ServerRequestContext.self)
        provider.addRoutes(to: router)
        let statement = try SoftwareStatement.issue(
            subject: UUID().uuidString.lowercased(), issuedAt: Int64(Date().timeIntervalSince1970),
            signingKey: keys.softwareStatementKey
        ).compact
        let failures = try await LocalServer.run(router) { base in
            transcript.note("local service provider on \(base.absoluteString)")
            let demo = Demo(base: base, keys: keys, statement: statement, transcript: transcript)
            var failures: [String] = []
            for (name, step) in [
                ("iOS, without single sign-on", demo.classic), ("iOS, with platform single sign-on", demo.platformSSO),
                ("tvOS, second screen", demo.secondScreen),
            ] {
                transcript.section(name)
                do {
                    try await step()
                } catch {
                    failures.append("\(name): \(error)")
                    transcript.note("FAILED: \(error)")
                }
            }
            return failures
        }
        transcript.finish(failures: failures)
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

/// The printed (or JSON) transcript, with milliseconds since the start.
final class Transcript: Sendable {
    let json: Bool
    let start = ContinuousClock.now
    private let lines = Locked<[(ms: Int, kind: String, text: String)]>([])

    init(json: Bool) { self.json = json }

    private func add(_ kind: String, _ text: String) {
        let elapsed = ContinuousClock.now - start
        let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        lines.withLock { $0.append((ms, kind, text)) }
        if !json {
            let prefix =
                kind == "section" ? "\n== " : String(format: "%6d ms  %@ ", ms, kind == "call" ? "→" : kind == "callback" ? "←" : "·")
            print(prefix + text)
        }
    }

    func section(_ text: String) { add("section", text) }
    func call(_ text: String) { add("call", text) }
    func callback(_ text: String) { add("callback", text) }
    func note(_ text: String) { add("note", text) }

    func finish(failures: [String]) {
        if json {
            let entries: [JSONValue] = lines.withLock { $0 }.map {
                .object(["ms": .integer(Int64($0.ms)), "kind": .string($0.kind), "text": .string($0.text)])
            }
            print(
                JSONValue.object([
                    "transcript": .array(entries), "ok": .bool(failures.isEmpty),
                    "failures": .array(failures.map { .string($0) }),
                ]).jsonText)
        } else {
            print(failures.isEmpty ? "\nevery step behaved as the cookbook says" : "\n\(failures.count) step(s) failed")
        }
    }
}

/// The app's delegate: prints each callback and lets the demo wait for the next one.
final class DemoDelegate: EntitlementDelegate, EntitlementStatus, Sendable {
    enum Callback: Sendable {
        case requestorComplete(Int)
        case authenticationStatus(Int, String)
        case providers([MVPD])
        case navigate(URL)
        case token(String, String)
        case failed(String, String, String)
        case preauthorized([String])
        case selected(MVPD?)
        case metadata(JSONValue?, Bool)
        case present, dismiss
        case status(AdvancedStatus)
    }

    let transcript: Transcript

    /// The callbacks not consumed yet, and the one `next` waiting for more (the demo waits for one thing at a time).
    private struct Inbox {
        var callbacks: [Callback] = []
        var waiter: CheckedContinuation<Void, Never>?
        var timedOut = false
    }
    private let inbox = Locked(Inbox())

    init(transcript: Transcript) { self.transcript = transcript }

    private func add(_ callback: Callback, _ text: String) {
        transcript.callback(text)
        let waiter = inbox.withLock { inbox -> CheckedContinuation<Void, Never>? in
            inbox.callbacks.append(callback)
            defer { inbox.waiter = nil }
            return inbox.waiter
        }
        waiter?.resume()
    }

    /// Waits (up to 15 s) for the next callback that `match` accepts, consuming those before it. Event-driven: it
    /// sleeps until a callback arrives (or the time is up), with no polling.
    func next<T>(_ what: String, _ match: @escaping (Callback) -> T?) async throws -> T {
        inbox.withLock { $0.timedOut = false }
        let timer = Task { [inbox] in
            try? await Task.sleep(for: .seconds(15))
            guard !Task.isCancelled else { return }
            let waiter = inbox.withLock { inbox -> CheckedContinuation<Void, Never>? in
                inbox.timedOut = true
                defer { inbox.waiter = nil }
                return inbox.waiter
            }
            waiter?.resume()
        }
        defer { timer.cancel() }
        var scanned = 0
        while true {
            let found = inbox.withLock { inbox -> T? in
                for (index, callback) in inbox.callbacks.enumerated() {
                    if let value = match(callback) {
                        inbox.callbacks.removeFirst(index + 1)
                        return value
                    }
                }
                scanned = inbox.callbacks.count
                return nil
            }
            if let found { return found }
            // Sleep until a callback arrives after the scan (checked under the lock, so none is missed) or time is up.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wake = inbox.withLock { inbox -> Bool in
                    if inbox.callbacks.count > scanned || inbox.timedOut { return true }
                    inbox.waiter = continuation
                    return false
                }
                if wake { continuation.resume() }
            }
            if inbox.withLock({ $0.timedOut }) { throw CLIError(message: "no \(what) callback arrived") }
        }
    }

    func setRequestorComplete(_ status: Int) { add(.requestorComplete(status), "setRequestorComplete(\(status))") }
    func setAuthenticationStatus(_ status: Int, errorCode: String) {
        add(.authenticationStatus(status, errorCode), "setAuthenticationStatus(\(status), \"\(errorCode)\")")
    }
    func displayProviderDialog(_ mvpds: [MVPD]) {
        add(.providers(mvpds), "displayProviderDialog([\(mvpds.map(\.displayName).joined(separator: ", "))])")
    }
    func navigateToUrl(_ url: URL) { add(.navigate(url), "navigateToUrl(\(url.path))") }
    func setToken(_ token: String, forResource resource: String) {
        add(.token(token, resource), "setToken(<\(token.utf8.count)-byte media token>, \(Demo.shown(resource)))")
    }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String) {
        add(.failed(resource, errorCode, errorDescription), "tokenRequestFailed(\(resource), \(errorCode), \"\(errorDescription)\")")
    }
    func preauthorizedResources(_ resources: [String]) { add(.preauthorized(resources), "preauthorizedResources(\(resources))") }
    func selectedProvider(_ mvpd: MVPD?) { add(.selected(mvpd), "selectedProvider(\(mvpd?.displayName ?? "nil"))") }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: MetadataOpcode, andArguments arguments: MetadataRequest) {
        add(.metadata(metadata, encrypted), "setMetadataStatus(\(metadata?.jsonText ?? "nil"), encrypted: \(encrypted), \(arguments))")
    }
    func sendTrackingData(_ data: [String], forEventType event: TrackingEventType) {
        transcript.note("sendTrackingData(\(event.rawValue), \(data))")
    }
    func presentTvProviderDialog(_ dialog: TVProviderDialog) { add(.present, "presentTvProviderDialog(\(dialog.payload))") }
    func dismissTvProviderDialog(_ dialog: TVProviderDialog) { add(.dismiss, "dismissTvProviderDialog") }
    func status(_ status: AdvancedStatus) { add(.status(status), "status(\(status.id): \(status.message))") }
}

/// The three walks.
struct Demo: Sendable {
    let base: URL
    let keys: SandboxKeys
    let statement: String
    let transcript: Transcript
    static let requestor = "tvekit-sandbox"

    func make(platform: EntitlementPlatform = .iOS, account: (any TVProviderAccountProvider)? = nil) -> (AccessEnabler, DemoDelegate) {
        let core = AsyncAccessEnabler(
            softwareStatement: statement,
            configuration: .init(
                transport: URLSessionTransport(timeout: 10), platform: platform,
                metadataDecryptor: MetadataDecryptor(privateKey: keys.metadataKey),
                pollingInterval: .milliseconds(200), pollingTimeout: .seconds(30), tvProviderAccount: account))
        let enabler = AccessEnabler(core: core)
        let delegate = DemoDelegate(transcript: transcript)
        enabler.delegate = delegate
        enabler.statusDelegate = delegate
        return (enabler, delegate)
    }

    func expect(_ condition: Bool, _ what: String) throws {
        guard condition else { throw CLIError(message: what) }
    }

    /// A resource as the transcript shows it: an MRSS document by its size.
    static func shown(_ resource: String) -> String {
        resource.utf8.first == UInt8(ascii: "<") ? "<MRSS \(resource.utf8.count) bytes>" : resource
    }

    /// An MRSS resource for an episode of the `news` channel, as a programmer's app may ask for it.
    static let newsEpisode =
        #"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>news</title>"#
        + #"<item><title>Evening news</title><guid>news-2026-11-25</guid><media:rating scheme="urn:v-chip">tv-g</media:rating></item></channel></rss>"#

    /// checkAuthorization → setToken, and the token checked as a player's back end would (for `playing`, the
    /// resource it is about to play; the requested resource by default).
    func authorizeAndVerify(_ resource: String, playing: String? = nil, _ enabler: AccessEnabler, _ delegate: DemoDelegate) async throws {
        let shown = Self.shown(resource)
        transcript.call("checkAuthorization(\(shown))")
        enabler.checkAuthorization(resource)
        let token = try await delegate.next("setToken") { if case .token(let token, _) = $0 { token } else { nil } }
        let parsed = try ShortMediaToken(parsing: token)
        transcript.note(
            "the media token: <\(parsed.form.root.rawValue)>, issueTime \(parsed.issueTimeText), signatureInfo \(parsed.form.signatureInfoEnd.rawValue)"
        )
        let verifier = try MediaTokenVerifier(trustedKeys: [keys.mediaTokenKey.publicKey], requestorID: Self.requestor)
        let verification = verifier.verify(token, resourceID: playing ?? resource)
        transcript.note("MediaTokenVerifier(resourceID: \(playing ?? shown)): \(verification.result.rawValue)")
        try expect(verification.isValid, "the media token did not verify: \(verification)")
    }

    /// The iOS logout: the web view follows the logout page back to the app, which hands the redirect over.
    func followLogoutPage(_ enabler: AccessEnabler, _ delegate: DemoDelegate) async throws {
        let page = try await delegate.next("navigateToUrl") { if case .navigate(let url) = $0 { url } else { nil } }
        guard case .redirect(let after) = try await SandboxBrowser().navigate(to: page) else {
            throw CLIError(message: "the logout page did not return")
        }
        transcript.call("handleExternalURL(\(after.absoluteString))")
        enabler.handleExternalURL(after)
        try expect(
            try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } } == 0,
            "logout did not end")
    }

    /// Startup, authentication in the MVPD's login form, preauthorization, authorization, verification, metadata, logout.
    func classic() async throws {
        let (enabler, delegate) = make()
        transcript.call("setRequestor(\(Self.requestor), [\(base.absoluteString)])")
        enabler.setRequestor(Self.requestor, serviceProviders: [base])
        try expect(
            try await delegate.next("setRequestorComplete") { if case .requestorComplete(let s) = $0 { s } else { nil } } == 1,
            "setRequestor failed")
        transcript.call("checkAuthentication()")
        enabler.checkAuthentication()
        _ = try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } }
        transcript.call("getAuthentication()")
        enabler.getAuthentication()
        let mvpds = try await delegate.next("displayProviderDialog") { if case .providers(let list) = $0 { list } else { nil } }
        try expect(mvpds.contains { $0.id == "SandboxCable" }, "SandboxCable is not offered")
        transcript.call("setSelectedProvider(SandboxCable)")
        enabler.setSelectedProvider("SandboxCable")
        let url = try await delegate.next("navigateToUrl") { if case .navigate(let url) = $0 { url } else { nil } }
        transcript.note("the web view signs in as viewer on the MVPD's page")
        guard case .redirect(let back) = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
        else {
            throw CLIError(message: "the login did not return to the app")
        }
        transcript.call("handleExternalURL(\(back.absoluteString))")
        enabler.handleExternalURL(back)
        try expect(
            try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } } == 1,
            "the authentication failed")
        transcript.call("checkPreauthorizedResources([news, mature-show, premium-sports])")
        enabler.checkPreauthorizedResources(["news", "mature-show", "premium-sports"])
        let allowed = try await delegate.next("preauthorizedResources") { if case .preauthorized(let list) = $0 { list } else { nil } }
        try expect(allowed == ["news"], "preauthorization gave \(allowed)")
        try await authorizeAndVerify("news", enabler, delegate)
        // An MRSS resource: the token carries the document in CDATA, and a player that plays the channel accepts it.
        try await authorizeAndVerify(Self.newsEpisode, playing: "news", enabler, delegate)
        transcript.call("checkAuthorization(mature-show)")
        enabler.checkAuthorization("mature-show")
        _ = try await delegate.next("tokenRequestFailed") { if case .failed(_, let code, _) = $0 { code } else { nil } }
        for key in ["zip", "householdID", "maxRating"] {
            transcript.call("getMetadata(userMetadata: \(key))")
            enabler.getMetadata(.userMetadata(key: key))
            let value = try await delegate.next("setMetadataStatus") {
                if case .metadata(let value, _) = $0 { value as JSONValue?? } else { nil }
            }
            try expect(value != nil, "no \(key)")
        }
        transcript.call("logout()")
        enabler.logout()
        try await followLogoutPage(enabler, delegate)
    }

    /// The Apple SSO cookbook with a simulated TV-provider account.
    func platformSSO() async throws {
        let account = SandboxTVProviderAccount(
            serviceProvider: base, mvpdForProvider: ["sandbox-sso": "SandboxSSO"], access: .granted,
            picker: { _ in
                .select(
                    .init(
                        providerIdentifier: "sandbox-sso", username: "sso-viewer",
                        password: "sandbox-password"))
            })
        let (enabler, delegate) = make(account: account)
        transcript.note("the TV-provider account: access granted, not signed in yet")
        transcript.call("setRequestor(\(Self.requestor))")
        enabler.setRequestor(Self.requestor, serviceProviders: [base])
        _ = try await delegate.next("setRequestorComplete") { if case .requestorComplete(let s) = $0 { s } else { nil } }
        transcript.call("getAuthentication()")
        enabler.getAuthentication()
        _ = try await delegate.next("presentTvProviderDialog") { if case .present = $0 { true } else { nil } }
        transcript.note("the user picks Sandbox SSO in the platform picker")
        _ = try await delegate.next("dismissTvProviderDialog") { if case .dismiss = $0 { true } else { nil } }
        try expect(
            try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } } == 1,
            "the token exchange failed")
        transcript.call("getMetadata(userMetadata: tokenSource)")
        enabler.getMetadata(.userMetadata(key: "tokenSource"))
        let source = try await delegate.next("setMetadataStatus") {
            if case .metadata(let value, _) = $0 { value as JSONValue?? } else { nil }
        }
        try expect(source == .string("Apple"), "tokenSource is not Apple")
        transcript.call("logout()")
        enabler.logout()
        let status = try await delegate.next("status") { if case .status(let status) = $0 { status } else { nil } }
        try expect(status.id == "VSA203", "no VSA203 after an SSO logout")
        try await followLogoutPage(enabler, delegate)
    }

    /// tvOS: a registration code shown on the TV and used on a phone.
    func secondScreen() async throws {
        let (enabler, delegate) = make(platform: .tvOS)
        transcript.call("setRequestor(\(Self.requestor))")
        enabler.setRequestor(Self.requestor, serviceProviders: [base])
        _ = try await delegate.next("setRequestorComplete") { if case .requestorComplete(let s) = $0 { s } else { nil } }
        transcript.call("getAuthentication()")
        enabler.getAuthentication()
        _ = try await delegate.next("displayProviderDialog") { if case .providers(let list) = $0 { list } else { nil } }
        transcript.call("setSelectedProvider(SandboxCable)")
        enabler.setSelectedProvider("SandboxCable")
        let status = try await delegate.next("status") { if case .status(let status) = $0, status.id == "REGCODE" { status } else { nil } }
        var components = URLComponents(url: base.appendingPathComponent("api/v1/authenticate"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            .init(name: "requestor_id", value: Self.requestor), .init(name: "mso_id", value: "SandboxCable"),
            .init(name: "reg_code", value: status.message),
        ]
        guard let url = components?.url else { throw CLIError(message: "bad second-screen URL") }
        transcript.note("on a phone: \(url.path)?…reg_code=\(status.message), signing in as viewer")
        _ = try await SandboxBrowser().navigate(to: url, username: "viewer", password: "sandbox-password")
        try expect(
            try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } } == 1,
            "the TV did not see the second-screen login")
        transcript.call("getSelectedProvider()")
        enabler.getSelectedProvider()
        let selected = try await delegate.next("selectedProvider") { if case .selected(let mvpd) = $0 { mvpd as MVPD?? } else { nil } }
        try expect(selected?.id == "SandboxCable", "the selected provider is not SandboxCable")
        try await authorizeAndVerify("news", enabler, delegate)
        // tvOS has no logout page: the logout ends at once.
        transcript.call("logout()")
        enabler.logout()
        try expect(
            try await delegate.next("setAuthenticationStatus") { if case .authenticationStatus(let s, _) = $0 { s } else { nil } } == 0,
            "logout did not end")
    }
}
