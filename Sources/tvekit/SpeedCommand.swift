import ArgumentParser
import Foundation
@_spi(Benchmarks) import TVECrypto
import TVETokens
import TVEMetadata
import TVESAML

struct SpeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Measure operations per second of the TVECrypto API on this machine, like `openssl speed`.",
        discussion: """
            Operations (one thread, keys loaded once, as a server would hold them):
              rsa2048-verify               RSASSA-PKCS1-v1_5 SHA-256 verify of a 400-byte message (hash included)
              rsa1024-verify               the same with an RSA-1024 key (generated with OpenSSL directly: TVEKit
                                           generates no keys under 2048 bits), the size real Adobe tokens use
              rsa2048-sign                 RSASSA-PKCS1-v1_5 SHA-256 sign of the same message (hash included)
              rsa2048-decrypt-pkcs1        RSAES-PKCS1-v1_5 decrypt of one block
              rsa2048-decrypt-oaep-sha256  RSAES-OAEP (SHA-256, MGF1-SHA-256) decrypt of one block
              base64-decode                Base64.decode(buffer:options: .ignoringWhitespace) of a serialized media token
                                           (about 580 bytes, no whitespace); its baseline is OpenSSL's EVP_DecodeBlock
              token-parse                  strict parse of a serialized (Base64) media token, signature not checked;
                                           its baseline is EVP_DecodeBlock of the same bytes (the decoding alone)
              token-parse-text             the same for the raw token text (no outer Base64; no baseline)
              token-verify                 MediaTokenVerifier.verify of the same serialized token: Base64 decode, parse,
                                           RSA-2048 SHA-256 verify, requestor/resource/time checks
              token-verify-1024, token-verify-1024-text
                                           MediaTokenVerifier.verify of a real Adobe media token of 2017 (serialized as
                                           Base64, and as raw text) with the RSA-1024 key recovered from real tokens
                                           (FORMATS.md §1), at a fixed time within its lifetime
              metadata-decrypt             MetadataDecryptor.decrypt of a REST v1 user-metadata document with five
                                           encrypted keys (one PKCS#1 v1.5 block each) and two plain ones; its
                                           baseline is five bare decryptions, and against `openssl speed` it is
                                           compared with sign/s ÷ 5
              saml-verify-5k, saml-verify-50k
                                           SAMLResponseVerifier.verify of a signed Response of about 5 KB and
                                           50 KB (parse, structure, exc-c14n, RSA-2048 SHA-256, semantics); the
                                           script Benchmarks/saml-compare compares it with python-xmlsec and signxml
            Each operation alternates 50 ms slices of the TVEKit call with the bare OpenSSL call that `openssl speed`
            times (EVP_PKEY_verify/sign/decrypt on a context set up once), on the same key, or with EVP_DecodeBlock
            for the Base64 and parse operations; "ratio" is TVEKit's rate over that baseline, paired slice by slice so
            that changes in the machine's speed cancel out.
            With --compare-openssl, the measurement runs in rounds (one per second of --seconds, at least two): each
            round measures every operation for one second and runs `openssl speed -seconds 1 rsa1024 rsa2048` (only
            the sizes the chosen operations need), alternating which goes first, and each RSA figure is divided by the
            mean of OpenSSL's verify/s (for verify) or sign/s (for the private-key operations) of the same key size, so
            both sides see the same machine.
            """
    )

    @Option(name: .long, help: "Seconds to spend on each operation (TVEKit and baseline together).")
    var seconds: Double = 4

    @Flag(name: .long, help: "Also run `openssl speed rsa1024 rsa2048`, interleaved in one-second rounds, and report ratios against it.")
    var compareOpenssl = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Argument(help: "The operations to measure (all when none is named), for example `token-verify`.")
    var only: [String] = []

    static let operationNames = [
        "rsa2048-verify", "rsa1024-verify", "rsa2048-sign", "rsa2048-decrypt-pkcs1",
        "rsa2048-decrypt-oaep-sha256", "base64-decode", "token-parse", "token-parse-text",
        "token-verify", "token-verify-1024", "token-verify-1024-text", "metadata-decrypt",
        "saml-verify-5k", "saml-verify-50k",
    ]

    struct Result: Encodable {
        var operation: String
        var operations: Int
        var seconds: Double
        var opsPerSecond: Double
        var baselineOpsPerSecond: Double?
        var ratioToBaseline: Double?
        var opensslSpeedOpsPerSecond: Double?
        var ratioToOpensslSpeed: Double?
    }

    struct Report: Encodable {
        var opensslVersion: String?
        var results: [Result]
    }

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        for name in only where !Self.operationNames.contains(name) {
            throw ValidationError("unknown operation '\(name)'; the operations are \(Self.operationNames.joined(separator: ", "))")
        }
    }

    func run() async throws {
        Output.progress("generating an RSA-2048 key...")
        let key = try RSAPrivateKey(keySizeInBits: 2048)
        let publicKey = key.publicKey
        let message = try SecureRandom.bytes(count: 400)
        let signature = try key.signature(for: message)
        let secret = try SecureRandom.bytes(count: 32)
        let pkcs1Ciphertext = try publicKey.encrypt(secret, padding: ._weakAndInsecurePKCS1v15)
        let oaepCiphertext = try publicKey.encrypt(secret, padding: .oaepSHA256)
        let baseline = try OpenSSLBaseline(key: key, message: message)
        let now = SystemMediaTokenClock().nowMilliseconds
        let token = try MediaTokenIssuer(privateKey: key).issue(
            requestorID: "tvekit-speed", resourceID: "tvekit-resource",
            mvpdId: "SpeedMVPD", issueTime: now)
        let serializedToken = Array(token.serialized.utf8)
        let verifier = try MediaTokenVerifier(
            trustedKeys: [publicKey], requestorID: "tvekit-speed",
            clock: FixedMediaTokenClock(milliseconds: now))
        let base64Baseline = try OpenSSLBase64Baseline(encoded: serializedToken)

        // RSA-1024: a key pair made by OpenSSL directly (TVEKit generates no keys under 2048 bits).
        Output.progress("generating an RSA-1024 key...")
        let rsa1024 = try OpenSSLVerifyBaseline.generatingKeyPair(keySizeInBits: 1024, message: message)

        // The real Adobe token, verified with the recovered key at a time within its lifetime, as raw text and as
        // Base64 (the serialized form); its baseline is the bare verify of its signature with the same key.
        let adobeText = Array(Self.adobeToken.utf8)
        let adobeSerialized = Array(Base64.encode(adobeText).utf8)
        let adobeKey = try RSAPublicKey(encodedKeyOrCertificate: Array(Self.adobeKeyPEM.utf8), allowing1024BitKeys: true)
        let adobeVerifier = try MediaTokenVerifier(
            trustedKeys: [adobeKey], requestorID: "MML",
            clock: FixedMediaTokenClock(milliseconds: Self.adobeTokenValidAt),
            allowing1024BitKeys: true)
        let adobeBaseline = try Self.adobeBaseline()
        for (form, bytes) in [("raw", adobeText), ("Base64", adobeSerialized)] {
            let outcome = adobeVerifier.verify(bytes, resourceID: "truTV")
            guard outcome.isValid else {
                throw CLIError(message: "the real Adobe token (\(form)) does not verify: \(outcome.result) \(outcome.reason)")
            }
        }

        // A REST v1 document with five encrypted keys (one RSA block each) and two plain ones.
        let plainMetadata = UserMetadata(
            updated: 1_334_243_471,
            values: [
                "zip": .array([.string("12345"), .string("34567")]), "householdID": .string("household-0001"),
                "maxRating": .object([
                    "MPAA": .string("PG-13"), "VCHIP": .string("TV-Y"), "URL": .string("http://exam.pl/e/manage/ratings"),
                ]),
                "userID": .string("user-0001"), "channelID": .array([.string("channel-1"), .string("channel-2")]),
                "tokenSource": .string("Apple"), "hba_status": .bool(false),
            ])
        let metadataDocument = Array(
            try MetadataEncryptor(publicKey: publicKey)
                .encryptDocument(plainMetadata, encrypting: ["zip", "householdID", "maxRating", "userID", "channelID"]).jsonText.utf8)
        let decryptor = MetadataDecryptor(privateKey: key)
        // Signed SAML responses of about 5 KB and 50 KB (the Assertion signed), verified with the key pinned.
        let samlIssued = Date()
        func samlResponse(bytes target: Int) throws -> [UInt8] {
            var builder = SAMLResponseBuilder(
                issuer: "https://idp.mvpd.example/saml", destination: "https://sp.tvekit.example/saml/acs",
                audience: "https://sp.tvekit.example/saml", inResponseTo: "_req-0001",
                nameID: "user-0001@mvpd.example", issueInstant: samlIssued)
            while builder.xml().utf8.count < target - 1_900 {  // the signature adds about 1.9 KB
                let index = builder.attributes.count
                builder.attributes.append(SSOAttribute(name: "attribute-\(index)", values: ["value-\(index)-a", "value-\(index)-b"]))
            }
            return try SAMLSigner(privateKey: key).sign(Array(builder.xml().utf8), targets: .assertion)
        }
        let saml5k = try samlResponse(bytes: 5_000)
        let saml50k = try samlResponse(bytes: 50_000)
        let samlVerifier = try SAMLResponseVerifier(
            configuration: SAMLVerifierConfiguration(
                idpKeys: [publicKey], idpEntityID: "https://idp.mvpd.example/saml", spEntityID: "https://sp.tvekit.example/saml",
                acsURL: "https://sp.tvekit.example/saml/acs", requestID: "_req-0001", clock: { samlIssued.addingTimeInterval(60) }))

        let allOperations: [Operation] = [
            Operation(name: "rsa2048-verify", batch: 32, baseline: baseline.verify, openssl: .verify(2048)) {
                publicKey.isValidSignature(signature, for: message)
            },
            Operation(name: "rsa1024-verify", batch: 64, baseline: rsa1024.baseline.verify, openssl: .verify(1024)) {
                rsa1024.publicKey.isValidSignature(rsa1024.signature, for: message)
            },
            Operation(name: "rsa2048-sign", batch: 2, baseline: baseline.sign, openssl: .sign(2048)) {
                try key.signature(for: message).count == 256
            },
            Operation(name: "rsa2048-decrypt-pkcs1", batch: 2, baseline: baseline.decrypt, openssl: .sign(2048)) {
                try key.decrypt(pkcs1Ciphertext, padding: ._weakAndInsecurePKCS1v15).count == 32
            },
            Operation(name: "rsa2048-decrypt-oaep-sha256", batch: 2, baseline: baseline.decrypt, openssl: .sign(2048)) {
                try key.decrypt(oaepCiphertext, padding: .oaepSHA256).count == 32
            },
            Operation(name: "base64-decode", batch: 256, baseline: base64Baseline.decode) {
                try serializedToken.withUnsafeBytes { try Base64.decode(buffer: $0, options: .ignoringWhitespace) }.count
                    == token.text.count
            },
            Operation(name: "token-parse", batch: 256, baseline: base64Baseline.decode) {
                try ShortMediaToken(parsing: serializedToken).ttl == MediaTokenIssuer.defaultTTL
            },
            Operation(name: "token-parse-text", batch: 256, baseline: nil) {
                try ShortMediaToken(parsing: token.text).ttl == MediaTokenIssuer.defaultTTL
            },
            Operation(name: "token-verify", batch: 32, baseline: baseline.verify, openssl: .verify(2048)) {
                verifier.verify(serializedToken, resourceID: "tvekit-resource").isValid
            },
            Operation(name: "token-verify-1024", batch: 64, baseline: adobeBaseline.verify, openssl: .verify(1024)) {
                adobeVerifier.verify(adobeSerialized, resourceID: "truTV").isValid
            },
            Operation(name: "token-verify-1024-text", batch: 64, baseline: adobeBaseline.verify, openssl: .verify(1024)) {
                adobeVerifier.verify(adobeText, resourceID: "truTV").isValid
            },
            Operation(
                name: "metadata-decrypt", batch: 1,
                baseline: {
                    baseline.decrypt() && baseline.decrypt() && baseline.decrypt() && baseline.decrypt() && baseline.decrypt()
                }, openssl: .sign(2048), opensslOperations: 5
            ) {
                try decryptor.decrypt(jsonText: metadataDocument).values.count == 7
            },
            Operation(name: "saml-verify-5k", batch: 8, baseline: nil) {
                try samlVerifier.verify(saml5k).nameID == "user-0001@mvpd.example"
            },
            Operation(name: "saml-verify-50k", batch: 1, baseline: nil) {
                try samlVerifier.verify(saml50k).nameID == "user-0001@mvpd.example"
            },
        ]
        let operations = only.isEmpty ? allOperations : allOperations.filter { only.contains($0.name) }

        // Without --compare-openssl: one round of `seconds` per operation. With it: rounds of one second per
        // operation, alternating (A B B A ...) with one-second runs of `openssl speed`, so that both sides are
        // measured under the same conditions on a machine whose speed drifts.
        let rounds = compareOpenssl ? max(2, Int(seconds.rounded(.up))) : 1
        let slice = compareOpenssl ? 1.0 : seconds
        var totals = [Tally](repeating: Tally(), count: operations.count)
        // The RSA sizes the chosen operations are compared at; `openssl speed` runs only when there is one.
        let opensslBits = compareOpenssl ? Array(Set(operations.compactMap { $0.openssl?.bits })).sorted() : []
        var opensslRuns: [[Int: OpenSSLSpeed.Figures]] = []
        var version: String? = nil
        for round in 0..<rounds {
            let opensslFirst = round % 2 == 1
            if !opensslBits.isEmpty, opensslFirst {
                try runOpenSSL(bits: opensslBits, round: round, rounds: rounds, into: &opensslRuns, version: &version)
            }
            for (index, operation) in operations.enumerated() {
                Output.progress("round \(round + 1)/\(rounds): measuring \(operation.name) for \(slice) s...")
                totals[index].add(try measure(operation, seconds: slice))
            }
            if !opensslBits.isEmpty, !opensslFirst {
                try runOpenSSL(bits: opensslBits, round: round, rounds: rounds, into: &opensslRuns, version: &version)
            }
        }

        var results: [Result] = []
        for (operation, tally) in zip(operations, totals) {
            let rate = Double(tally.ours) / tally.oursSeconds
            let baselineRate = tally.bare > 0 ? Double(tally.bare) / tally.bareSeconds : nil
            var result = Result(
                operation: operation.name, operations: tally.ours, seconds: tally.oursSeconds, opsPerSecond: rate,
                baselineOpsPerSecond: baselineRate, ratioToBaseline: baselineRate.map { rate / $0 })
            if let figure = operation.openssl {
                let values = opensslRuns.compactMap { $0[figure.bits].map { figure.isVerify ? $0.verify : $0.sign } }
                guard !values.isEmpty else { results.append(result); continue }
                let reference = values.reduce(0, +) / Double(values.count) / operation.opensslOperations
                result.opensslSpeedOpsPerSecond = reference
                result.ratioToOpensslSpeed = rate / reference
            }
            results.append(result)
        }

        if json {
            print(try Output.json(Report(opensslVersion: version, results: results)))
            return
        }
        if let version { print("openssl speed: \(version)") }
        print("operation                       ops/s  baseline ops/s  ratio" + (compareOpenssl ? "  openssl speed  ratio" : ""))
        for result in results {
            var line = result.operation.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%10.1f", result.opsPerSecond)
            if let baseline = result.baselineOpsPerSecond, let ratio = result.ratioToBaseline {
                line += String(format: "  %14.1f  %5.2f", baseline, ratio)
            } else {
                line += "               -      -"
            }
            if let reference = result.opensslSpeedOpsPerSecond, let ratio = result.ratioToOpensslSpeed {
                line += String(format: "  %13.1f  %5.2f", reference, ratio)
            }
            print(line)
        }
    }

    /// The `openssl speed` figure an operation is compared with: verify/s or sign/s of one RSA key size.
    enum OpenSSLFigure {
        case verify(Int)
        case sign(Int)

        var bits: Int {
            switch self {
            case .verify(let bits), .sign(let bits): bits
            }
        }

        var isVerify: Bool {
            if case .verify = self { return true }
            return false
        }
    }

    /// One operation to measure: the TVEKit call and the bare OpenSSL call it is paired with.
    struct Operation {
        var name: String
        var batch: Int
        var baseline: (() -> Bool)?
        /// The `openssl speed` figure for --compare-openssl; `nil` for operations that `openssl speed` has no match for.
        var openssl: OpenSSLFigure?
        /// How many `openssl speed` operations one call stands for (5 private-key operations for metadata-decrypt).
        var opensslOperations: Double
        var body: () throws -> Bool
        init(
            name: String, batch: Int, baseline: (() -> Bool)?, openssl: OpenSSLFigure? = nil, opensslOperations: Double = 1,
            _ body: @escaping () throws -> Bool
        ) {
            self.name = name
            self.batch = batch
            self.baseline = baseline
            self.openssl = openssl
            self.opensslOperations = opensslOperations
            self.body = body
        }
    }

    /// Operation counts and times, summed over rounds.
    struct Tally {
        var ours = 0
        var oursSeconds = 0.0
        var bare = 0
        var bareSeconds = 0.0
        mutating func add(_ other: Tally) {
            ours += other.ours
            oursSeconds += other.oursSeconds
            bare += other.bare
            bareSeconds += other.bareSeconds
        }
    }

    private func runOpenSSL(
        bits: [Int], round: Int, rounds: Int, into runs: inout [[Int: OpenSSLSpeed.Figures]],
        version: inout String?
    ) throws {
        let algorithms = bits.map { "rsa\($0)" }.joined(separator: " ")
        Output.progress("round \(round + 1)/\(rounds): running openssl speed -seconds 1 \(algorithms)...")
        let (opensslVersion, figures) = try OpenSSLSpeed.run(seconds: 1, bits: bits)
        version = opensslVersion
        runs.append(figures)
    }

    /// Alternates 50 ms slices of the operation and its baseline until `seconds` have passed; every call must
    /// succeed.
    private func measure(_ operation: Operation, seconds: Double) throws -> Tally {
        for _ in 0..<operation.batch {
            guard try operation.body(), operation.baseline?() ?? true else {
                throw CLIError(message: "\(operation.name) gave a wrong result")
            }
        }
        let clock = ContinuousClock()
        let slice = Duration.milliseconds(50)
        let end = clock.now + .milliseconds(Int64(seconds * 1000))
        var tally = Tally()
        var allCorrect = true
        while clock.now < end {
            var start = clock.now
            var now = start
            repeat {
                for _ in 0..<operation.batch { allCorrect = try operation.body() && allCorrect }
                tally.ours += operation.batch
                now = clock.now
            } while now - start < slice
            tally.oursSeconds += (now - start) / .seconds(1)
            guard let baseline = operation.baseline else { continue }
            start = clock.now
            repeat {
                for _ in 0..<operation.batch { allCorrect = baseline() && allCorrect }
                tally.bare += operation.batch
                now = clock.now
            } while now - start < slice
            tally.bareSeconds += (now - start) / .seconds(1)
        }
        guard allCorrect else { throw CLIError(message: "\(operation.name) gave a wrong result") }
        return tally
    }
}

extension SpeedCommand {
    // A real Adobe media token of 2017 and the RSA-1024 key recovered from real tokens; see FORMATS.md §1. Both
    // are public evidence (the token expired long ago), not a trust anchor.
    static let adobeToken =
        "<signatureInfo>Xv1rtBY0MP5/CkaobJcjdkz0/f3gZ9248XqG7hULT5qWA0UZP04AY2efA21VBxBR5r1IWZMNx5doAPmYk9SKnaKdN45T88BdoOO8aeQeet2sEDXSHu+qjBLLYcW6+qNcxU3TT1KzQkqv90vIq6BdlqDEHbI5p/pwwWVX9hAB9+M=<signatureInfo><authToken><sessionGUID>a6c1d2fa9725d7857b6a9d3aa9195040</sessionGUID><requestorID>MML</requestorID><resourceID>truTV</resourceID><ttl>420000</ttl><issueTime>2017-03-15 16:40:46 -0700</issueTime><mvpdId>TWC</mvpdId></authToken>"

    static let adobeKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC30++qBo/WyMfUcB7veNHJiMVX
        t1zouTNtrWfQ81mJm9uSmYJs1booWq05vepNpHYSp3X50xLS8uYe7Ml88sjGppy0
        rZB/Fc5Lq/7aukxw6/lWBzeP0WGUVtwukA7KdyOr1qNHrLNGYjuMs6yLaOB1Gssb
        Z0+y13F/6yQHFCFuwwIDAQAB
        -----END PUBLIC KEY-----
        """

    /// Two seconds after the token's issue time (2017-03-15 16:40:46 -0700); its lifetime is 420 s.
    static let adobeTokenValidAt: Int64 = 1_489_621_246_000 + 2_000

    /// The bare verify of the Adobe token's signature over its signed bytes (`<authToken>` to the end), with the
    /// same key: cut out of the text directly, so that the baseline does not depend on the token parser.
    static func adobeBaseline() throws -> OpenSSLVerifyBaseline {
        let open = "<signatureInfo>"
        guard adobeToken.hasPrefix(open), let close = adobeToken.range(of: open, range: open.endIndex..<adobeToken.endIndex),
            let signed = adobeToken.range(of: "<authToken>")
        else { throw CLIError(message: "the embedded Adobe token has an unexpected shape") }
        let signature = try Base64.decode(adobeToken[open.endIndex..<close.lowerBound])
        let key = try RSAPublicKey(unsafePEMRepresentation: adobeKeyPEM)
        return try OpenSSLVerifyBaseline(publicKey: key, signature: signature, message: Array(adobeToken[signed.lowerBound...].utf8))
    }
}

/// Runs the `openssl speed` command of this machine and reads its RSA lines.
enum OpenSSLSpeed {
    /// One key size's rates.
    struct Figures {
        var sign: Double
        var verify: Double
    }

    /// Runs `openssl speed -seconds SECONDS rsaBITS...` and returns sign/s and verify/s for each size.
    static func run(seconds: Int, bits: [Int]) throws -> (version: String, figures: [Int: Figures]) {
        let version = try output(["version"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let text = try output(["speed", "-seconds", String(seconds)] + bits.map { "rsa\($0)" })
        return (version, try parse(text, bits: bits))
    }

    /// Reads the summary table of `openssl speed`:
    ///
    ///     "                  sign    verify    sign/s verify/s"
    ///     "rsa 2048 bits 0.000220s 0.000014s   4550.8  72286.3"
    ///
    /// OpenSSL 3.2 and later add encryption and decryption columns ("encr./s", "decr./s"), so the rates are
    /// matched with the header's column names rather than taken from the end of the line.
    static func parse(_ text: String, bits: [Int]) throws -> [Int: Figures] {
        let lines = text.split(separator: "\n").map { $0.split(separator: " ") }
        var figures: [Int: Figures] = [:]
        for size in bits {
            guard let index = lines.firstIndex(where: { $0.count > 3 && $0[0] == "rsa" && $0[1] == "\(size)" && $0[2] == "bits" }) else {
                throw CLIError(message: "could not read the rsa \(size) line of `openssl speed`")
            }
            // The nearest header above the line names the rate columns, in order.
            guard let header = lines[..<index].last(where: { $0.contains("sign/s") }) else {
                throw CLIError(message: "could not find the column names of `openssl speed`")
            }
            let names = header.filter { $0.hasSuffix("/s") }
            // After "rsa 2048 bits": the times ("0.000220s", not numbers), then the rates.
            let rates = lines[index].dropFirst(3).compactMap { Double($0) }
            guard rates.count == names.count, let sign = names.firstIndex(of: "sign/s"), let verify = names.firstIndex(of: "verify/s")
            else {
                throw CLIError(message: "could not read the figures of `openssl speed`: \(lines[index].joined(separator: " "))")
            }
            figures[size] = Figures(sign: rates[sign], verify: rates[verify])
        }
        return figures
    }

    /// Runs `openssl ARGUMENTS` and returns its standard output.
    ///
    /// `openssl speed` times itself with `alarm()`. A child inherits the signal mask of the thread that
    /// spawns it, and Swift's concurrency threads block SIGALRM, so the child is spawned with an empty signal
    /// mask and default handlers; otherwise its timer never fires and it runs forever.
    private static func output(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-openssl-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGALRM)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["openssl"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, "openssl", &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw CLIError(message: "cannot run openssl (error \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw CLIError(message: "openssl \(arguments.joined(separator: " ")) failed") }
        guard let data = FileManager.default.contents(atPath: output.path) else {
            throw CLIError(message: "cannot read the output of openssl")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
