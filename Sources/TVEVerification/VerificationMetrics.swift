import TVECrypto

/// Counts per result and a latency histogram, safe to update from every request.
public final class VerificationMetrics: Sendable {
    /// Histogram bucket upper bounds, in seconds.
    static let buckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1]

    private struct State {
        var results: [String: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: VerificationMetrics.buckets.count)
        var count = 0
        var sum = 0.0
    }

    private let state = Locked(State())

    init() {}

    func record(result: String, elapsed: Duration) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        state.withLock { state in
            state.results[result, default: 0] += 1
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { state.bucketCounts[index] += 1 }
            state.count += 1
            state.sum += seconds
        }
    }

    /// The count of verifications that ended with `result` (a result code or `BAD_REQUEST`).
    public func count(of result: String) -> Int { state.withLock { $0.results[result] ?? 0 } }

    /// The Prometheus text exposition format (version 0.0.4).
    public func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = "# HELP tvekit_verifications_total Media-token verifications by result.\n# TYPE tvekit_verifications_total counter\n"
        for (result, count) in snapshot.results.sorted(by: { $0.key < $1.key }) {
            text += "tvekit_verifications_total{result=\"\(result)\"} \(count)\n"
        }
        text += "# HELP tvekit_verification_seconds Time to answer POST /verify.\n# TYPE tvekit_verification_seconds histogram\n"
        for (index, bound) in Self.buckets.enumerated() {
            text += "tvekit_verification_seconds_bucket{le=\"\(bound)\"} \(snapshot.bucketCounts[index])\n"
        }
        text += "tvekit_verification_seconds_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        text += "tvekit_verification_seconds_sum \(snapshot.sum)\ntvekit_verification_seconds_count \(snapshot.count)\n"
        return text
    }
}
