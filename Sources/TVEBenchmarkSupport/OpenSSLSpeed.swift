import Foundation

/// Runs the `openssl speed` command of this machine and reads its RSA lines.
package enum OpenSSLSpeed {
    /// One key size's rates.
    package struct Figures: Sendable {
        package var sign: Double
        package var verify: Double
    }

    /// Runs `openssl speed -seconds SECONDS rsaBITS...` and returns sign/s and verify/s for each size.
    package static func run(seconds: Int, bits: [Int]) throws(SpeedError) -> (version: String, figures: [Int: Figures]) {
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
    package static func parse(_ text: String, bits: [Int]) throws(SpeedError) -> [Int: Figures] {
        let lines = text.split(separator: "\n").map { $0.split(separator: " ") }
        var figures: [Int: Figures] = [:]
        for size in bits {
            guard let index = lines.firstIndex(where: { $0.count > 3 && $0[0] == "rsa" && $0[1] == "\(size)" && $0[2] == "bits" }) else {
                throw SpeedError.openSSLSpeed(reason: "could not read the rsa \(size) line of `openssl speed`")
            }
            // The nearest header above the line names the rate columns, in order.
            guard let header = lines[..<index].last(where: { $0.contains("sign/s") }) else {
                throw SpeedError.openSSLSpeed(reason: "could not find the column names of `openssl speed`")
            }
            let names = header.filter { $0.hasSuffix("/s") }
            // After "rsa 2048 bits": the times ("0.000220s", not numbers), then the rates.
            let rates = lines[index].dropFirst(3).compactMap { Double($0) }
            guard rates.count == names.count, let sign = names.firstIndex(of: "sign/s"), let verify = names.firstIndex(of: "verify/s")
            else {
                throw SpeedError.openSSLSpeed(
                    reason: "could not read the figures of `openssl speed`: \(lines[index].joined(separator: " "))")
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
    private static func output(_ arguments: [String]) throws(SpeedError) -> String {
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
        guard spawned == 0 else { throw SpeedError.openSSLSpeed(reason: "cannot run openssl (error \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw SpeedError.openSSLSpeed(reason: "openssl \(arguments.joined(separator: " ")) failed") }
        guard let data = FileManager.default.contents(atPath: output.path) else {
            throw SpeedError.openSSLSpeed(reason: "cannot read the output of openssl")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
