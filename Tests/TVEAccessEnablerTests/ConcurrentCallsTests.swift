import Foundation
import TVEConcurrency
import Testing
import TVEAccessEnabler
import TVECrypto
import TVESandbox
import TVEServiceProvider

/// A TV-provider account whose picker stays on screen until the test closes it (then the user cancels).
final class BlockingPickerAccount: TVProviderAccountProvider {
    let shown = Locked(false)
    let gate = Gate()

    func accessStatus(prompt: Bool) async -> TVProviderAccessStatus { .granted }

    func accountMetadata(_ request: TVProviderMetadataRequest, presenter: any TVProviderDialogPresenter) async -> TVProviderMetadataResult {
        guard request.isInterruptionAllowed else { return .notSignedIn }
        let dialog = TVProviderDialog(payload: "picker")
        await presenter.present(dialog)
        shown.withLock { $0 = true }
        await gate.wait()
        await presenter.dismiss(dialog)
        return .cancelled
    }
}

/// A presenter with no screen.
struct NoPresenter: TVProviderDialogPresenter {
    func present(_ dialog: TVProviderDialog) async {}
    func dismiss(_ dialog: TVProviderDialog) async {}
}

@Suite("AsyncAccessEnabler: calls at the same time (one at a time, in order, never held by the user)")
struct ConcurrentCallsTests {
    @Test("concurrent authorize and logout: whatever the order, the user ends logged out locally")
    func concurrentAuthorizeAndLogout() async throws {
        try await withLocalProvider { provider in
            let enabler = provider.enabler()
            _ = try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(enabler)
            async let authorized = try? enabler.authorize(resource: "news")
            async let loggedOut = try? enabler.logout()
            _ = await (authorized, loggedOut)
            await #expect(throws: AccessEnablerError.self) { try await enabler.checkAuthentication() }
            #expect(try await enabler.metadata(.authorizationTTL(resource: "news")).value == nil)
        }
    }

    @Test("the platform picker holds nothing: while it is on screen, setRequestor, selectProvider and logout run")
    func pickerHoldsNothing() async throws {
        try await withLocalProvider { provider in
            let account = BlockingPickerAccount()
            let core = AsyncAccessEnabler(
                softwareStatement: provider.softwareStatement,
                configuration: .init(
                    clock: provider.clock, sleep: SleepRecorder().sleep, tvProviderAccount: account))
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            let picker = Task { try await core.authenticateWithPlatformSSO(presenter: NoPresenter()) }
            #expect(await eventually { account.shown.withLock { $0 } })
            let finished = Locked(0)
            let calls = Task {
                _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
                finished.withLock { $0 += 1 }
                _ = try await core.selectProvider("SandboxCable")
                finished.withLock { $0 += 1 }
                _ = try await core.logout()
                finished.withLock { $0 += 1 }
            }
            // All three finish while the picker is still on screen.
            #expect(await eventually { finished.withLock { $0 } == 3 })
            #expect(account.shown.withLock { $0 })
            account.gate.open()
            let mvpds = await core.mvpds
            #expect(try await picker.value == .fallback(.pickerCancelled, mvpds))
            try await calls.value
        }
    }

    @Test("a call cancelled while an earlier one holds the queue returns at once, and never runs")
    func cancelledWhileWaiting() async throws {
        try await withLocalProvider { provider in
            let transport = GatedTransport(holding: "/api/v1/config")
            let core = provider.enabler(transport: transport)
            _ = try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url])
            try await logIn(core)
            // A setRequestor held at the service provider holds the queue ...
            transport.closed.withLock { $0 = true }
            let held = Task { try await core.setRequestor("tvekit-sandbox", serviceProviders: [provider.url]) }
            try await Task.sleep(for: .milliseconds(100))
            // ... a logout waits behind it and is cancelled.
            let logout = Task { try await core.logout() }
            try await Task.sleep(for: .milliseconds(100))
            logout.cancel()
            do {
                _ = try await logout.value
                Issue.record("the cancelled logout ran")
            } catch let error as AccessEnablerError {
                #expect(error.message == "the call was cancelled before it started")
            }
            transport.closed.withLock { $0 = false }
            _ = try await held.value
            #expect(try await core.checkAuthentication().mvpd == "SandboxCable")
        }
    }
}
