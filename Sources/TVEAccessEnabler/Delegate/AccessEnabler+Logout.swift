import Foundation
import TVEConcurrency
import TVECrypto

extension AccessEnabler {
    // MARK: Logout, provider, metadata

    /// `logout` — local tokens cleared, the server session ended; on iOS the app is sent to the logout page and
    /// `handleExternalURL` ends it, on tvOS it ends at once. `VSA203` after a platform-SSO login.
    public func logout() {
        enqueue {
            self.polling.stop()
            self.state.withLock { $0.pendingAuthorization = nil }
            let (outcome, useSVC) = await self.core.logoutReport()
            if case .success(let loggedOut) = outcome, loggedOut.page != nil { self.state.withLock { $0.loggingOut = true } }
            self.send(self.translator.logout(outcome, useSVC: useSVC))
        }
    }

    /// `getSelectedProvider`.
    public func getSelectedProvider() {
        enqueue {
            let mvpd = try? await self.core.selectedProvider()
            self.send(self.translator.selectedProvider(mvpd ?? nil))
        }
    }

    /// `getMetadata:` — answered with `setMetadataStatus` (the request is echoed as the arguments).
    public func getMetadata(_ request: MetadataRequest) {
        enqueue {
            let result = await self.result { () async throws(AccessEnablerError) in try await self.core.metadata(request) }
            self.send(self.translator.metadata(request, result: result))
        }
    }

    /// Waits until every call made so far has been handled (for tests and tools; the callbacks may still be in flight
    /// on the callback executor).
    public func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            enqueue { continuation.resume() }
        }
    }
}
