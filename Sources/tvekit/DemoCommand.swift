import ArgumentParser
import Foundation
import TVEConcurrency
import TVECrypto
import TVEJSON
import TVEAccessEnabler
import TVESandbox

/// `tvekit demo`: the cookbook's scenarios (``SandboxScenario/all``), as an app would walk them, against the sandbox.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk the AccessEnabler cookbook against a local service provider and print the transcript.",
        discussion: """
            Starts the local service provider (the sandbox, fresh keys) on an ephemeral loopback port, then plays an app: \
            setRequestor, authentication through the MVPD's login form, preauthorization, authorization, media-token \
            verification, user-metadata decryption, the platform single-sign-on path with a simulated TV-provider \
            account, the tvOS second screen, TempPass, and logout, over REST API v2 (or v1 with --api v1). Each callback is \
            printed with its time. Exit 0 when every step gave the callbacks the cookbook promises, 1 otherwise.

            Example: tvekit demo --api v1 --json
            """
    )

    @Flag(name: .long, help: "Print the transcript as JSON (one object) instead of text.")
    var json = false

    @Option(name: .long, help: "The REST API the app speaks.")
    var api: AsyncAccessEnabler.ServiceAPI = .v2

    func run() async throws {
        let transcript = Transcript(json: json)
        transcript.add("note", "generating the sandbox keys")
        let failures = try await Sandbox.run { sandbox in
            transcript.add("note", "local service provider on \(sandbox.url.absoluteString)")
            let narrator = ScenarioNarrator(
                call: { transcript.add("call", $0) }, note: { transcript.add("note", $0) },
                callback: { transcript.add("callback", $0.description) })
            var failures: [String] = []
            transcript.add("note", "the app speaks REST API \(api.rawValue)")
            for scenario in SandboxScenario.all where api == .v2 || !scenario.needsV2 {
                transcript.add("section", scenario.name)
                do {
                    try await scenario.run(in: sandbox, narrator: narrator, api: api)
                } catch {
                    let words = CLIError.userMessage(for: error) ?? "\(error)"
                    failures.append("\(scenario.name): \(words)")
                    transcript.add("note", "FAILED: \(words)")
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

    /// One line: `kind` is `section`, `call`, `callback` or `note`.
    func add(_ kind: String, _ text: String) {
        let elapsed = ContinuousClock.now - start
        let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        lines.withLock { $0.append((ms, kind, text)) }
        if !json {
            let prefix =
                kind == "section" ? "\n== " : String(format: "%6d ms  %@ ", ms, kind == "call" ? "→" : kind == "callback" ? "←" : "·")
            // What a service provider sent (an MVPD's message, an error's details) cannot drive the terminal.
            print(prefix + String(String.UnicodeScalarView(text.unicodeScalars.map { Self.isControl($0) ? "?" : $0 })))
            fflush(nil)  // a long wait (the second screen) shows each line as it comes
        }
    }

    /// C0 and C1 control characters (escape sequences), but not the line breaks of a transcript.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
    }

    func finish(failures: [String], success: String = "every step behaved as the cookbook says") {
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
            print(failures.isEmpty ? "\n" + success : "\n\(failures.count) step(s) failed: " + failures.joined(separator: "; "))
        }
    }
}

extension AsyncAccessEnabler.ServiceAPI: ExpressibleByArgument {}
