import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts child processes for the tests without the crash of swift-corelibs-foundation's `Process.run()`.
///
/// On Linux, `Process.run()` scans `/proc/self/fd` with a `memcpy` of each entry's whole 256-byte name, which can read
/// past the end of glibc's directory buffer (swift-corelibs-foundation pull request 5472, merged in 2026). A test process
/// that starts hundreds of children while it holds many descriptors (the Wycheproof CLI test, beside servers and database
/// connections) crashed in that `memcpy` in CI. So:
/// - ``run(_:arguments:environment:input:)`` starts short-lived children with `posix_spawn` directly, and collects
///   their output and status;
/// - ``start(_:)`` starts the few long-lived `Process` children (servers the tests signal) one at a time.
package enum Spawning {
    private static let lock = NSLock()

    /// Runs `process.run()` under a process-wide lock: for the few children a test must hold as a `Process`.
    package static func start(_ process: Process) throws {
        try locked { try process.run() }
    }

    private static func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// What a child printed, and how it ended.
    package struct Outcome: Sendable {
        /// The exit status; 128 + the signal's number when a signal ended it.
        package var status: Int32
        /// Standard output.
        package var stdout: Data
        /// Standard error.
        package var stderr: Data
    }

    /// Why a child could not be started.
    package struct SpawnError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs `executable` (a path, or a name looked up in `PATH`) with `arguments` and `environment` (the child's whole
    /// environment), with `input` on its standard input (none: `/dev/null`), and waits for it to end. Standard output
    /// and error are read as they come, so a child that writes a lot never blocks.
    package static func run(
        _ executable: String, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        input: Data? = nil
    ) throws -> Outcome {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        defer { (output + errors).filter { $0 >= 0 }.forEach { close($0) } }
        // The input goes through a file, so that writing it can never wait for the child.
        var inputFile: URL? = nil
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-stdin-\(UUID().uuidString)")
            try input.write(to: file)
            inputFile = file
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputFile?.path ?? "/dev/null", O_RDONLY, 0)

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned: Int32 = try locked {
            // The pipes are made and marked close-on-exec under the spawn lock, so that no other child started by the
            // tests can inherit them (it would hold a pipe open).
            for index in 0..<2 {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw SpawnError(description: "pipe: errno \(errno)") }
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                if index == 0 { output = ends } else { errors = ends }
            }
            posix_spawn_file_actions_adddup2(&actions, output[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
            return (argv + [nil]).withUnsafeBufferPointer { arguments in
                (envp + [nil]).withUnsafeBufferPointer { environment in
                    guard let arguments = arguments.baseAddress, let environment = environment.baseAddress else { return EINVAL }
                    return executable.contains("/")
                        ? posix_spawn(&pid, executable, &actions, nil, arguments, environment)
                        : posix_spawnp(&pid, executable, &actions, nil, arguments, environment)
                }
            }
        }
        guard spawned == 0 else { throw SpawnError(description: "cannot start \(executable): error \(spawned)") }
        // The parent keeps only the reading ends, so that each pipe ends when the child exits.
        close(output[1])
        output[1] = -1
        close(errors[1])
        errors[1] = -1

        // Standard error on a thread of its own, standard output here: neither pipe can fill up and block the child.
        let errorReader = PipeReader(descriptor: errors[0])
        Thread { errorReader.readToEnd() }.start()
        let outputReader = PipeReader(descriptor: output[0])
        outputReader.readToEnd()
        errorReader.finished.wait()

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: code, stdout: outputReader.data, stderr: errorReader.data)
    }
}

/// Reads a pipe to its end.
private final class PipeReader: @unchecked Sendable {
    // Written by one thread, then read by another after `finished` is signalled.
    private let descriptor: Int32
    private(set) var data = Data()
    let finished = DispatchSemaphore(value: 0)

    init(descriptor: Int32) { self.descriptor = descriptor }

    func readToEnd() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
