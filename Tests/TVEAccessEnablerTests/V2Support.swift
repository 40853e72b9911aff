import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto

/// A transport for the REST API v2 suites: records every request and answers those a rule matches with the rule's
/// answer (a hostile or broken service provider), the rest from the real one.
final class ScriptedTransport: EntitlementTransport {
    enum Answer: Sendable {
        case status(Int, body: String, headers: [String: String] = ["Content-Type": "application/json"])
        case unreachable
        case hang
    }

    let inner = URLSessionTransport(timeout: 30)
    let requests = Locked<[EntitlementHTTPRequest]>([])
    private let rules = Locked<[(method: String?, path: String, answer: Answer, remaining: Int)]>([])

    /// Answers the next `times` requests whose path contains `path` (and whose method is `method`, when given).
    func on(_ method: String? = nil, _ path: String, _ answer: Answer, times: Int = .max) {
        rules.withLock { $0.append((method, path, answer, times)) }
    }

    func clearRules() { rules.withLock { $0 = [] } }

    /// The requests whose path contains `path`.
    func sent(_ path: String, method: String? = nil) -> [EntitlementHTTPRequest] {
        requests.withLock { $0 }.filter { $0.url.path.contains(path) && (method == nil || $0.method == method) }
    }

    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse {
        requests.withLock { $0.append(request) }
        let answer = rules.withLock { rules -> Answer? in
            guard
                let index = rules.firstIndex(where: {
                    request.url.path.contains($0.path) && ($0.method == nil || $0.method == request.method) && $0.remaining > 0
                })
            else { return nil }
            rules[index].remaining -= 1
            return rules[index].answer
        }
        switch answer {
        case nil: return try await inner.send(request)
        case .unreachable?: throw URLError(.cannotConnectToHost)
        case .hang?:
            try await Task.sleep(for: .seconds(3600))
            throw URLError(.timedOut)
        case .status(let status, let body, let headers)?:
            return EntitlementHTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        }
    }
}

/// A sleep that moves the test clock by the time asked for, and waits no real time: polling runs to its end at once.
final class ClockSleeper: Sendable {
    let clock: TestClock
    private let waits = Locked<[Duration]>([])
    init(_ clock: TestClock) { self.clock = clock }
    var recorded: [Duration] { waits.withLock { $0 } }
    var sleep: @Sendable (Duration) async -> Void {
        { duration in
            self.waits.withLock { $0.append(duration) }
            self.clock.advance(seconds: duration.components.seconds)
            await Task.yield()
        }
    }
}

extension LocalProvider {
    /// An enabler speaking REST API v2 to this provider, as an app would configure it.
    func v2Enabler(
        platform: EntitlementPlatform = .iOS, store: any EntitlementTokenStore = InMemoryTokenStore(),
        transport: any EntitlementTransport = URLSessionTransport(timeout: 30), sleeper: SleepRecorder = SleepRecorder()
    ) -> AsyncAccessEnabler {
        enabler(platform: platform, store: store, transport: transport, sleeper: sleeper, api: .v2)
    }
}
