import Metrics

/// The replay store's metrics, through swift-metrics.
struct StoreMetrics: Sendable {
    /// Time per store call (one token or one batch).
    let latency: Metrics.Timer
    /// Calls that failed (the database down or refusing), and calls past the timeout.
    let errors: Counter
    let timeouts: Counter
    /// Store calls in flight: the demand on the connection pool.
    let inFlight: Meter
    /// Expired keys deleted.
    let pruned: Counter

    init(factory: any MetricsFactory) {
        latency = Metrics.Timer(label: "tvekit_replay_store_seconds", factory: factory)
        errors = Counter(label: "tvekit_replay_store_errors_total", dimensions: [("kind", "unavailable")], factory: factory)
        timeouts = Counter(label: "tvekit_replay_store_errors_total", dimensions: [("kind", "timeout")], factory: factory)
        inFlight = Meter(label: "tvekit_replay_store_in_flight", factory: factory)
        pruned = Counter(label: "tvekit_replay_store_pruned_total", factory: factory)
    }
}
