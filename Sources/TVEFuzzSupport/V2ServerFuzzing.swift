import Foundation
import HTTPTypes
import OpenAPIRuntime
import TVEConcurrency
import TVECrypto
import TVEPassAPIv2

/// The request half of the REST API v2 fuzzer: fuzzed HTTP requests through the generated server stubs' decoding (path
/// parameters, query, headers, form and JSON bodies), into a stub ``APIProtocol`` (``V2FuzzStub``), and its answer
/// back through the generated encoding.
///
/// Input (after the selector byte of ``V2Fuzzing``): one byte picks the operation (among those the generated
/// `registerHandlers` registers), one byte the `content-type` (low 3 bits), the `accept` header (bits 4 and 5) and
/// whether there is a body at all (bit 3); then, separated by NUL bytes: the first path parameter, the second, the
/// query, header lines (`Name: value`, or `N: value` with a digit for the `N`th of ``headerNames``), and the body
/// (the rest, NULs included).
public enum V2ServerFuzzing {
    /// One handler the generated code registered, with its method and path template.
    struct Operation: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let parameters: [String]
        let handler: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    }

    /// A transport that keeps what `registerHandlers(on:serverURL:)` gives it.
    final class CapturingTransport: ServerTransport {
        var operations: [Operation] = []

        func register(
            _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
            method: HTTPRequest.Method, path: String
        ) throws {
            operations.append(Operation(method: method, path: path, parameters: parameterNames(path), handler: handler))
        }
    }

    /// The generated server's operations, registered once on the stub, in registration order, behind the middleware
    /// that a v2 server needs against a trap of the runtime (``PassAPIv2/ContentTypeMiddleware``).
    static let operations: [Operation] = {
        let transport = CapturingTransport()
        do {
            try V2FuzzStub().registerHandlers(
                on: transport, serverURL: PassAPIv2.productionURL ?? .defaultOpenAPIServerURL,
                middlewares: [PassAPIv2.ContentTypeMiddleware()])
        } catch {
            V2Fuzzing.check(false, "the generated server did not register: \(error)")
        }
        return transport.operations
    }()

    /// The headers the `N: value` form names (`0` to `9`).
    static let headerNames = [
        "AP-Device-Identifier", "X-Device-Info", "AP-Partner-Framework-Status", "AP-TempPass-Identity", "Adobe-Subject-Token",
        "AD-Service-Token", "AP-Visitor-Identifier", "User-Agent", "Accept", "Content-Type",
    ]

    static let contentTypes = [
        "application/x-www-form-urlencoded", "application/json", "application/json; charset=utf-8",
        "application/x-www-form-urlencoded; charset=UTF-8", "text/plain", "multipart/form-data; boundary=x", "application/*", "",
    ]

    static let accepts = ["", "application/json", "*/*", "text/html, application/json;q=0.5"]

    /// The largest response body read back.
    static let maximumResponseBytes = 1 << 20

    /// Runs one request. Errors are expected; only a crash, a hang or a broken invariant is a finding.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2, !operations.isEmpty else { return }
        let operation = operations[Int(bytes[0]) % operations.count]
        let flags = bytes[1]
        var parts = Array(bytes.dropFirst(2)).split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
        while parts.count < 5 { parts.append([]) }
        let text = parts.prefix(4).map { String(decoding: $0, as: UTF8.self) }

        var pathParameters: [String: Substring] = [:]
        var path = operation.path
        for (index, name) in operation.parameters.enumerated() {
            let value = index < 2 ? text[index] : "x"
            pathParameters[name] = Substring(value)
            path = path.replacingOccurrences(of: "{\(name)}", with: value)
        }
        if !text[2].isEmpty { path += "?" + text[2] }

        var fields = HTTPFields()
        let contentType = contentTypes[Int(flags & 0x07)]
        if !contentType.isEmpty { fields[.contentType] = contentType }
        let accept = accepts[Int((flags >> 4) & 0x03)]
        if !accept.isEmpty { fields[.accept] = accept }
        for line in text[3].split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var name = String(line[..<colon])
            if name.utf8.count == 1, let digit = Int(name) { name = headerNames[digit] }
            guard let fieldName = HTTPField.Name(name) else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            fields.append(HTTPField(name: fieldName, value: String(value)))
        }

        let request = HTTPRequest(
            method: operation.method, scheme: "https", authority: "sp.auth.adobe.com", path: path, headerFields: fields)
        let body = flags & 0x08 == 0 ? HTTPBody(Array(parts[4])) : nil
        let metadata = ServerRequestMetadata(pathParameters: pathParameters)
        let handler = operation.handler
        let status = InlineExecutor.run { () async -> Int? in
            do {
                let (response, responseBody) = try await handler(request, body, metadata)
                if let responseBody { _ = try await [UInt8](collecting: responseBody, upTo: maximumResponseBytes) }
                return response.status.code
            } catch {
                return nil
            }
        }
        // The stub answers every operation `.ok`, so a request the generated code accepts gets 200.
        if let status { V2Fuzzing.check(status == 200, "\(operation.path) answered \(status)") }
    }

    /// The names of a path template's parameters, in order (`/{serviceProvider}/sessions/{code}`).
    static func parameterNames(_ path: String) -> [String] {
        var names: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// A task executor that runs its jobs on the thread that waits for them: ``run(_:)`` starts a task that prefers it and
/// runs the task's jobs until the task ends, so that the fuzz entry point (a synchronous function, called by libFuzzer or
/// by a test on the cooperative pool) gets an async result without a thread hop and without taking a thread of the
/// pool. A job that goes to another executor (an actor) comes back through ``enqueue(_:)``; the waiting thread sleeps
/// until it does.
final class InlineExecutor: TaskExecutor, @unchecked Sendable {
    // Sendable: `jobs` is a Locked, `available` a semaphore, `self` otherwise immutable.
    private let jobs = Locked<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Runs `operation` to its end on the calling thread and returns its result.
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
        let executor = InlineExecutor()
        let result = Locked<Value?>(nil)
        Task(executorPreference: executor) {
            let value = await operation()
            result.withLock { $0 = value }
            executor.available.signal()
        }
        while true {
            executor.available.wait()
            let job = executor.jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let job {
                job.runSynchronously(on: executor.asUnownedTaskExecutor())
            } else if let value = result.withLock({ $0 }) {
                return value
            }
        }
    }
}
