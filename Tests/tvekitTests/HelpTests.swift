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
                // The name the parser matches: the configured one, or the one derived from the type's name.
                found.append((path + " " + subcommand._commandName, subcommand))
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

    @Test("every command gives one example: a full invocation of itself (a group may show one of its subcommands)")
    func everyCommandGivesOneExample() {
        let commands = Self.commands()
        for (path, command) in commands {
            let lines = command.configuration.discussion.split(separator: "\n").map(String.init)
            let examples = lines.filter { $0.hasPrefix("Example: ") }
            #expect(examples.count == 1, "\(path) --help gives \(examples.count) lines starting with \"Example: \"")
            guard let example = examples.first else { continue }
            let words = Self.shellWords(String(example.dropFirst("Example: ".count)))
            // "tvekit", then the command's path, in order: a group's options may come before its subcommand
            // (tvekit client --sp URL ... login), but a top-level command comes first.
            let components = path.split(separator: " ").map(String.init)
            var rest = words.dropFirst()
            var inOrder = words.first == "tvekit" && (components.count == 1 || rest.first == components[1])
            for component in components.dropFirst() {
                guard let index = rest.firstIndex(of: component) else {
                    inOrder = false
                    break
                }
                rest = rest[(index + 1)...]
            }
            #expect(inOrder, "\(path) --help: the example is not an invocation of \(path): \(example)")
            // The parser takes it (real option names and values) and lands on this command or one below it.
            do {
                let parsed = try TVEKitCommand.parseAsRoot(Array(words.dropFirst()))
                let parsedPath = commands.first { ObjectIdentifier($0.type) == ObjectIdentifier(type(of: parsed)) }?.path ?? "?"
                #expect(parsedPath == path || parsedPath.hasPrefix(path + " "), "\(path) --help: the example runs \(parsedPath)")
            } catch {
                Issue.record("\(path) --help: the example does not parse: \(TVEKitCommand.message(for: error))")
            }
        }
    }

    @Test("every tvekit client page gives the full usage line (the client's required options first) and the exit statuses")
    func clientPagesGiveUsageAndExitStatuses() {
        let pages = Self.commands().filter { $0.path == "tvekit client" || $0.path.hasPrefix("tvekit client ") }
        #expect(pages.count == 7)
        for (path, command) in pages {
            let help = TVEKitCommand.helpMessage(for: command, columns: 1000)
            let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE:") }.map(String.init) ?? ""
            #expect(usage.contains("--sp <sp>") && usage.contains("--requestor <requestor>"), "\(path): \(usage)")
            #expect(usage.contains("--software-statement <"), "\(path): \(usage)")
            #expect(help.contains("Exit status: 0 when"), "\(path)")
        }
    }

    /// The words of a command line as a shell splits them: at spaces outside quotes, the quotes removed (enough for
    /// the examples' "$(cat FILE)" and "$VARIABLE" arguments, which reach the parser as they are).
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word = (word ?? "") + String(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                word = word ?? ""
            } else if character == " " {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let finished = word { words.append(finished) }
        return words
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
