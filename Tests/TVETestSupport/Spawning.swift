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
/// - ``launch(_:arguments:environment:standardOutput:standardError:)`` starts the children that run beside a test
///   (servers it signals), the same way.
package enum Spawning {
    private static let lock = NSLock()

    /// Where a launched child's output goes.
    package enum Output: Sendable {
        /// `/dev/null`.
        case discarded
        /// A pipe, whose reading end is the child's ``Child/standardOutput`` or ``Child/standardError``.
        case piped
    }

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments` and `environment`, standard input
    /// from `/dev/null`, and returns at once: for children that run beside the test (servers it signals, a login that
    /// waits for a browser). Read their output from the returned handles; end them with ``Child/signal(_:)`` or
    /// ``Child/terminate()``.
    package static func launch(
        _ executable: String, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        standardOutput: Output = .discarded, standardError: Output = .discarded
    ) throws -> Child {
        let spawned = try spawn(
            executable, arguments: arguments, environment: environment, input: nil, output: standardOutput == .piped,
            errors: standardError == .piped)
        return Child(
            pid: spawned.pid,
            standardOutput: spawned.output.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) },
            standardError: spawned.errors.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) })
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
        // The input goes through a file, so that writing it can never wait for the child.
        var inputFile: URL? = nil
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-stdin-\(UUID().uuidString)")
            try input.write(to: file)
            inputFile = file
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        let spawned = try spawn(
            executable, arguments: arguments, environment: environment, input: inputFile?.path, output: true, errors: true)
        defer { [spawned.output, spawned.errors].compactMap { $0 }.forEach { close($0) } }
        // Standard error on a thread of its own, standard output here: neither pipe can fill up and block the child.
        let errorReader = PipeReader(descriptor: spawned.errors ?? -1)
        Thread { errorReader.readToEnd() }.start()
        let outputReader = PipeReader(descriptor: spawned.output ?? -1)
        outputReader.readToEnd()
        errorReader.finished.wait()
        return Outcome(status: Child.wait(for: spawned.pid), stdout: outputReader.data, stderr: errorReader.data)
    }

    /// Starts a child: standard input from `input` (a file's path) or `/dev/null`; standard output and error into pipes
    /// (whose reading ends are returned) or `/dev/null`.
    private static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], input: String?, output: Bool, errors: Bool
    ) throws -> (pid: pid_t, output: Int32?, errors: Int32?) {
        var pipes: [[Int32]] = []
        var handedOver = false
        defer { if !handedOver { pipes.joined().forEach { close($0) } } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)

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
            for (target, wanted) in [(Int32(1), output), (Int32(2), errors)] {
                guard wanted else {
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                    continue
                }
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw SpawnError(description: "pipe: errno \(errno)") }
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                pipes.append(ends)
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
            }
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
        for ends in pipes { close(ends[1]) }
        handedOver = true
        var readers = pipes.map { $0[0] }[...]
        return (pid, output ? readers.popFirst() : nil, errors ? readers.popFirst() : nil)
    }
}

/// A child started by ``Spawning/launch(_:arguments:environment:standardOutput:standardError:)``: the part of
/// Foundation's `Process` that the tests use.
package final class Child: @unchecked Sendable {
    // `status` is guarded by `lock`.
    private let lock = NSLock()
    private var status: Int32?
    /// The child's process ID.
    package let processIdentifier: pid_t
    /// The reading end of the child's standard output, when piped.
    package let standardOutput: FileHandle?
    /// The reading end of the child's standard error, when piped.
    package let standardError: FileHandle?

    init(pid: pid_t, standardOutput: FileHandle?, standardError: FileHandle?) {
        processIdentifier = pid
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Whether the child still runs (reaps it once it has ended).
    package var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
        status = Self.decode(raw)
        return false
    }

    /// The exit status, or 128 + the signal's number; waits for the child to end.
    package var terminationStatus: Int32 {
        waitUntilExit()
        lock.lock()
        defer { lock.unlock() }
        return status ?? -1
    }

    /// Sends `number` to the child.
    package func signal(_ number: Int32) { kill(processIdentifier, number) }

    /// Sends SIGTERM.
    package func terminate() { signal(SIGTERM) }

    /// Waits for the child to end.
    package func waitUntilExit() {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return }
        status = Self.wait(for: processIdentifier)
    }

    deinit {
        // A child nobody waited for is stopped and reaped, so that it neither outlives the test nor stays a zombie.
        if status == nil {
            kill(processIdentifier, SIGKILL)
            _ = Self.wait(for: processIdentifier)
        }
    }

    /// `waitpid` until it answers; the decoded status.
    static func wait(for pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        return decode(raw)
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import: the exit status, or 128 + the signal.
    static func decode(_ raw: Int32) -> Int32 { (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f) }
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
