import ArgumentParser
import Foundation
import TVECrypto
import TVETokens

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Verify, inspect and issue short media tokens.",
        discussion: """
            verify checks a token against trusted keys and prints its result code; inspect decodes one without checking \
            anything; issue signs new ones, in the form Adobe's service writes by default.

            Example: tvekit token verify --cert adobe.pem --requestor tvekit-sandbox --one-time --batch tokens.txt
            """,
        subcommands: [Verify.self, Inspect.self, Issue.self]
    )

    static func jsonLine(_ verification: MediaTokenVerification, line: Int? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(MediaTokenVerificationReport(verification, line: line)), as: UTF8.self)
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a media token: prints the result code; exit 0 when VALID_TOKEN, 1 otherwise, 2 for usage errors.",
            discussion: """
                The token is the serialized (Base64) form or raw token text, as an argument or on standard input with '-'. \
                A token over the size limit, as an argument or on standard input, is INVALID_TOKEN_FORMAT (exit 1), not a \
                usage error. With --batch FILE (or --batch - for standard input), every non-empty line is a token and one \
                JSON result is printed per line; the exit status is 0 only when every token is valid.

                --cert takes a certificate (or a bundle) or a bare public key, PEM or DER; repeat it to trust several. A \
                key under 2048 bits is refused with a message that names its size and the flag (exit 2) unless \
                --allow-1024-bit-keys is given; the key is then trusted and a warning on standard error says that it is \
                weak. Keys under 1024 bits are never trusted.

                --json prints the result and, for a valid token, its fields: sessionGUID, requestorID, resourceID, ttl, \
                issueTime (milliseconds since the Unix epoch), issueTimeText (as sent, such as "2017-03-15 16:40:46 \
                -0700"), mvpdId and proxyMvpdId (empty when the token has none); for any other result, the reason. \
                Without --json the result code goes to standard output and the reason to standard error.

                Adobe's real token of 2017 verifies with the 1024-bit key recovered from real tokens (run in the TVEKit \
                repository; it prints the warning, then VALID_TOKEN):
                Example: tvekit token verify --cert TestVectors/media-token/real/adobe-2015-2017-public-key.pem \
                --allow-1024-bit-keys --requestor MML --resource truTV --now 1489621300000 \
                "$(cat TestVectors/media-token/real/token-A.txt)"
                """
        )

        @Option(
            name: .customLong("cert"), help: "A trusted certificate or public key file (PEM or DER, one or a bundle). Repeat for several.")
        var certificates: [String] = []

        @Flag(name: .customLong("allow-1024-bit-keys"), help: "Trust --cert keys of 1024 bits (weak; Adobe's key of 2015-2017 is one).")
        var allow1024BitKeys = false

        @Option(name: .long, help: "The requestor ID the token must carry.")
        var requestor: String

        @Option(name: .long, help: "The resource the token must authorize (omit to skip the check).")
        var resource: String?

        @Option(name: .long, help: "Verify as if now were this time, in milliseconds since the Unix epoch (the current time by default).")
        var now: Int64?

        @Option(name: .long, help: "Tolerated clock skew in seconds (0 to 86400).")
        var skew: Int = 0

        @Flag(name: .customLong("one-time"), help: "Refuse a token seen before in this run (replay guard; useful with --batch).")
        var oneTime = false

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @Option(name: .long, help: "A file with one token per line ('-' for standard input).")
        var batch: String?

        @Argument(help: "The token, or '-' to read it from standard input.")
        var token: String?

        func validate() throws {
            if certificates.isEmpty { throw ValidationError("give at least one --cert FILE") }
            if (batch == nil) == (token == nil) { throw ValidationError("give either a TOKEN argument or --batch FILE") }
            if skew < 0 || skew > 86_400 { throw ValidationError("--skew must be between 0 and 86400 seconds") }
        }

        func run() async throws {
            let trusted = try Input.trustedKeys(certificates, allowing1024BitKeys: allow1024BitKeys)
            let clock: any MediaTokenClock = now.map { FixedMediaTokenClock(milliseconds: $0) } ?? SystemMediaTokenClock()
            let verifier = try MediaTokenVerifier(
                trustedKeys: trusted, requestorID: requestor, clockSkew: .seconds(skew),
                clock: clock, replayGuard: oneTime ? InMemoryTokenReplayGuard() : nil,
                allowing1024BitKeys: allow1024BitKeys)
            if let batch {
                let text =
                    batch == "-"
                    ? try Input.standardInput(limit: Input.maximumFileBytes, what: "batch")
                    : String(decoding: try Input.read(batch, what: "batch"), as: UTF8.self)
                var allValid = true
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let tokenText = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !tokenText.isEmpty else { continue }
                    let outcome = verifier.verify(tokenText, resourceID: resource)
                    allValid = allValid && outcome.isValid
                    print(try TokenCommand.jsonLine(outcome, line: number + 1))
                }
                if !allValid { throw ExitCode(1) }
                return
            }
            let outcome = verifier.verify(try Input.tokenArgument(token ?? "-"), resourceID: resource)
            if json {
                print(try TokenCommand.jsonLine(outcome))
            } else {
                print(outcome.result.rawValue)
                if !outcome.isValid { Output.progress(outcome.reason) }
            }
            if !outcome.isValid { throw ExitCode(1) }
        }
    }

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a media token WITHOUT verifying it (the output says UNVERIFIED).",
            discussion: """
                Prints the token's fields (sessionGUID, requestorID, resourceID, ttl, issueTime as sent and in \
                milliseconds since the Unix epoch, mvpdId, proxyMvpdId) and its form: the root element, the signatureInfo \
                end, the issueTime encoding and its UTC offset. Nothing is checked: use tvekit token verify before \
                trusting any of it. The token is the serialized (Base64) form or raw token text, as an argument or on \
                standard input with '-'.

                Example: tvekit token inspect --json "$(cat TestVectors/media-token/real/token-A.txt)"
                """
        )

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @Argument(help: "The token, or '-' to read it from standard input.")
        var token: String

        struct Report: Encodable {
            var verified = false
            var warning = "UNVERIFIED: the signature, requestor, resource and lifetime were NOT checked"
            var sessionGUID, requestorID, resourceID, mvpdId, proxyMvpdId: String
            var ttl, issueTime: Int64
            var issueTimeText: String
            var form: Form
            var signatureBytes: Int
            var signedBytes: Int
        }

        struct Form: Encodable {
            var root: String
            var signatureInfoEnd: String
            var issueTimeEncoding: String
            var utcOffsetMinutes: Int?
        }

        func run() async throws {
            let parsed = try ShortMediaToken(parsing: Input.tokenArgument(token))
            var form = Form(
                root: parsed.form.root.rawValue, signatureInfoEnd: parsed.form.signatureInfoEnd.rawValue,
                issueTimeEncoding: "epochMilliseconds")
            if case .dateTime(let offset) = parsed.form.issueTimeEncoding {
                form.issueTimeEncoding = "dateTime"
                form.utcOffsetMinutes = offset
            }
            let report = Report(
                sessionGUID: parsed.sessionGUID, requestorID: parsed.requestorID, resourceID: parsed.resourceID,
                mvpdId: parsed.mvpdId, proxyMvpdId: parsed.proxyMvpdId ?? "", ttl: parsed.ttl, issueTime: parsed.issueTime,
                issueTimeText: parsed.issueTimeText, form: form,
                signatureBytes: parsed.signature.count, signedBytes: parsed.signedRange.count)
            if json {
                print(try Output.json(report))
                return
            }
            let issued = Date(timeIntervalSince1970: Double(parsed.issueTime) / 1000)
            print("UNVERIFIED TOKEN: the signature, requestor, resource and lifetime were NOT checked.")
            print("  sessionGUID:  \(parsed.sessionGUID)")
            print("  requestorID:  \(parsed.requestorID)")
            print("  resourceID:   \(parsed.resourceID)")
            print("  ttl:          \(parsed.ttl) ms")
            print("  issueTime:    \(parsed.issueTimeText) (\(parsed.issueTime) ms, \(ISO8601DateFormatter().string(from: issued)))")
            print("  mvpdId:       \(parsed.mvpdId)")
            print("  proxyMvpdId:  \(parsed.proxyMvpdId.map { $0.isEmpty ? "(empty)" : $0 } ?? "(absent)")")
            print("  signature:    \(parsed.signature.count) bytes over \(parsed.signedRange.count) signed bytes")
            print("  form:         \(parsed.form)")
            print("UNVERIFIED: use 'tvekit token verify' before trusting any of this.")
        }
    }

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a signed media token (prints the serialized form).",
            discussion: """
                Give either --private-key (PEM or DER; --passphrase-env for an encrypted key) or --p12 with --password-env. \
                The token has the real form of Adobe's service (the authToken root, an unslashed signatureInfo end, \
                issueTime as a date at +0000) unless --utc-offset ±hhmm gives another offset, or --documented-form writes \
                the form of Adobe's documentation. Write a negative offset as --utc-offset=-0700, so that it is not read \
                as an option. The token lives --ttl milliseconds (420000, 7 minutes, by default) from --issue-time (now \
                by default).

                Example: tvekit token issue --p12 requestor.p12 --password-env P12_PASSWORD --requestor tvekit-sandbox \
                --resource news --mvpd SandboxCable --utc-offset=-0700
                """
        )

        @OptionGroup var key: KeySourceOptions

        @Option(name: .long, help: "The requestor ID.")
        var requestor: String

        @Option(name: .long, help: "The resource ID.")
        var resource: String

        @Option(name: .long, help: "The MVPD ID.")
        var mvpd: String

        @Option(name: .long, help: "Lifetime in milliseconds.")
        var ttl: Int64 = MediaTokenIssuer.defaultTTL

        @Option(name: .customLong("session-guid"), help: "The session GUID (a random UUID by default).")
        var sessionGUID: String?

        @Option(name: .customLong("proxy-mvpd"), help: "The proxy MVPD ID.")
        var proxyMvpd: String?

        @Option(name: .customLong("issue-time"), help: "Issue time in milliseconds since the Unix epoch (now by default).")
        var issueTime: Int64?

        @Option(
            name: .customLong("utc-offset"),
            help: "The UTC offset of the dated issueTime, as ±hhmm; write a negative one as --utc-offset=-0700.")
        var utcOffset = "+0000"

        @Flag(
            name: .customLong("documented-form"),
            help: "Write the form of Adobe's docs (</signatureInfo>, shortAuthorizationToken, epoch ms) instead of the real one.")
        var documentedForm = false

        @Flag(name: .long, help: "Print the raw token text instead of the serialized (Base64) form.")
        var raw = false

        @Option(name: .long, help: "How many tokens to issue, one per line, each with its own session GUID (1 to 1000000).")
        var count = 1

        /// `±hhmm` in minutes.
        var offsetMinutes: Int? {
            let utf8 = Array(utcOffset.utf8)
            guard utf8.count == 5, utf8[0] == UInt8(ascii: "+") || utf8[0] == UInt8(ascii: "-"),
                utf8[1...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let hours = Int(utcOffset.dropFirst().prefix(2)), let minutes = Int(utcOffset.suffix(2)), hours < 24, minutes < 60
            else { return nil }
            return (utf8[0] == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
        }

        func validate() throws {
            if ttl < 0 { throw ValidationError("--ttl must not be negative") }
            if !(1...1_000_000).contains(count) { throw ValidationError("--count must be between 1 and 1000000") }
            if count > 1, sessionGUID != nil { throw ValidationError("--session-guid issues one token: leave it out with --count") }
            if offsetMinutes == nil { throw ValidationError("--utc-offset must be ±hhmm, such as -0700") }
        }

        func run() async throws {
            let form: ShortMediaToken.Form = documentedForm ? .documented : .adobe(utcOffsetMinutes: offsetMinutes ?? 0)
            let issuer = MediaTokenIssuer(privateKey: try key.load(), form: form)
            var output = ""
            for index in 0..<count {
                let token = try issuer.issue(
                    requestorID: requestor, resourceID: resource, mvpdId: mvpd, sessionGUID: sessionGUID ?? UUID().uuidString,
                    proxyMvpdId: proxyMvpd, ttl: ttl, issueTime: issueTime)
                output += (raw ? String(decoding: token.text, as: UTF8.self) : token.serialized) + "\n"
                if output.utf8.count > 1 << 20 || index == count - 1 {
                    FileHandle.standardOutput.write(Data(output.utf8))
                    output = ""
                }
            }
        }
    }
}
