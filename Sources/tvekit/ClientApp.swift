import ArgumentParser
import Foundation
import TVEAccessEnabler
import TVECrypto
import TVEMetadata
import TVESandbox
import TVETokens

/// The app `tvekit client` plays: an ``AccessEnabler`` on tvOS with a file token store, whose callbacks go to the
/// transcript. Each step makes the delegate calls and waits for the callbacks the seeds promise.
struct ClientApp {
    let options: ClientCommand.Options
    let enabler: AccessEnabler
    let delegate: RecordingDelegate
    let transcript: Transcript
    /// How long one callback may take: the request timeout, with room for a retry.
    let callbackWait: Duration

    /// A failed step: the transcript says why, and the command exits 1. In the package's one error shape
    /// (swift-certificates' `CertificateError`): one stable ``Code``, the ``message`` (its ``reason``), and the ``file``
    /// and ``line`` it was made on; equal on the code.
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The stable codes.
        struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            let rawValue: String
            init(rawValue: String) { self.rawValue = rawValue }
            var description: String { rawValue }
            /// A step did not give what the seeds promise (a callback, a decision, the stored state).
            static let stepFailed = Code(rawValue: "stepFailed")
        }

        /// The stable code; two failures are equal when their codes are.
        let code: Code
        /// What failed, with the service provider's code and message when it gave them; the transcript's last line.
        let message: String
        /// The file (`#fileID`) the failure was made in, for diagnosis.
        let file: String
        /// The line the failure was made on, for diagnosis.
        let line: UInt
        /// The ``message``, under the name every error of the package gives it.
        var reason: String { message }

        init(message: String, file: String = #fileID, line: UInt = #line) {
            (self.code, self.message, self.file, self.line) = (.stepFailed, message, file, line)
        }

        /// `Failure.code: message (file:line)`, for diagnosis; the transcript shows ``message``.
        var description: String { "ClientApp.Failure.\(code): \(message) (\(file):\(line))" }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }

    /// How a command makes its requestor current.
    enum RequestorStep {
        /// `setRequestor`: the service provider is asked (configuration, the stored profile refreshed).
        case set
        /// `restoreRequestor`: the token store alone, no request.
        case restore
    }

    /// Sets up the app, makes the requestor current, then runs `step`; prints the transcript and exits 1 when a step
    /// failed, the failure's reason (with the service provider's code and message) on the last line.
    static func run(_ options: ClientCommand.Options, requestor: RequestorStep = .set, _ step: (ClientApp) async throws -> Void)
        async throws
    {
        let transcript = Transcript(json: options.json)
        let app = try make(options, transcript: transcript)
        var failures: [String] = []
        do {
            switch requestor {
            case .set: try await app.setRequestor()
            case .restore: try await app.restoreRequestor()
            }
            try await step(app)
        } catch let failure as Failure {
            failures.append(failure.message)
        } catch let error as SandboxError {
            failures.append(error.reason)
        }
        transcript.finish(failures: failures, success: "done")
        if !failures.isEmpty { throw ExitCode(1) }
    }

    static func make(_ options: ClientCommand.Options, transcript: Transcript) throws -> ClientApp {
        let statement = String(decoding: try Input.read(options.softwareStatement, what: "software statement"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !statement.isEmpty, statement.utf8.count <= 64 * 1024 else {
            throw CLIError(.invalidInput, "the software statement file is empty or over 64 KiB")
        }
        let decryptor = try options.metadataKey.map { path in
            MetadataDecryptor(privateKey: try Input.privateKey(file: path, passphraseEnvironment: nil, p12: nil, passwordEnvironment: nil))
        }
        // REST API v2 sends the second screen's browser to the redirect URL once signed in: a web page (the SDK's
        // adobepass:// default is for an app's web view, which a phone's browser cannot open).
        let configuration = AsyncAccessEnabler.Configuration(
            transport: URLSessionTransport(timeout: TimeInterval(options.timeout)),
            tokenStore: FileTokenStore(directory: try stateDirectory(options.state)), platform: .tvOS,
            redirectURL: options.api == .v2 ? options.loginRedirectURL() : AsyncAccessEnabler.defaultRedirectURL,
            metadataDecryptor: decryptor, api: options.api)
        let core = AsyncAccessEnabler(softwareStatement: statement, configuration: configuration)
        let enabler = AccessEnabler(core: core)
        let delegate = RecordingDelegate(onEvent: { event in
            if case .tracking = event { return }
            transcript.add("callback", event.description)
        })
        enabler.delegate = delegate
        enabler.statusDelegate = delegate
        return ClientApp(
            options: options, enabler: enabler, delegate: delegate, transcript: transcript, callbackWait: .seconds(options.timeout * 3 + 5))
    }

    /// The state directory: created 0700; an existing one must not be open to other users (it holds the client secret).
    static func stateDirectory(_ path: String?) throws -> URL {
        let path = path ?? (NSHomeDirectory() as NSString).appendingPathComponent(".tvekit/client")
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError(.unwritableOutput, "cannot create the state directory '\(path)'")
            }
        }
        guard let mode = (try? manager.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
            throw CLIError(.unreadableInput, "cannot read the state directory '\(path)'")
        }
        guard mode & 0o077 == 0 else {
            throw CLIError(
                .invalidArgument, "the state directory '\(path)' is open to other users (mode \(String(mode, radix: 8))); chmod 700 it")
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    // MARK: Steps

    func call(_ text: String) { transcript.add("call", text) }
    func note(_ text: String) { transcript.add("note", text) }

    /// The next callback `match` accepts.
    func next<T: Sendable>(_ what: String, timeout: Duration? = nil, _ match: @escaping @Sendable (EntitlementEvent) -> T?) async throws
        -> T
    {
        try await delegate.next(what, timeout: timeout ?? callbackWait, match)
    }

    func setRequestor() async throws {
        let url = try options.serviceProvider()
        note("REST API \(options.api.rawValue), service provider \(url.absoluteString)")
        call("setRequestor(\(options.requestor), [\(url.absoluteString)])")
        enabler.setRequestor(options.requestor, serviceProviders: [url])
        let status = try await next("setRequestorComplete") { if case .requestorComplete(let status) = $0 { status } else { nil } }
        guard status == 1 else { throw failure("setRequestor failed") }
    }

    /// The stored state only: no request.
    func restoreRequestor() async throws {
        note("the stored profile in the state directory, no request (--refresh asks the service provider)")
        call("restoreRequestor(\(options.requestor))")
        do {
            try await enabler.core.restoreRequestor(options.requestor)
        } catch {
            throw Failure(message: "the stored state cannot be read: \(error.code.rawValue) \(error.message)")
        }
    }

    /// A failure whose reason is `what`, with the last advanced status the app heard (the service provider's code and
    /// message) when there was one since the step began.
    func failure(_ what: String) -> Failure {
        let reason = delegate.all.reversed().lazy.compactMap { event -> String? in
            if case .status(let id, let message) = event, id != "REGCODE", id != "DATA_NOT_SENT" { "\(id) \(message)" } else { nil }
        }.first
        return Failure(message: reason.map { "\(what): \($0)" } ?? what)
    }

    /// The authentication callback: its status and error code.
    static func authentication(_ event: EntitlementEvent) -> (Int, String)? {
        if case .authenticationStatus(let status, let code) = event { (status, code) } else { nil }
    }

    func login(mvpd: String?, data: [String: String]) async throws {
        call(data.isEmpty ? "getAuthentication()" : "getAuthentication(withData: \(data.keys.sorted()))")
        enabler.getAuthentication(withData: data)
        enum First: Sendable {
            case authenticated(Int, String)
            case pick([String])
        }
        let first = try await next("setAuthenticationStatus or displayProviderDialog") { event -> First? in
            if let (status, code) = Self.authentication(event) { return .authenticated(status, code) }
            if case .providerDialog(let ids) = event { return .pick(ids) }
            return nil
        }
        let offered: [String]
        switch first {
        case .authenticated(1, _):
            note("already signed in")
            return
        case .authenticated(_, let code): throw failure("getAuthentication failed: \(code)")
        case .pick(let ids): offered = ids
        }
        guard let chosen = mvpd ?? (offered.count == 1 ? offered.first : nil) else {
            throw Failure(message: "give --mvpd: one of \(offered.joined(separator: ", "))")
        }
        guard offered.contains(chosen) else { throw Failure(message: "\(chosen) is not offered: \(offered.joined(separator: ", "))") }
        call("setSelectedProvider(\(chosen))")
        enabler.setSelectedProvider(chosen)
        enum Step: Sendable {
            case authenticated(Int, String)
            case code(String)
        }
        let step = try await next("setAuthenticationStatus or the registration code") { event -> Step? in
            if let (status, code) = Self.authentication(event) { return .authenticated(status, code) }
            if case .status("REGCODE", let code) = event { return .code(code) }
            return nil
        }
        switch step {
        case .authenticated(1, _):
            note("signed in at once with \(chosen) (no login page: a TempPass, or a profile the device held)")
            return
        case .authenticated(_, let code): throw failure("setSelectedProvider failed: \(code)")
        case .code(let code):
            let page = await enabler.core.loginPage()
            note("on another device, open \(page?.absoluteString ?? "the programmer's activation page") (code \(code))")
        }
        let started = ContinuousClock.now
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                if !Task.isCancelled {
                    Output.progress("waiting for the second screen (\((ContinuousClock.now - started).components.seconds) s)")
                }
            }
        }
        defer { progress.cancel() }
        let (status, code) = try await next("setAuthenticationStatus", timeout: .seconds(7200)) { Self.authentication($0) }
        guard status == 1 else { throw failure("the login did not complete: \(code)") }
        note("signed in with \(chosen)")
    }

    func status() async throws {
        call("checkAuthentication()")
        enabler.checkAuthentication()
        let (status, _) = try await next("setAuthenticationStatus") { Self.authentication($0) }
        guard status == 1 else { throw Failure(message: "not signed in") }
        call("getSelectedProvider()")
        enabler.getSelectedProvider()
        _ = try await next("selectedProvider") { if case .selected(let id) = $0 { id ?? "" } else { nil } }
        call("getMetadata(authenticationTTL)")
        enabler.getMetadata(.authenticationTTL)
        let ttl = try await next("setMetadataStatus") { if case .metadata(let value, _, _) = $0 { value?.stringValue ?? "" } else { nil } }
        if let milliseconds = Int64(ttl) {
            note("the login ends at \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)))")
        }
    }

    /// The async API's decisions, so that each denied resource's reason shows (the seeds' callback lists the authorized
    /// resources only): one request, as `checkPreauthorizedResources` makes.
    func preauthorize(_ resources: [String]) async throws {
        call("preauthorizationDecisions(\(resources))  (checkPreauthorizedResources with the reasons)")
        let decisions: [PreauthorizationDecision]
        do {
            decisions = try await enabler.core.preauthorizationDecisions(resources)
        } catch {
            throw Failure(message: "checkPreauthorizedResources failed: \(error.advancedStatus ?? error.code.rawValue) \(error.message)")
        }
        for decision in decisions {
            let shown = EntitlementEvent.shown(decision.resource)
            note(decision.authorized ? "\(shown): authorized" : "\(shown): not authorized" + (decision.message.map { ": " + $0 } ?? ""))
        }
        note("the app hears preauthorizedResources(\(decisions.filter(\.authorized).map(\.resource)))")
    }

    func authorize(_ resource: String, trustedKeys: [RSAPublicKey]?) async throws {
        call("checkAuthorization(\(EntitlementEvent.shown(resource)))")
        enabler.checkAuthorization(resource)
        enum Answer: Sendable {
            case token(String)
            case failed(String, String)
        }
        let answer = try await next("setToken or tokenRequestFailed") { event -> Answer? in
            if case .token(let token, _) = event { return .token(token) }
            if case .failed(_, let code, let text) = event { return .failed(code, text) }
            return nil
        }
        guard case .token(let token) = answer else {
            if case .failed(let code, let text) = answer { throw Failure(message: "not authorized: \(code) \(text)") }
            return
        }
        note("media token: \(token)")
        guard let trustedKeys else { return }
        let verifier = try MediaTokenVerifier(trustedKeys: trustedKeys, requestorID: options.requestor)
        let outcome = verifier.verify(token, resourceID: resource)
        note("MediaTokenVerifier(resourceID: \(EntitlementEvent.shown(resource))): \(outcome.result.rawValue)")
        if !outcome.isValid { throw Failure(message: "the media token does not verify: \(outcome.reason)") }
    }

    func metadata(_ key: String?) async throws {
        let requests: [MetadataRequest] = key.map { [.userMetadata(key: $0)] } ?? [.authenticationTTL, .deviceID]
        for request in requests {
            call("getMetadata(\(request))")
            enabler.getMetadata(request)
            let encrypted = try await next("setMetadataStatus") { if case .metadata(_, let encrypted, _) = $0 { encrypted } else { nil } }
            if encrypted { note("the value is encrypted: give --metadata-key to decrypt it") }
        }
    }

    func logout() async throws {
        call("logout()")
        enabler.logout()
        let (status, _) = try await next("setAuthenticationStatus") { Self.authentication($0) }
        if status != 0 { throw failure("logout did not end") }
    }
}
