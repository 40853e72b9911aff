import CoreMetrics
import Metrics
import Prometheus
import TVETokens

/// The verification service's metrics through swift-metrics, exposed by swift-prometheus: verifications by result
/// (`tvekit_verifications_total{result=…}`, `BAD_REQUEST` for a request that is not one) and the time to answer a
/// `POST /verify` (`tvekit_verification_seconds`). A replay store given ``factory`` adds its own (store latency,
/// errors, pool use) to the same ``registry``, which ``prometheusText()`` renders for `GET /metrics`.
public final class VerificationMetrics: Sendable {
    /// Histogram bucket upper bounds of request latency.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]

    /// The Prometheus registry the metrics are kept in; ``prometheusText()`` renders it.
    public let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory that records into ``registry``.
    public let factory: PrometheusMetricsFactory
    private let counters: [String: CoreMetrics.Counter]
    private let badRequests: CoreMetrics.Counter
    private let latency: Metrics.Timer

    /// - Parameter registry: a fresh registry by default (not the process-wide one), so that two services in one
    ///   process count apart.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["tvekit_verification_seconds"] = Self.buckets
        factory.durationHistogramBuckets["tvekit_replay_store_seconds"] = Self.buckets
        self.factory = factory
        var counters: [String: CoreMetrics.Counter] = [:]
        for result in MediaTokenVerification.Result.all {
            counters[result.rawValue] = Counter(
                label: "tvekit_verifications_total", dimensions: [("result", result.rawValue)], factory: factory)
        }
        self.counters = counters
        badRequests = Counter(label: "tvekit_verifications_total", dimensions: [("result", "BAD_REQUEST")], factory: factory)
        latency = Metrics.Timer(label: "tvekit_verification_seconds", factory: factory)
    }

    /// Counts one verification (a result code, or nil for a request that is not one).
    func count(_ result: String?) {
        (result.flatMap { counters[$0] } ?? badRequests).increment()
    }

    /// Records the time one `POST /verify` took.
    func recordLatency(_ elapsed: Duration) {
        latency.record(duration: elapsed)
    }

    /// The Prometheus text exposition format.
    public func prometheusText() -> String { registry.emitToString() }
}
