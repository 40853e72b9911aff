import Foundation
import Testing

/// `tvekit serve --degraded MVPD[:RULE]`: Adobe's degradation rules by name.
@Suite("tvekit serve --degraded")
struct ServeDegradedTests {
    @Test("tvekit serve --degraded refuses an unknown MVPD and a rule that is not AuthNAll, AuthZAll or AuthZNone")
    func refusesUnknownRules() async throws {
        for value in ["NoSuchMVPD", "SandboxCable:AuthZSome", "NoSuchMVPD:AuthZAll"] {
            let outcome = try await CLI.running(["serve", "--port", "0", "--degraded", value])
            #expect(outcome.status != 0, "\(value)")
            #expect(outcome.stderr.contains("--degraded"), "\(value)")
        }
    }
}
