import ArgumentParser
import Foundation
import TVEAccessEnabler
import TVECrypto
import TVEMetadata
import TVESandbox
import TVEServiceProvider
import TVETokens

/// `tvekit client`: the flow layer as a command, a tvOS-like app in a terminal that checks an integration against the
/// local service provider or Adobe's. Each subcommand makes the AccessEnabler calls an app would and prints the
/// callbacks the app gets, as `tvekit demo` does.
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Act as an AccessEnabler app (a TV with a second screen) against a service provider and print its callbacks.",
        discussion: """
            Logs in with a second screen, then checks authentication, preauthorizes, authorizes (printing the media \
            token), reads metadata and logs out, over REST API v2 (the default) or v1. The client registration, access \
            token and profile persist in --state, a private directory (0700; ~/.tvekit/client by default), as an app's \
            token store keeps them. --sp takes a URL, or production (https://sp.auth.adobe.com) or staging \
            (https://sp.auth-staging.adobe.com). Each request may take --timeout seconds (15 by default).

            These options come before the subcommand, as in the example; tvekit help client SUBCOMMAND shows a \
            subcommand's own options. Against the local service provider, start tvekit serve --keys-out keys (port \
            8080) first:
            Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
            keys/software-statement.jwt login --mvpd SandboxCable

            \(exitStatuses)
            """,
        subcommands: [Login.self, Status.self, Preauthorize.self, Authorize.self, Metadata.self, Logout.self]
    )

    @OptionGroup var options: Options

    /// The exit statuses, on every help page of `tvekit client`.
    static let exitStatuses = """
        Exit status: 0 when the step did what was asked (signed in, authorized, logged out, a status with a login); 1 \
        when it did not (not signed in, not authorized, a failure of the service provider, whose code and message end \
        the output); 2 for a usage error (a missing or wrong option, a state directory open to others).
        """

    /// The usage line of a subcommand: the client's required options first.
    static func usage(_ subcommand: String) -> String {
        "tvekit client --sp <sp> --requestor <requestor> --software-statement <file> [<client options>] " + subcommand
    }

    /// What every subcommand needs.
    struct Options: ParsableArguments {
        @Option(name: .long, help: "The service provider: a URL, or production or staging.")
        var sp: String

        @Option(name: .long, help: "The requestor ID.")
        var requestor: String

        @Option(name: .customLong("software-statement"), help: "A file holding the software statement (a JWT).")
        var softwareStatement: String

        @Option(name: .long, help: "The state directory (created 0700; ~/.tvekit/client by default).")
        var state: String?

        @Option(name: .long, help: "The REST API.")
        var api: AsyncAccessEnabler.ServiceAPI = .v2

        @Option(name: .customLong("metadata-key"), help: "The programmer's metadata private key (PEM), to decrypt user metadata.")
        var metadataKey: String?

        @Option(name: .long, help: "Seconds each request may take (1 to 120).")
        var timeout: Int = 15

        @Option(
            name: .customLong("redirect-url"),
            help: """
                REST API v2: where the second screen's browser goes once signed in (the local provider's done page by \
                default; https://adobe.com, Adobe's sample, for production and staging).
                """)
        var redirectURL: String?

        @Flag(name: .long, help: "Print the transcript as JSON (one object) instead of text.")
        var json = false

        func validate() throws {
            if !(1...120).contains(timeout) { throw ValidationError("--timeout must be 1 to 120 seconds") }
            if let redirectURL, redirectURL.isEmpty || redirectURL.utf8.count > 2048 || redirectURL.contains(where: \.isWhitespace) {
                throw ValidationError("--redirect-url must be a URL of at most 2,048 characters")
            }
            _ = try serviceProvider()
        }

        /// The redirect URL of a REST API v2 login: a page a phone's browser can open.
        func loginRedirectURL() -> String {
            if let redirectURL { return redirectURL }
            return sp == "production" || sp == "staging" ? "https://adobe.com" : ServiceProvider.activationDonePath(requestor)
        }

        func serviceProvider() throws -> URL {
            switch sp {
            case "production": if let url = AsyncAccessEnabler.defaultServiceProvider { return url }
            case "staging": if let url = AsyncAccessEnabler.stagingServiceProvider { return url }
            default:
                if let url = URL(string: sp), url.scheme == "https" || url.scheme == "http", url.host != nil { return url }
            }
            throw ValidationError("--sp must be an http(s) URL, production or staging")
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in with a second screen: print the code and the page to open, then poll until signed in.",
            usage: ClientCommand.usage("login [--mvpd <mvpd>] [--data <key=value> ...]"),
            discussion: """
                Polls every 3 to 5 s until the login is done on another device or the session ends (REST API v2: its \
                notAfter, 30 minutes at Adobe); Ctrl-C stops. A TempPass MVPD signs in at once. Already signed in: says \
                so and exits 0.

                Example: tvekit client --sp staging --requestor REQ --software-statement ss.jwt login --mvpd Comcast_SSO

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        @Option(name: .long, help: "The MVPD to log in with (needed when the requestor offers several).")
        var mvpd: String?
        @Option(
            name: .customLong("data"), help: "KEY=VALUE for getAuthentication:withData: (a promotional TempPass's identity). Repeatable.")
        var data: [String] = []

        func run() async throws {
            var fields: [String: String] = [:]
            for pair in data {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw ValidationError("--data takes KEY=VALUE")
                }
                fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            try await ClientApp.run(client.options) { app in try await app.login(mvpd: mvpd, data: fields) }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "checkAuthentication, the selected MVPD and when the login ends: the stored profile, no request (--refresh asks).",
            usage: ClientCommand.usage("status [--refresh]"),
            discussion: """
                Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
                keys/software-statement.jwt status

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        @Flag(name: .long, help: "Ask the service provider first (setRequestor), as an app does at launch.")
        var refresh = false
        func run() async throws {
            try await ClientApp.run(client.options, requestor: refresh ? .set : .restore) { app in try await app.status() }
        }
    }

    struct Preauthorize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "checkPreauthorizedResources: the resources the user may watch, and why each other one is denied.",
            usage: ClientCommand.usage("preauthorize <resource> ..."),
            discussion: """
                Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
                keys/software-statement.jwt preauthorize news sports premium-sports

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        @Argument(help: "The resource IDs.")
        var resources: [String]
        func run() async throws { try await ClientApp.run(client.options) { app in try await app.preauthorize(resources) } }
    }

    struct Authorize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "checkAuthorization: print the short media token (and check it with --verify-cert).",
            usage: ClientCommand.usage("authorize <resource> [--verify-cert <file>]"),
            discussion: """
                Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
                keys/software-statement.jwt authorize news --verify-cert keys/media-token-public.pem

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        @Argument(help: "The resource ID.")
        var resource: String
        @Option(name: .customLong("verify-cert"), help: "A media-token signing certificate or public key (PEM or DER) to verify with.")
        var verifyCertificate: String?
        func run() async throws {
            let keys = try verifyCertificate.map { try Input.trustedKeys([$0], allowing1024BitKeys: false) }
            try await ClientApp.run(client.options) { app in try await app.authorize(resource, trustedKeys: keys) }
        }
    }

    struct Metadata: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "getMetadata: without KEY the authentication TTL and device ID, with KEY that user-metadata value.",
            usage: ClientCommand.usage("metadata [<key>]"),
            discussion: """
                Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
                keys/software-statement.jwt --metadata-key keys/metadata-private.pem metadata zip

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        @Argument(help: "A user-metadata key.")
        var key: String?
        func run() async throws { try await ClientApp.run(client.options) { app in try await app.metadata(key) } }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "logout: the local tokens and the service provider's session end.",
            usage: ClientCommand.usage("logout"),
            discussion: """
                Example: tvekit client --sp http://127.0.0.1:8080 --requestor tvekit-sandbox --software-statement \
                keys/software-statement.jwt logout

                \(ClientCommand.exitStatuses)
                """)
        @ParentCommand var client: ClientCommand
        func run() async throws { try await ClientApp.run(client.options) { app in try await app.logout() } }
    }
}
