import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import TVETestSupport
import Testing

/// Runs the built `tvekit` binary, as a user would.
enum CLI {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("TestVectors/fixtures")

    /// The binary sits next to the test bundle in the build folder.
    static let binary: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent("tvekit") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// - Parameter input: what standard input holds (nothing by default).
    static func run(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil, background: Bool = false)
        throws -> Outcome
    {
        let binary = try #require(binary, "the tvekit binary was not built next to the tests")
        // posix_spawn, not Foundation's Process: see Spawning (the Wycheproof test starts hundreds of these at once).
        // In the background, the child runs under `nice`: the tests beside it, some with deadlines, come first.
        let outcome = try Spawning.run(
            background ? "/usr/bin/nice" : binary.path, arguments: background ? ["-n", "15", binary.path] + arguments : arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, input: input)
        return Outcome(
            status: outcome.status, stdout: String(decoding: outcome.stdout, as: UTF8.self),
            stderr: String(decoding: outcome.stderr, as: UTF8.self))
    }

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// ``run(_:environment:input:)`` for an async test: the wait for the child runs on a thread of its own, never on
    /// one of the cooperative pool's (two on this machine), which the other tests running in parallel need.
    /// With `background`, the child runs at a low priority (see ``run(_:environment:input:background:)``).
    static func running(_ arguments: [String], environment: [String: String] = [:], background: Bool = false) async throws
        -> Outcome
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try run(arguments, environment: environment, background: background) }) }
                .start()
        }
    }
}

extension Array where Element == UInt8 {
    init(hexString: String) {
        var bytes: [UInt8] = []
        var index = hexString.startIndex
        while index < hexString.endIndex, let next = hexString.index(index, offsetBy: 2, limitedBy: hexString.endIndex) {
            bytes.append(UInt8(hexString[index..<next], radix: 16) ?? 0)
            index = next
        }
        self = bytes
    }
}

@Suite("tvekit command line", .serialized)
struct CLITests {
    struct VerifyGroup: Decodable {
        let publicKeyDer: String
        let tests: [VerifyCase]
    }
    struct VerifyCase: Decodable {
        let tcId: Int
        let msg: String
        let sig: String
        let result: String
    }
    struct VerifyFile: Decodable {
        let numberOfTests: Int
        let testGroups: [VerifyGroup]
    }

    @Test(
        "signature verify agrees with Wycheproof on every case",
        arguments: [
            "rsa_signature_2048_sha256_test.json", "rsa_signature_3072_sha256_test.json", "rsa_signature_4096_sha256_test.json",
        ])
    func verifyAgreesWithWycheproof(file: String) async throws {
        let url = CLI.repository.appendingPathComponent("TestVectors/wycheproof/\(file)")
        let vectors = try JSONDecoder().decode(VerifyFile.self, from: try Data(contentsOf: url))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var jobs: [(id: Int, key: String, message: String, signature: String, valid: Bool)] = []
        for (groupIndex, group) in vectors.testGroups.enumerated() {
            let keyPath = directory.appendingPathComponent("key\(groupIndex).der")
            try Data([UInt8](hexString: group.publicKeyDer)).write(to: keyPath)
            for test in group.tests {
                let messagePath = directory.appendingPathComponent("msg\(test.tcId)")
                try Data([UInt8](hexString: test.msg)).write(to: messagePath)
                // Policy: "acceptable" (MissingNull) signatures are rejected, like the library does.
                jobs.append(
                    (
                        test.tcId, keyPath.path, messagePath.path,
                        Data([UInt8](hexString: test.sig)).base64EncodedString(), test.result == "valid"
                    ))
            }
        }
        #expect(jobs.count == vectors.numberOfTests)
        var agreed = 0
        try await withThrowingTaskGroup(of: (Int, Bool, Bool).self) { group in
            var pending = jobs[...]
            func submit() {
                guard let job = pending.popFirst() else { return }
                group.addTask {
                    // Each wait on a thread of its own, each child in the background: four blocking waits here held
                    // both threads of the cooperative pool, and hundreds of children at full priority took the CPU,
                    // for a minute at the start of the suite, and starved the tests beside it (flows with deadlines).
                    let outcome = try await CLI.running(
                        [
                            "signature", "verify", "--public-key", job.key, "--signature-base64", job.signature,
                            "--in", job.message,
                        ], background: true)
                    let said = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    let consistent = (outcome.status == 0 && said == "valid") || (outcome.status == 1 && said == "invalid")
                    return (job.id, job.valid, consistent && (outcome.status == 0) == job.valid)
                }
            }
            for _ in 0..<4 { submit() }
            while let (id, valid, ok) = try await group.next() {
                #expect(ok, "tcId \(id): tvekit disagrees with Wycheproof (expected \(valid ? "valid" : "invalid"))")
                if ok { agreed += 1 }
                submit()
            }
        }
        print("tvekit signature verify agrees with Wycheproof on \(agreed)/\(jobs.count) cases of \(file)")
        #expect(agreed == jobs.count)
    }

    @Test(
        "malformed input and usage errors exit 2 with a message on stderr",
        arguments: [
            [
                "signature", "verify", "--public-key", CLI.fixture("message.txt"), "--signature-base64", "AAAA", "--in",
                CLI.fixture("message.txt"),
            ],
            [
                "signature", "verify", "--public-key", CLI.fixture("leaf.cert.pem"), "--signature-base64", "not base64!", "--in",
                CLI.fixture("message.txt"),
            ],
            [
                "signature", "verify", "--public-key", CLI.fixture("ec.cert.pem"), "--signature-base64", "AAAA", "--in",
                CLI.fixture("message.txt"),
            ],
            [
                "signature", "verify", "--public-key", "/nonexistent/key.pem", "--signature-base64", "AAAA", "--in",
                CLI.fixture("message.txt"),
            ],
            ["signature", "verify", "--signature-base64", "AAAA"],
            ["signature", "sign", "--in", CLI.fixture("message.txt")],
            ["no-such-command"],
        ])
    func malformedInputExitsTwo(arguments: [String]) throws {
        let outcome = try CLI.run(arguments)
        #expect(outcome.status == 2, "\(arguments): status \(outcome.status), stderr \(outcome.stderr)")
        #expect(!outcome.stderr.isEmpty)
        #expect(!outcome.stderr.contains(".swift:"), "the user reads the reason, not where the error was made: \(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test("signature sign with a PKCS#12 file reproduces the openssl signature, and verify accepts it")
    func signWithPKCS12() throws {
        let expected = try String(contentsOfFile: CLI.fixture("message.sig.b64"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        for file in ["modern.p12", "legacy.p12"] {
            let outcome = try CLI.run(
                ["signature", "sign", "--p12", CLI.fixture(file), "--password-env", "TVEKIT_TEST_P12", "--in", CLI.fixture("message.txt")],
                environment: ["TVEKIT_TEST_P12": "fixture-password"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
        }
        let verify = try CLI.run([
            "signature", "verify", "--public-key", CLI.fixture("leaf.cert.der"), "--signature-base64", expected,
            "--in", CLI.fixture("message.txt"),
        ])
        #expect(verify.status == 0 && verify.stdout == "valid\n")
        let wrong = try CLI.run(
            [
                "signature", "sign", "--p12", CLI.fixture("modern.p12"), "--password-env", "TVEKIT_TEST_P12", "--in",
                CLI.fixture("message.txt"),
            ],
            environment: ["TVEKIT_TEST_P12": "wrong"])
        #expect(wrong.status == 2 && wrong.stderr.contains("wrongPassword") && !wrong.stderr.contains("wrong\n"))
    }

    @Test("signature sign with a private key file, wrapped at 76 columns")
    func signWithKeyFile() throws {
        let outcome = try CLI.run(
            [
                "signature", "sign", "--private-key", CLI.fixture("rsa2048.encrypted.pem"), "--passphrase-env", "TVEKIT_TEST_KEY",
                "--in", CLI.fixture("message.txt"), "--wrap",
            ], environment: ["TVEKIT_TEST_KEY": "key-passphrase"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 5 && lines.dropLast().allSatisfy { $0.count == 76 })
        let verify = try CLI.run([
            "signature", "verify", "--public-key", CLI.fixture("rsa2048.spki.pem"),
            "--signature-base64", outcome.stdout, "--in", CLI.fixture("message.txt"),
        ])
        #expect(verify.status == 0)
    }

    @Test("key inspect describes certificates and keys, also as JSON")
    func keyInspect() throws {
        let text = try CLI.run(["key", "inspect", CLI.fixture("chain.pem")])
        #expect(text.status == 0)
        #expect(text.stdout.contains("CN=requestor.example,O=TVEKit Test,C=US"))
        #expect(text.stdout.contains("F8:90:62:91") || text.stdout.contains("sha256:"))
        let json = try CLI.run(
            ["key", "inspect", CLI.fixture("legacy.p12"), "--password-env", "P", "--json"], environment: ["P": "fixture-password"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "PKCS#12")
        #expect((object?["items"] as? [Any])?.count == 3)
        let encrypted = try CLI.run(["key", "inspect", CLI.fixture("rsa2048.encrypted.der")])
        #expect(encrypted.status == 2 && encrypted.stderr.contains("passphrase"))
    }

    @Test("key inspect describes a 1024-bit public key (Adobe's key of 2015–2017) and marks it weak")
    func keyInspectLegacyKey() throws {
        let text = try CLI.run(["key", "inspect", CLI.fixture("rsa1024.spki.pem")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("public key: RSA 1024 bits (weak: under 2048 bits)"), "\(text.stdout)")
        let adobe = CLI.repository.appendingPathComponent("TestVectors/media-token/real/adobe-2015-2017-public-key.pem").path
        let json = try CLI.run(["key", "inspect", "--json", adobe])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let item = (object?["items"] as? [[String: Any]])?.first
        #expect(item?["bits"] as? Int == 1024 && item?["weak"] as? Bool == true)
        let strong = try CLI.run(["key", "inspect", "--json", CLI.fixture("rsa2048.spki.pem")])
        #expect(strong.stdout.contains("\"weak\" : false") || strong.stdout.contains("\"weak\":false"), "\(strong.stdout)")
    }

    @Test("speed runs every operation and prints JSON")
    func speed() throws {
        let outcome = try CLI.run(["speed", "--seconds", "0.05", "--json"])
        let one = try CLI.run(["speed", "--seconds", "0.05", "token-parse"])
        #expect(one.status == 0 && one.stdout.contains("token-parse") && !one.stdout.contains("rsa2048-sign"))
        // The goals follow the table: token-parse's, with PASS or MISS (a measurement of 0.05 s decides nothing here).
        #expect(one.stdout.contains("goals (ratio to the paired baseline)") && one.stdout.contains("goal >= 0.80"))
        #expect(try CLI.run(["speed", "no-such-operation"]).status == 2)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let results = object?["results"] as? [[String: Any]] ?? []
        #expect(
            results.compactMap { $0["operation"] as? String } == [
                "rsa2048-verify", "rsa1024-verify", "rsa2048-sign", "rsa2048-decrypt-pkcs1", "rsa2048-decrypt-oaep-sha256", "base64-decode",
                "token-parse", "token-parse-text", "token-verify", "service-verify", "token-verify-1024", "token-verify-1024-text",
                "token-verify-1024-glue", "metadata-decrypt", "saml-verify-5k", "saml-verify-50k",
            ])
        // token-parse is timed against OpenSSL's bare Base64 decode of the same token.
        #expect((results.first { $0["operation"] as? String == "token-parse" })?["baselineOpsPerSecond"] as? Double ?? 0 > 0)
        #expect(results.allSatisfy { ($0["opsPerSecond"] as? Double ?? 0) > 0 })
        // The goals: token-parse ≥ 0.8 of the bare Base64 decode, the token verifications ≥ 0.95 of the bare verification.
        let goals = Dictionary(
            uniqueKeysWithValues: results.compactMap { result in
                (result["goal"] as? Double).map { (result["operation"] as? String ?? "?", $0) }
            })
        #expect(goals == ["token-parse": 0.8, "token-verify": 0.95, "token-verify-1024": 0.95])
        #expect(results.filter { $0["goal"] != nil }.allSatisfy { $0["meetsGoal"] is Bool })
        #expect(outcome.stderr.contains("measuring"))
    }

    // MARK: token

    static let now = "1767225600000"

    func issue(_ extra: [String] = []) throws -> String {
        let outcome = try CLI.run(
            [
                "token", "issue", "--p12", CLI.fixture("modern.p12"), "--password-env", "P", "--requestor", "tvekit-test",
                "--resource", "tvekit-resource", "--mvpd", "TestMVPD", "--issue-time", Self.now,
            ] + extra,
            environment: ["P": "fixture-password"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("token issue, then verify: VALID_TOKEN and exit 0; every invalid result exits 1")
    func tokenIssueVerify() throws {
        let token = try issue()
        let base = ["token", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--requestor", "tvekit-test", "--now", Self.now]
        let valid = try CLI.run(base + ["--resource", "tvekit-resource", token])
        #expect(valid.status == 0 && valid.stdout == "VALID_TOKEN\n", "\(valid.stderr)")
        let wrongResource = try CLI.run(base + ["--resource", "other", token])
        #expect(wrongResource.status == 1 && wrongResource.stdout == "INVALID_RESOURCE_ID\n")
        let expired = try CLI.run([
            "token", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--requestor", "tvekit-test",
            "--now", "1767226100000", token,
        ])
        #expect(expired.status == 1 && expired.stdout == "TOKEN_EXPIRED\n")
        let untrusted = try CLI.run([
            "token", "verify", "--cert", CLI.fixture("ca.cert.pem"), "--requestor", "tvekit-test", "--now", Self.now, token,
        ])
        #expect(untrusted.status == 1 && untrusted.stdout == "INVALID_SIGNATURE\n")
        let garbage = try CLI.run(base + ["not a token"])
        #expect(garbage.status == 1 && garbage.stdout == "INVALID_TOKEN_FORMAT\n")
        let json = try CLI.run(base + ["--json", token])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["result"] as? String == "VALID_TOKEN")
        #expect(object?["resourceID"] as? String == "tvekit-resource")
        #expect(object?["ttl"] as? Int == 420_000)
        let usage = try CLI.run(["token", "verify", "--requestor", "r", token])
        #expect(usage.status == 2)
    }

    @Test("the real Adobe token verifies with the recovered 1024-bit key only with --allow-1024-bit-keys")
    func realAdobeToken() throws {
        let real = CLI.repository.appendingPathComponent("TestVectors/media-token/real")
        let token = try String(contentsOf: real.appendingPathComponent("token-A.txt"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let key = real.appendingPathComponent("adobe-2015-2017-public-key.pem").path
        let base = ["token", "verify", "--cert", key, "--requestor", "MML", "--resource", "truTV", "--now", "1489621300000"]
        let refused = try CLI.run(base + [token])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("1024-bit") && refused.stderr.contains("--allow-1024-bit-keys"), "\(refused.stderr)")
        let valid = try CLI.run(base + ["--allow-1024-bit-keys", "--json", token])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stderr.contains("warning") && valid.stderr.contains("1024-bit RSA key") && valid.stderr.contains("weak"))
        let object = try JSONSerialization.jsonObject(with: Data(valid.stdout.utf8)) as? [String: Any]
        #expect(object?["result"] as? String == "VALID_TOKEN")
        #expect(object?["sessionGUID"] as? String == "a6c1d2fa9725d7857b6a9d3aa9195040")
        #expect(object?["mvpdId"] as? String == "TWC")
        #expect(object?["issueTime"] as? Int == 1_489_621_246_000)
        #expect(object?["issueTimeText"] as? String == "2017-03-15 16:40:46 -0700")
        // Standard input and the Base64 form give the same answer.
        let piped = try CLI.run(base + ["--allow-1024-bit-keys", "-"], input: Data(Data(token.utf8).base64EncodedString().utf8))
        #expect(piped.status == 0 && piped.stdout == "VALID_TOKEN\n", "\(piped.stderr)")
        let inspect = try CLI.run(["token", "inspect", "--json", token])
        let fields = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        let form = fields?["form"] as? [String: Any]
        #expect(form?["root"] as? String == "authToken" && form?["signatureInfoEnd"] as? String == "unslashed")
        #expect(form?["issueTimeEncoding"] as? String == "dateTime" && form?["utcOffsetMinutes"] as? Int == -420)
    }

    @Test("oversizedTokenIsInvalidFormat: a token over the size limit is INVALID_TOKEN_FORMAT (exit 1), not a usage error")
    func oversizedTokenIsInvalidFormat() throws {
        let huge = String(repeating: "A", count: 70_000)
        let base = ["token", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--requestor", "tvekit-test", "--now", Self.now, "--json"]
        for outcome in [try CLI.run(base + ["-"], input: Data(huge.utf8)), try CLI.run(base + [huge])] {
            #expect(outcome.status == 1, "\(outcome.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
            #expect(object?["result"] as? String == "INVALID_TOKEN_FORMAT")
            #expect((object?["reason"] as? String)?.contains("70000 bytes") == true)
        }
    }

    @Test("token issue writes the real form by default, another offset or the documented form on request")
    func tokenIssueForms() throws {
        func inspect(_ extra: [String]) throws -> [String: Any] {
            let outcome = try CLI.run(["token", "inspect", "--json", try issue(extra)])
            return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        }
        let real = try inspect([])
        #expect(real["issueTimeText"] as? String == "2026-01-01 00:00:00 +0000")
        #expect((real["form"] as? [String: Any])?["root"] as? String == "authToken")
        #expect(try inspect(["--utc-offset=-0800"])["issueTimeText"] as? String == "2025-12-31 16:00:00 -0800")
        let documented = try inspect(["--documented-form"])
        #expect((documented["form"] as? [String: Any])?["root"] as? String == "shortAuthorizationToken")
        #expect(documented["issueTimeText"] as? String == "1767225600000")
        #expect(try CLI.run(["token", "issue", "--utc-offset", "0700", "--requestor", "r", "--resource", "s", "--mvpd", "m"]).status == 2)
    }

    @Test("token verify reads standard input and batches, one JSON line per token")
    func tokenBatch() throws {
        let token = try issue()
        let other = try issue(["--resource", "other"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let batch = directory.appendingPathComponent("tokens.txt")
        try Data("\(token)\n\n\(other)\ngarbage\n\(token)\n".utf8).write(to: batch)
        let outcome = try CLI.run([
            "token", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--requestor", "tvekit-test", "--now", Self.now,
            "--resource", "tvekit-resource", "--one-time", "--batch", batch.path,
        ])
        let results = outcome.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["result"] as? String
        }
        #expect(results == ["VALID_TOKEN", "INVALID_RESOURCE_ID", "INVALID_TOKEN_FORMAT", "TOKEN_REPLAYED"])
        #expect(outcome.status == 1)
    }

    @Test("token inspect says UNVERIFIED and decodes the fields")
    func tokenInspect() throws {
        let token = try issue(["--proxy-mvpd", "Proxy"])
        let outcome = try CLI.run(["token", "inspect", token])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("UNVERIFIED"))
        #expect(outcome.stdout.contains("tvekit-resource") && outcome.stdout.contains("Proxy"))
        let bad = try CLI.run(["token", "inspect", "garbage"])
        #expect(bad.status == 2 && bad.stderr.contains("malformedToken"))
    }

    // MARK: metadata, requestor, clientless

    func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-cli-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test(
        "metadata encrypt, then decrypt with the PKCS#12 key: exit 0 and the document; a wrong key exits 1 with JSON",
        arguments: [
            [], ["--jwe", "RSA-OAEP-256,A256GCM"], ["--jwe", "RSA-OAEP,A128CBC-HS256"],
        ])
    func metadataRoundTrip(jwe: [String]) throws {
        let plain = try temporaryFile(
            #"{"updated": 7, "encrypted": ["zip", "userID"], "data": {"zip": ["12345"], "userID": "user-in-the-clear-0001", "tokenSource": "Apple"}}"#
        )
        let encrypted = try CLI.run(["metadata", "encrypt", "--cert", CLI.fixture("leaf.cert.pem")] + jwe + [plain])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")
        // A 22-character marker: a short one (it was "u-1") can occur in Base64url ciphertext by chance, and once did.
        #expect(!encrypted.stdout.contains("user-in-the-clear-0001"))
        let file = try temporaryFile(encrypted.stdout)
        let decrypted = try CLI.run(
            ["metadata", "decrypt", "--p12", CLI.fixture("modern.p12"), "--password-env", "P", "--json", file],
            environment: ["P": "fixture-password"])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(
            decrypted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == #"{"data":{"tokenSource":"Apple","userID":"user-in-the-clear-0001","zip":["12345"]},"updated":7}"#)
        let wrong = try CLI.run(["metadata", "decrypt", "--private-key", CLI.fixture("rsa2048.pkcs8.pem"), "--json", file])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains(#""error" : "decryptionFailed""#))
        let usage = try CLI.run(["metadata", "decrypt", "--json", file])
        #expect(usage.status == 2)
    }

    @Test("requestor sign, then verify: valid exits 0, another ID exits 1, non-Base64 exits 2")
    func requestor() throws {
        let signed = try CLI.run(
            ["requestor", "sign", "--p12", CLI.fixture("modern.p12"), "--password-env", "P", "--wrap", "nbcentertainment"],
            environment: ["P": "fixture-password"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let signature = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signature.contains("\n"))
        #expect(
            try CLI.run(["requestor", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--signature", signature, "nbcentertainment"])
                .status == 0)
        #expect(try CLI.run(["requestor", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--signature", signature, "nbc"]).status == 1)
        #expect(try CLI.run(["requestor", "verify", "--cert", CLI.fixture("leaf.cert.pem"), "--signature", "@@", "nbc"]).status == 2)
    }

    @Test("clientless sign prints the FORMATS.md §4 header; verify checks it")
    func clientless() throws {
        let signed = try CLI.run(
            [
                "clientless", "sign", "--method", "GET", "--requestor", "nbcsports", "--uri", "/api/v1/authorize",
                "--public-key", "pk-123", "--secret-env", "S", "--nonce", "n-1", "--time", "1700000000000",
            ],
            environment: ["S": "s3cret"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let header = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            header.hasPrefix(
                "GET requestor_id=nbcsports, nonce=n-1, signature_method=HMAC-SHA1, request_time=1700000000000, request_uri=/api/v1/authorize, public_key=pk-123, signature="
            ))
        #expect(try CLI.run(["clientless", "verify", "--header", header, "--secret-env", "S"], environment: ["S": "s3cret"]).status == 0)
        #expect(try CLI.run(["clientless", "verify", "--header", header, "--secret-env", "S"], environment: ["S": "other"]).status == 1)
    }

    // MARK: saml

    static let samlResponse = """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" \
        Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://sp/acs" InResponseTo="_q"><saml:Issuer>idp</saml:Issuer>\
        <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
        <saml:Assertion ID="_a1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>idp</saml:Issuer>\
        <saml:Subject><saml:NameID>u1</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
        <saml:SubjectConfirmationData Recipient="https://sp/acs" NotOnOrAfter="2026-01-01T00:10:00Z" InResponseTo="_q"/>\
        </saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="2026-01-01T00:00:00Z" NotOnOrAfter="2026-01-01T00:10:00Z">\
        <saml:AudienceRestriction><saml:Audience>sp</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
        <saml:AuthnStatement AuthnInstant="2026-01-01T00:00:00Z" SessionIndex="s1"/><saml:AttributeStatement>\
        <saml:Attribute Name="zip"><saml:AttributeValue>12345</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>\
        </saml:Assertion></samlp:Response>
        """

    func samlVerify(_ file: String, _ extra: [String] = []) throws -> CLI.Outcome {
        try CLI.run(
            [
                "saml", "verify", "--idp-cert", CLI.fixture("leaf.cert.pem"), "--idp-entity-id", "idp", "--sp-entity-id", "sp",
                "--acs-url", "https://sp/acs", "--request-id", "_q", "--now", "2026-01-01T00:05:00Z", "--json",
            ] + extra + [file])
    }

    @Test("saml sign, then verify: exit 0 with NameID and attributes; Base64 input too; a tampered response exits 1 with the rule")
    func saml() throws {
        let unsigned = try temporaryFile(Self.samlResponse)
        let signed = try CLI.run([
            "saml", "sign", "--private-key", CLI.fixture("leaf.pkcs8.pem"), "--cert", CLI.fixture("leaf.cert.pem"),
            "--assertion", unsigned,
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let signedFile = try temporaryFile(signed.stdout)
        let accepted = try samlVerify(signedFile)
        #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any]
        #expect(object?["nameID"] as? String == "u1")
        #expect((object?["attributes"] as? [String: [String]])?["zip"] == ["12345"])
        #expect(object?["sessionIndex"] as? String == "s1")
        let base64 = try temporaryFile(
            Data(signed.stdout.utf8).base64EncodedString(options: [
                .lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed,
            ]))
        #expect(try samlVerify(base64).status == 0)
        let tampered = try temporaryFile(signed.stdout.replacingOccurrences(of: ">u1<", with: ">u2<"))
        let rejected = try samlVerify(tampered)
        #expect(rejected.status == 1)
        #expect(rejected.stdout.contains(#""error" : "signature.digest""#))
        let unsignedResult = try samlVerify(unsigned)
        #expect(unsignedResult.status == 1 && unsignedResult.stdout.contains("signature.missing"))
        #expect(try CLI.run(["saml", "verify", "--idp-entity-id", "idp", "--sp-entity-id", "sp", "--acs-url", "a", unsigned]).status == 2)
    }
}

@Suite("tvekit serve")
struct ServeCommandTests {
    /// Collects a pipe's output as it arrives.
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ chunk: Data) { lock.lock(); data.append(chunk); lock.unlock() }

        /// Collects what `handle` reads until its end, then lets go of the handler (which holds the collector: a handler
        /// left set keeps both for ever).
        func collect(from handle: FileHandle) {
            handle.readabilityHandler = { handle in
                let chunk = handle.availableData
                if chunk.isEmpty {
                    handle.readabilityHandler = nil
                } else {
                    self.append(chunk)
                }
            }
        }
        var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
    }

    /// Starts `tvekit serve` with `arguments` and waits for its "listening on" line.
    static func start(_ arguments: [String]) async throws -> (Child, Collector, String) {
        let binary = try #require(CLI.binary, "the tvekit binary was not built next to the tests")
        let process = try Spawning.launch(binary.path, arguments: ["serve", "--port", "0"] + arguments, standardError: .piped)
        let collector = Collector()
        collector.collect(from: try #require(process.standardError))
        var port: String?
        for _ in 0..<300 where port == nil {
            try await Task.sleep(for: .milliseconds(100))
            port = collector.text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
                .map { String(collector.text[$0].split(separator: ":").last ?? "") }
        }
        guard let port else {
            process.terminate()
            throw CLIError(message: "the server did not start: \(collector.text)")
        }
        return (process, collector, "http://127.0.0.1:" + port)
    }

    struct CLIError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func stop(_ process: Child, signal number: Int32) async throws -> Int32 {
        process.signal(number)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { process.terminate() }
        return process.terminationStatus
    }

    @Test("tvekit demo walks the cookbook against the local service provider and exits 0, also as JSON; v2 by default, v1 with --api v1")
    func demo() throws {
        let v1 = try CLI.run(["demo", "--api", "v1"])
        #expect(v1.status == 0, "\(v1.stdout.suffix(800))")
        #expect(v1.stdout.contains("the app speaks REST API v1") && !v1.stdout.contains("SandboxTempPass"))
        let outcome = try CLI.run(["demo", "--json"])
        #expect(outcome.status == 0, "\(outcome.stdout.suffix(800))")
        let report = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        #expect(report?["ok"] as? Bool == true)
        let lines = (report?["transcript"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        for expected in [
            "setRequestorComplete(1)", "MediaTokenVerifier(resourceID: news): VALID_TOKEN", "checkAuthorization(<MRSS ",
            "the media token: <authToken>, issueTime ", "presentTvProviderDialog", "status(VSA203",
            "status(REGCODE", "setMetadataStatus(\"Apple\"", "selectedProvider(SandboxCable)", "the app speaks REST API v2",
            "setSelectedProvider(SandboxPromoPass)", "a TempPass needs no login page: authenticated at once",
        ] {
            #expect(lines.contains { $0.contains(expected) }, "\(expected)")
        }
    }

    @Test("tvekit serve refuses to write the sandbox's private keys into a directory others can read")
    func keysOutPermissions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try CLI.run(["serve", "--port", "0", "--keys-out", directory.path])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("not a private directory"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("metadata-private.pem").path))
    }

    @Test("tvekit serve --verifier-only verifies a token over HTTP and stops cleanly on SIGTERM")
    func serveVerifierOnly() async throws {
        let token = try CLI.run([
            "token", "issue", "--private-key", CLI.fixture("leaf.pkcs8.pem"), "--requestor", "r1", "--resource", "res",
            "--mvpd", "M", "--ttl", "600000",
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (process, collector, base) = try await Self.start([
            "--verifier-only", "--cert", CLI.fixture("leaf.cert.pem"), "--requestor", "r1",
        ])
        var request = URLRequest(url: try #require(URL(string: base + "/verify")))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token, "requestor": "r1", "resource": "res"])
        let (data, _) = try await URLSession.shared.data(for: request)
        #expect((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["result"] as? String == "VALID_TOKEN")
        #expect(try await Self.stop(process, signal: SIGTERM) == 0)
        #expect(collector.text.contains("POST /verify 200"))
        #expect(!collector.text.contains(token.prefix(40)))
    }

    @Test("tvekit serve (the sandbox, no configuration) registers an app, lists the sandbox MVPDs, and stops cleanly on SIGINT")
    func serveSandbox() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, collector, base) = try await Self.start(["--keys-out", directory.path])
        defer { if process.isRunning { process.terminate() } }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("metadata-private.pem").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        func call(_ path: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) async throws -> (
            Int, [String: Any]
        ) {
            let url = try #require(URL(string: base + path))
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.httpBody = body
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession.shared.data(for: request)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            )
        }
        let statement = String(decoding: try Data(contentsOf: directory.appendingPathComponent("software-statement.jwt")), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (registered, client) = try await call(
            "/o/client/register", method: "POST",
            body: try JSONSerialization.data(withJSONObject: ["software_statement": statement]),
            headers: ["Content-Type": "application/json", "X-Device-Info": "e30="])
        #expect(registered == 201)
        let form =
            "client_id=\(client["client_id"] as? String ?? "")&client_secret=\(client["client_secret"] as? String ?? "")&grant_type=client_credentials"
        let (_, token) = try await call(
            "/o/client/token", method: "POST", body: Data(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        let bearer = "Bearer " + (try #require(token["access_token"] as? String))
        let (status, config) = try await call("/api/v1/config/tvekit-sandbox", headers: ["Authorization": bearer])
        #expect(status == 200)
        let mvpds = ((config["requestor"] as? [String: Any])?["mvpds"] as? [String: Any])?["mvpd"] as? [[String: Any]] ?? []
        #expect(mvpds.compactMap { $0["id"] as? String } == ["SandboxCable", "SandboxSSO"])
        #expect(try await call("/health").0 == 200)

        #expect(try await Self.stop(process, signal: SIGINT) == 0)
        // One log line per request, and never a secret.
        let log = collector.text
        #expect(log.contains("GET /api/v1/config/{requestor} 200"))
        #expect(!log.contains(bearer.dropFirst(7)))
        #expect(!log.contains(client["client_secret"] as? String ?? "-"))
    }
}
