import ArgumentParser
import Foundation
import Testing

@testable import tvekit

@Suite("tvekit --help and --version")
struct HelpTests {
    /// Every command: the root, then its subcommands, recursively, with their paths.
    static func commands() -> [(path: String, type: any ParsableCommand.Type)] {
        var found: [(path: String, type: any ParsableCommand.Type)] = [("tvekit", TVEKitCommand.self)]
        var index = 0
        while index < found.count {
            let (path, type) = found[index]
            index += 1
            for subcommand in type.configuration.subcommands {
                found.append((path + " " + (subcommand.configuration.commandName ?? "?"), subcommand))
            }
        }
        return found
    }

    @Test("every help page wraps at any width: an overview or discussion has no hard line break inside a paragraph")
    func noHardLineBreaks() {
        let commands = Self.commands()
        #expect(commands.count > 20, "found \(commands.count) commands")
        for (path, type) in commands {
            #expect(!type.configuration.abstract.contains("\n"), "\(path): the overview is one line")
            // A paragraph is one line (the terminal wraps it). A line may follow another only as a list item ("- "), an
            // example, or after a line that introduces them (ending with ":").
            let lines = type.configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
                let allowed = next.hasPrefix("- ") || next.hasPrefix("Example") || line.hasSuffix(":")
                #expect(allowed, "\(path) --help breaks a paragraph before: \(next.prefix(60))")
            }
        }
    }

    @Test("tvekit --version prints the version and exits 0")
    func version() throws {
        #expect(TVEKitCommand.configuration.version == TVEKitCommand.version)
        let outcome = try CLI.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == TVEKitCommand.version)
        #expect(TVEKitCommand.version.wholeMatch(of: /\d+\.\d+\.\d+(-[a-z0-9.]+)?/) != nil)
    }
}
