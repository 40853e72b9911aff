import Foundation
import TVECrypto
import TVESandbox
import TVETestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `tvekit client` against `tvekit serve`: an app's session in a terminal, over REST API v2 and v1.
@Suite("tvekit client")
struct ClientCommandTests {
    /// A private directory for the keys and the client's state.
    static func privateDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }

    /// `tvekit client ARGUMENTS login --mvpd MVPD` run beside the test, as a TV waits for its second screen: reads the
    /// page the login prints, lets `phone` open it, then waits for the login to end. Its exit status, its output, and
    /// where the phone's browser ended.
    static func secondScreenLogin(
        _ arguments: [String], mvpd: String, phone: (URL) async throws -> SandboxBrowser.Outcome
    ) async throws -> (status: Int32, output: String, ended: SandboxBrowser.Outcome) {
        let binary = try #require(CLI.binary)
        let login = try Spawning.launch(binary.path, arguments: arguments + ["login", "--mvpd", mvpd], standardOutput: .piped)
        let collector = ServeCommandTests.Collector()
        collector.collect(from: try #require(login.standardOutput))
        var page: URL?
        for _ in 0..<100 where page == nil {
            try await Task.sleep(for: .milliseconds(100))
            page = collector.text.range(of: #"open (http\S+) "#, options: .regularExpression)
                .flatMap { URL(string: String(collector.text[$0].dropFirst(5).dropLast())) }
        }
        let ended = try await phone(try #require(page, "\(collector.text)"))
        for _ in 0..<150 where login.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        return (login.terminationStatus, collector.text, ended)
    }

    /// The transcript texts of a `--json` run.
    static func texts(_ outcome: CLI.Outcome) -> [String] {
        let report = (try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8))) as? [String: Any]
        return (report?["transcript"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    @Test(
        "login with a second screen (the code and the page printed, the phone signs in), status, preauthorize, authorize with --verify-cert, metadata, logout, a wrong requestor named on the last line; over v2 and v1",
        arguments: ["v2", "v1"])
    func session(api: String) async throws {
        let directory = try Self.privateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("keys")
        let (server, serverLog, url) = try await ServeCommandTests.start(["--keys-out", keys.path])
        defer { server.terminate() }
        let base = [
            "client", "--sp", url, "--requestor", "tvekit-sandbox", "--software-statement",
            keys.appendingPathComponent("software-statement.jwt").path, "--state", directory.appendingPathComponent("state").path,
            "--api", api, "--json",
        ]
        /// The requests the server has logged whose line contains `text`, once the log has caught up (it is written after
        /// each answer).
        func logged(_ text: String) async throws -> Int {
            try await Task.sleep(for: .milliseconds(500))
            return serverLog.text.components(separatedBy: "\n").filter { $0.contains(text) }.count
        }
        #expect(try await CLI.running(base + ["status"]).status == 1)

        let (status0, output, ended) = try await Self.secondScreenLogin(Array(base.dropLast()), mvpd: "SandboxCable") { phone in
            try await SandboxBrowser().navigate(to: phone, username: "viewer", password: "sandbox-password")
        }
        #expect(output.contains("status(REGCODE: "))
        if api == "v2" {
            // The phone's browser ends on a web page (the provider's done page), not on the app's adobepass:// URL.
            guard case .page(200, let text) = ended, text.contains("You are signed in") else { Issue.record("\(ended)"); return }
        }
        #expect(status0 == 0, "\(output)")
        #expect(output.contains("signed in with SandboxCable"))

        // status answers from the stored profile: no request at all; --refresh asks.
        let before = try await logged(" /api/")
        let status = try await CLI.running(base + ["status"])
        #expect(status.status == 0)
        #expect(Self.texts(status).contains("selectedProvider(SandboxCable)"))
        #expect(try await CLI.running(base + ["status"]).status == 0)
        #expect(try await logged(" /api/") == before)
        #expect(try await CLI.running(base + ["status", "--refresh"]).status == 0)
        #expect(try await logged(" /api/") > before)
        let preauthorized = Self.texts(try await CLI.running(base + ["preauthorize", "news", "mature-show"]))
        #expect(preauthorized.contains(#"the app hears preauthorizedResources(["news"])"#))
        #expect(preauthorized.contains("mature-show: not authorized: Your parental controls block this program."))
        let authorized = try await CLI.running(
            base + ["authorize", "news", "--verify-cert", keys.appendingPathComponent("media-token-public.pem").path])
        #expect(authorized.status == 0)
        #expect(Self.texts(authorized).contains("MediaTokenVerifier(resourceID: news): VALID_TOKEN"))
        let denied = try await CLI.running(base + ["authorize", "mature-show"])
        #expect(denied.status == 1)
        #expect(Self.texts(denied).contains { $0.hasPrefix("tokenRequestFailed(mature-show, USER_NOT_AUTHORIZED_ERROR") })
        let metadata = try await CLI.running(
            base + ["--metadata-key", keys.appendingPathComponent("metadata-private.pem").path, "metadata", "zip"])
        #expect(Self.texts(metadata).contains(#"setMetadataStatus(["12345"], encrypted: false, userMeta)"#))
        #expect(try await CLI.running(base + ["logout"]).status == 0)
        #expect(try await CLI.running(base + ["status"]).status == 1)
        // The registration and the access token are kept in --state: one of each for the whole session.
        if api == "v2" {
            #expect(try await logged("POST /o/client/register") == 1)
            #expect(try await logged("POST /o/client/token") == 1)
            // A failure's reason ends the output: a requestor the provider does not know is named as such.
            let wrong = try await CLI.running(
                base.map { $0 == "tvekit-sandbox" ? "tvekit-nobody" : $0 }.filter { $0 != "--json" } + ["status", "--refresh"])
            #expect(wrong.status == 1)
            let last = wrong.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("1 step(s) failed: setRequestor failed: CFG400 configuration failed ("), "\(last)")
        }
    }

    @Test("a TempPass signs in at once; a state directory open to others is refused (exit 2); --sp must be a URL, production or staging")
    func tempPassAndRefusals() async throws {
        let directory = try Self.privateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("keys")
        let (server, _, url) = try await ServeCommandTests.start(["--keys-out", keys.path])
        defer { server.terminate() }
        let state = directory.appendingPathComponent("state")
        let base = [
            "client", "--sp", url, "--requestor", "tvekit-sandbox", "--software-statement",
            keys.appendingPathComponent("software-statement.jwt").path, "--state", state.path,
        ]
        let login = try await CLI.running(base + ["login", "--mvpd", "SandboxTempPass"])
        #expect(login.status == 0, "\(login.stdout)")
        #expect(login.stdout.contains("signed in at once with SandboxTempPass"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: state.path)
        let open = try await CLI.running(base + ["status"])
        #expect(open.status == 2)
        #expect(open.stderr.contains("open to other users"))
        let bad = try await CLI.running(["client", "--sp", "ftp://x", "--requestor", "r", "--software-statement", "/dev/null", "status"])
        #expect(bad.status == 2)
    }
}

/// `tvekit client` against a stand-in for Adobe's service on loopback, run as a user would: Adobe's sample names and
/// shapes, a 429 on the way, the media token verified.
@Suite("tvekit client against Adobe's stand-in")
struct ClientAgainstAdobeTests {
    @Test(
        "login with a second screen (ends on a web page), status with no request, preauthorize with a denied item's reason, authorize with the token verified, metadata, logout"
    )
    func sessionAgainstAdobe() async throws {
        let directory = try ClientCommandTests.privateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try RSAPrivateKey(pemRepresentation: try String(contentsOfFile: CLI.fixture("rsa2048.pkcs8.pem"), encoding: .utf8))
        let certificate = directory.appendingPathComponent("media-token-public.pem")
        try Data(key.publicKey.pemRepresentation.utf8).write(to: certificate)
        let statement = directory.appendingPathComponent("software-statement.jwt")
        try Data("eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl".utf8).write(to: statement)
        let double = AdobeServiceDouble(mediaTokenKey: key)
        double.deny(["Live"])
        double.throttle("/configuration", count: 1, retryAfter: "1")
        try await double.run { url in
            let base = [
                "client", "--sp", url.absoluteString, "--requestor", AdobeServiceDouble.requestor, "--software-statement", statement.path,
                "--state", directory.appendingPathComponent("state").path, "--json",
            ]
            let (loginStatus, output, ended) = try await ClientCommandTests.secondScreenLogin(
                Array(base.dropLast()), mvpd: AdobeServiceDouble.mvpd
            ) { phone in
                #expect(phone.path.hasPrefix("/api/v2/authenticate/REF30/"))
                return try await SandboxBrowser().navigate(to: phone)
            }
            guard case .page(200, let text) = ended, text.contains("You are signed in") else {
                Issue.record("the phone's browser did not end on a web page")
                return
            }
            #expect(loginStatus == 0, "\(output)")
            #expect(output.contains("signed in with Cablevision"))

            let before = double.requests.count
            let status = try await CLI.running(base + ["status"])
            #expect(status.status == 0)
            #expect(ClientCommandTests.texts(status).contains("selectedProvider(Cablevision)"))
            #expect(double.requests.count == before)

            let preauthorized = ClientCommandTests.texts(try await CLI.running(base + ["preauthorize", "REF30", "Live"]))
            #expect(preauthorized.contains(#"Live: not authorized: Your subscription package does not include the "Live" channel"#))
            let authorized = try await CLI.running(base + ["authorize", "REF30", "--verify-cert", certificate.path])
            #expect(authorized.status == 0, "\(authorized.stdout.suffix(600))")
            #expect(ClientCommandTests.texts(authorized).contains("MediaTokenVerifier(resourceID: REF30): VALID_TOKEN"))
            let metadata = try await CLI.running(base + ["metadata", "zip"])
            #expect(ClientCommandTests.texts(metadata).contains(#"setMetadataStatus(["10001"], encrypted: false, userMeta)"#))
            #expect(try await CLI.running(base + ["logout"]).status == 0)
            #expect(try await CLI.running(base + ["status"]).status == 1)
            // One registration and one token for the whole session; the throttled configuration was asked again.
            #expect(double.sent("/o/client/register").count == 1)
            #expect(double.sent("/o/client/token").count == 1)
            #expect(double.sent("/configuration").count >= 2)
        }
    }
}
