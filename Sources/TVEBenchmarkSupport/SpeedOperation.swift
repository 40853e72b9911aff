import Foundation

/// One operation to measure: the TVEKit call and the bare OpenSSL call it is paired with.
package struct SpeedOperation {
    package var name: String
    package var batch: Int
    package var baseline: (() -> Bool)?
    /// The `openssl speed` figure for --compare-openssl; `nil` for operations that `openssl speed` has no match for.
    package var openssl: OpenSSLFigure?
    /// How many `openssl speed` operations one call stands for (5 private-key operations for metadata-decrypt).
    package var opensslOperations: Double
    /// The least ratio to the baseline the project aims at (printed with PASS or MISS); `nil` for none.
    package var goal: Double?
    package var body: () throws -> Bool
    package init(
        name: String, batch: Int, baseline: (() -> Bool)?, openssl: OpenSSLFigure? = nil, opensslOperations: Double = 1,
        goal: Double? = nil, _ body: @escaping () throws -> Bool
    ) {
        self.name = name
        self.batch = batch
        self.baseline = baseline
        self.openssl = openssl
        self.opensslOperations = opensslOperations
        self.goal = goal
        self.body = body
    }
}

/// Operation counts and times, summed over rounds.
struct Tally {
    var ours = 0
    var oursSeconds = 0.0
    var bare = 0
    var bareSeconds = 0.0
    mutating func add(_ other: Tally) {
        ours += other.ours
        oursSeconds += other.oursSeconds
        bare += other.bare
        bareSeconds += other.bareSeconds
    }
}

/// The `openssl speed` figure an operation is compared with: verify/s or sign/s of one RSA key size.
package enum OpenSSLFigure: Sendable {
    case verify(Int)
    case sign(Int)

    package var bits: Int {
        switch self {
        case .verify(let bits), .sign(let bits): bits
        }
    }

    package var isVerify: Bool {
        if case .verify = self { return true }
        return false
    }
}
