import TVEPostgresReplayGuard
import Testing

/// The package's one error shape (swift-certificates' `CertificateError`), for TVEPostgresReplayGuard's error.
@Suite("TVEPostgresReplayGuard's error: one shape")
struct ErrorShapeTests {
    @Test("errorsAreEqualOnTheirCode: ReplayStoreError is equal and hashed on its code, records where it was made, prints code and reason")
    func errorsAreEqualOnTheirCode() {
        let (error, line) = (ReplayStoreError(.invalidLimit, "the timeout must be 1 ms to 60 s"), UInt(#line))
        let other = ReplayStoreError(.invalidLimit, "another reason")
        #expect(error == other && error.hashValue == other.hashValue)
        #expect(error != ReplayStoreError(.invalidURL, "the timeout must be 1 ms to 60 s"))
        #expect(error.code == .invalidLimit && error.reason == "the timeout must be 1 ms to 60 s")
        #expect(error.file == "TVEPostgresReplayGuardTests/ErrorShapeTests.swift" && error.line == line)
        #expect(
            error.description
                == "ReplayStoreError.invalidLimit: the timeout must be 1 ms to 60 s (TVEPostgresReplayGuardTests/ErrorShapeTests.swift:\(line))"
        )
    }

    @Test("aRefusedURLNamesTheParserLine: a configuration error records the library's file, and never the password")
    func aRefusedURLNamesTheParserLine() {
        let error = #expect(throws: ReplayStoreError.self) {
            try PostgresReplayGuard.Configuration(url: "postgres://user:hunter2@host/db", password: nil)
        }
        #expect(error?.code == .passwordInURL)
        #expect(error?.file == "TVEPostgresReplayGuard/PostgresReplayGuard+URL.swift")
        #expect(error.map { !$0.description.contains("hunter2") } == true)
    }
}
