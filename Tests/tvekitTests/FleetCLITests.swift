import Foundation
import Testing

@Suite("tvekit serve --replay-store")
struct FleetCLITests {
    static let certificate = CLI.repository.appendingPathComponent("TestVectors/fixtures/leaf.cert.pem").path

    @Test("rejectsPasswordInURL: a database password in the --replay-store URL is refused before anything starts, and not echoed")
    func rejectsPasswordInURL() throws {
        let outcome = try CLI.run([
            "serve", "--verifier-only", "--cert", Self.certificate, "--requestor", "R", "--port", "0",
            "--replay-store", "postgres://fleet:hunter2@127.0.0.1:5432/tokens",
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("passwordInURL") || outcome.stderr.contains("password"))
        #expect(!outcome.stderr.contains("hunter2"))
    }

    @Test("--replay-store needs --verifier-only, and a URL of the postgres scheme")
    func usage() throws {
        #expect(try CLI.run(["serve", "--replay-store", "postgres://u@h/d"]).status != 0)
        let outcome = try CLI.run([
            "serve", "--verifier-only", "--cert", Self.certificate, "--requestor", "R", "--replay-store", "redis://h",
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("postgres://"))
    }

    @Test("token issue --count prints that many distinct tokens, one per line")
    func issueCount() throws {
        let key = CLI.repository.appendingPathComponent("TestVectors/fixtures/leaf.pkcs8.pem").path
        let outcome = try CLI.run([
            "token", "issue", "--private-key", key, "--requestor", "R", "--resource", "S", "--mvpd", "M", "--count", "3",
        ])
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 3 && Set(lines).count == 3)
    }
}
