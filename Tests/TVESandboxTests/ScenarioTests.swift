import Foundation
import TVEAccessEnabler
import TVEConcurrency
import TVECrypto
import TVESandbox
import TVETestSupport
import TVEServiceProvider
import Testing

/// Keys shared by the scenarios (generating them is the slow part).
enum SharedKeys {
    static let sandbox: SandboxKeys? = Fixtures.sandboxKeys.flatMap { keys in
        keys.count == 7
            ? SandboxKeys(
                softwareStatementKey: keys[0], mediaTokenKey: keys[1], identityProviderKey: keys[2], metadataKey: keys[3],
                requestorKey: keys[4], platformIdentityKey: keys[5], serviceTokenKey: keys[6]) : nil
    }
}

/// Serialized: twelve sandboxes (a service provider, an enabler and its flows each) started at once with the rest of the
/// suite crowded the two threads of the cooperative pool past the flows' 15 s callback waits in a fresh-clone CI run.
@Suite("Sandbox scenarios (the walks of tvekit demo)", .serialized)
struct ScenarioTests {
    @Test(
        "each cookbook scenario gives the callbacks the cookbook promises, over REST API v2 and v1",
        arguments: SandboxScenario.all.map(\.id), AsyncAccessEnabler.ServiceAPI.allCases)
    func scenario(id: String, api: AsyncAccessEnabler.ServiceAPI) async throws {
        let scenario = try #require(SandboxScenario.all.first { $0.id == id })
        guard api == .v2 || !scenario.needsV2 else { return }
        let keys = try #require(SharedKeys.sandbox)
        let callbacks = Locked<[String]>([])
        let narrator = ScenarioNarrator(
            call: { _ in }, note: { _ in }, callback: { event in callbacks.withLock { $0.append(event.description) } })
        try await Sandbox.run(keys: keys) { sandbox in
            try await scenario.run(in: sandbox, narrator: narrator, api: api)
        }
        let heard = callbacks.withLock { $0 }
        #expect(heard.first == "setRequestorComplete(1)")
        #expect(heard.contains { $0.hasPrefix("setAuthenticationStatus(1") })
        #expect(heard.contains { $0.hasPrefix("setToken(") } || id == "platform-sso")
    }
}

@Suite("Recording delegate")
struct RecordingDelegateTests {
    @Test("next waits for a callback that arrives later, consumes it, and throws callbackMissing when none comes in time")
    func nextIsEventDriven() async throws {
        let delegate = RecordingDelegate()
        Task {
            try? await Task.sleep(for: .milliseconds(50))
            delegate.setRequestorComplete(1)
        }
        let status = try await delegate.next("setRequestorComplete") { if case .requestorComplete(let s) = $0 { s } else { nil } }
        #expect(status == 1)
        await #expect(throws: SandboxError(.callbackMissing, "")) {
            try await delegate.next("setRequestorComplete", timeout: .milliseconds(100)) {
                if case .requestorComplete(let s) = $0 { s } else { nil }
            }
        }
        #expect(delegate.all == [.requestorComplete(1)])
    }

    @Test("the app side's files are private: the directory 0700, each file 0600; an existing shared directory is refused")
    func appSideFilesArePrivate() throws {
        let keys = try #require(SharedKeys.sandbox)
        let directory = NSTemporaryDirectory() + "tvekit-sandbox-test-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try keys.writeAppSide(softwareStatement: "a.b.c", to: directory) == directory)
        let mode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        for name in SandboxKeys.appSideFiles {
            let path = (directory as NSString).appendingPathComponent(name)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        #expect(throws: SandboxError(.appSideNotWritten, "")) { try keys.writeAppSide(softwareStatement: "a.b.c", to: directory) }
    }
}
