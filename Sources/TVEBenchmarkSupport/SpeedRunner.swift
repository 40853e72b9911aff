import Foundation

/// One operation's figures: TVEKit's rate, the paired bare-OpenSSL rate and `openssl speed`'s, with the ratios.
package struct SpeedResult: Encodable, Sendable {
    package var operation: String
    package var operations: Int
    package var seconds: Double
    package var opsPerSecond: Double
    package var baselineOpsPerSecond: Double?
    package var ratioToBaseline: Double?
    package var opensslSpeedOpsPerSecond: Double?
    package var ratioToOpensslSpeed: Double?
    /// The least ratio to the baseline the project aims at, and whether this run reached it.
    package var goal: Double?
    package var meetsGoal: Bool?
}

/// A whole run.
package struct SpeedReport: Encodable, Sendable {
    package var opensslVersion: String?
    package var results: [SpeedResult]
}

/// Measures operations as `tvekit speed` reports them (the engine; the command only parses and prints).
package enum SpeedRunner {
    /// Measures `operations` for `seconds` each. With `compareOpenSSL`: rounds of one second per operation,
    /// alternating (A B B A ...) with one-second runs of `openssl speed`, so that both sides are measured under the
    /// same conditions on a machine whose speed drifts.
    package static func run(
        _ operations: [SpeedOperation], seconds: Double, compareOpenSSL: Bool,
        progress: (String) -> Void
    ) throws(SpeedError) -> SpeedReport {
        let rounds = compareOpenSSL ? max(2, Int(seconds.rounded(.up))) : 1
        let slice = compareOpenSSL ? 1.0 : seconds
        var totals = [Tally](repeating: Tally(), count: operations.count)
        // The RSA sizes the chosen operations are compared at; `openssl speed` runs only when there is one.
        let opensslBits = compareOpenSSL ? Array(Set(operations.compactMap { $0.openssl?.bits })).sorted() : []
        var opensslRuns: [[Int: OpenSSLSpeed.Figures]] = []
        var version: String? = nil
        for round in 0..<rounds {
            let opensslFirst = round % 2 == 1
            if !opensslBits.isEmpty, opensslFirst {
                try runOpenSSL(bits: opensslBits, round: round, rounds: rounds, into: &opensslRuns, version: &version, progress: progress)
            }
            for (index, operation) in operations.enumerated() {
                progress("round \(round + 1)/\(rounds): measuring \(operation.name) for \(slice) s...")
                totals[index].add(try measure(operation, seconds: slice))
            }
            if !opensslBits.isEmpty, !opensslFirst {
                try runOpenSSL(bits: opensslBits, round: round, rounds: rounds, into: &opensslRuns, version: &version, progress: progress)
            }
        }

        var results: [SpeedResult] = []
        for (operation, tally) in zip(operations, totals) {
            let rate = Double(tally.ours) / tally.oursSeconds
            let baselineRate = tally.bare > 0 ? Double(tally.bare) / tally.bareSeconds : nil
            var result = SpeedResult(
                operation: operation.name, operations: tally.ours, seconds: tally.oursSeconds, opsPerSecond: rate,
                baselineOpsPerSecond: baselineRate, ratioToBaseline: baselineRate.map { rate / $0 })
            if let goal = operation.goal, let ratio = result.ratioToBaseline {
                result.goal = goal
                result.meetsGoal = ratio >= goal
            }
            if let figure = operation.openssl {
                let values = opensslRuns.compactMap { $0[figure.bits].map { figure.isVerify ? $0.verify : $0.sign } }
                guard !values.isEmpty else { results.append(result); continue }
                let reference = values.reduce(0, +) / Double(values.count) / operation.opensslOperations
                result.opensslSpeedOpsPerSecond = reference
                result.ratioToOpensslSpeed = rate / reference
            }
            results.append(result)
        }

        return SpeedReport(opensslVersion: version, results: results)
    }

    private static func runOpenSSL(
        bits: [Int], round: Int, rounds: Int, into runs: inout [[Int: OpenSSLSpeed.Figures]],
        version: inout String?, progress: (String) -> Void
    ) throws(SpeedError) {
        let algorithms = bits.map { "rsa\($0)" }.joined(separator: " ")
        progress("round \(round + 1)/\(rounds): running openssl speed -seconds 1 \(algorithms)...")
        let (opensslVersion, figures) = try OpenSSLSpeed.run(seconds: 1, bits: bits)
        version = opensslVersion
        runs.append(figures)
    }

    /// Alternates 50 ms slices of the operation and its baseline until `seconds` have passed; every call must
    /// succeed.
    private static func measure(_ operation: SpeedOperation, seconds: Double) throws(SpeedError) -> Tally {
        for _ in 0..<operation.batch {
            guard (try? operation.body()) == true, operation.baseline?() ?? true else {
                throw SpeedError.wrongResult(reason: "\(operation.name) gave a wrong result")
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
                for _ in 0..<operation.batch { allCorrect = ((try? operation.body()) == true) && allCorrect }
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
        guard allCorrect else { throw SpeedError.wrongResult(reason: "\(operation.name) gave a wrong result") }
        return tally
    }
}
