import ArgumentParser
import Foundation
import TVECrypto

struct SpeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Measure operations per second of the TVECrypto API on this machine, like `openssl speed`.",
        discussion: """
        Operations (one thread, keys loaded once, as a server would hold them):
          rsa2048-verify               RSASSA-PKCS1-v1_5 SHA-256 verify of a 400-byte message (hash included)
          rsa2048-sign                 RSASSA-PKCS1-v1_5 SHA-256 sign of the same message
          rsa2048-decrypt-pkcs1        RSAES-PKCS1-v1_5 decrypt of one block
          rsa2048-decrypt-oaep-sha256  RSAES-OAEP (SHA-256, MGF1-SHA-256) decrypt of one block
        With --compare-openssl, `openssl speed rsa2048` runs right after, and each figure is given as a ratio of
        OpenSSL's verify/s (for verify) or sign/s (for the private-key operations).
        """
    )

    @Option(name: .long, help: "Seconds to spend on each operation.")
    var seconds: Double = 3

    @Flag(name: .long, help: "Also run `openssl speed -seconds N rsa2048` and report ratios.")
    var compareOpenssl = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    struct Result: Encodable {
        var operation: String
        var operations: Int
        var seconds: Double
        var opsPerSecond: Double
        var opensslOpsPerSecond: Double?
        var ratioToOpenSSL: Double?
    }

    struct Report: Encodable {
        var opensslVersion: String?
        var results: [Result]
    }

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
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

        var results: [Result] = []
        results.append(try measure("rsa2048-verify", batch: 64) { publicKey.isValidSignature(signature, for: message) })
        results.append(try measure("rsa2048-sign", batch: 4) { try key.signature(for: message).count == 256 })
        results.append(try measure("rsa2048-decrypt-pkcs1", batch: 4) {
            try key.decrypt(pkcs1Ciphertext, padding: ._weakAndInsecurePKCS1v15).count == 32
        })
        results.append(try measure("rsa2048-decrypt-oaep-sha256", batch: 4) {
            try key.decrypt(oaepCiphertext, padding: .oaepSHA256).count == 32
        })

        var version: String? = nil
        if compareOpenssl {
            Output.progress("running openssl speed -seconds \(Int(seconds.rounded(.up))) rsa2048 ...")
            let (opensslVersion, sign, verify) = try OpenSSLSpeed.run(seconds: Int(seconds.rounded(.up)))
            version = opensslVersion
            for index in results.indices {
                let reference = results[index].operation == "rsa2048-verify" ? verify : sign
                results[index].opensslOpsPerSecond = reference
                results[index].ratioToOpenSSL = results[index].opsPerSecond / reference
            }
        }

        if json {
            print(try Output.json(Report(opensslVersion: version, results: results)))
            return
        }
        if let version { print("compared with: \(version)") }
        print("operation                      ops/s" + (compareOpenssl ? "     openssl ops/s   ratio" : ""))
        for result in results {
            var line = result.operation.padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(format: "%10.1f", result.opsPerSecond)
            if let reference = result.opensslOpsPerSecond, let ratio = result.ratioToOpenSSL {
                line += String(format: "    %12.1f   %5.2f", reference, ratio)
            }
            print(line)
        }
    }

    /// Runs `body` in batches until `seconds` have passed; every call must return `true`.
    private func measure(_ name: String, batch: Int, _ body: () throws -> Bool) throws -> Result {
        Output.progress("measuring \(name) for \(seconds) s...")
        for _ in 0..<batch { guard try body() else { throw CLIError(message: "\(name) gave a wrong result") } }
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int64(seconds * 1000))
        var count = 0
        var allCorrect = true
        var now = start
        repeat {
            for _ in 0..<batch { allCorrect = try body() && allCorrect }
            count += batch
            now = clock.now
        } while now < deadline
        guard allCorrect else { throw CLIError(message: "\(name) gave a wrong result") }
        let elapsed = (now - start) / .seconds(1)
        return Result(operation: name, operations: count, seconds: elapsed, opsPerSecond: Double(count) / elapsed)
    }
}

/// Runs the `openssl speed` command of this machine and reads its RSA-2048 line.
enum OpenSSLSpeed {
    static func run(seconds: Int) throws -> (version: String, sign: Double, verify: Double) {
        let version = try output(["version"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let text = try output(["speed", "-seconds", String(seconds), "rsa2048"])
        // "rsa 2048 bits 0.000220s 0.000014s   4550.8  72286.3"
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rsa 2048 bits") }) else {
            throw CLIError(message: "could not read the rsa 2048 line of `openssl speed`")
        }
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        guard numbers.count >= 3, let sign = numbers.dropLast().last, let verify = numbers.last else {
            throw CLIError(message: "could not read the figures of `openssl speed`: \(line)")
        }
        return (version, sign, verify)
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
