import Foundation
import TVEMetadata
import TVETokens

extension AsyncAccessEnabler {
    /// What does not change per call.
    public struct Configuration: Sendable {
        /// How the service providers are reached: ``URLSessionTransport`` by default.
        public var transport: any EntitlementTransport
        /// Where the tokens are kept: ``InMemoryTokenStore`` by default (gone with the process); a ``FileTokenStore``
        /// keeps them across launches. Its calls run on a serial dispatch queue of their own.
        public var tokenStore: any EntitlementTokenStore
        /// The current time (milliseconds since the epoch) that expiries are checked against: the stored tokens, the
        /// access token, a tvOS login's session. The system clock (`SystemMediaTokenClock`) by default.
        public var clock: any MediaTokenClock
        /// The device platform, iOS by default: it decides the login path, the platform sent to the service providers
        /// and the platform fields of the tracking data.
        public var platform: EntitlementPlatform
        /// The URL a login or logout ends at (`ADOBEPASS_REDIRECT_URL`, or the app's custom scheme).
        public var redirectURL: String
        /// Decrypts user metadata for ``metadata(_:)``; without one, encrypted values are returned as they came.
        public var metadataDecryptor: MetadataDecryptor?
        /// How the tvOS flow waits for the second screen. REST API v1: the first interval (at least 1 ms; doubling up to
        /// 10 s) and the limit. REST API v2: every interval clamped to 3–5 s, as Adobe asks, until the session's
        /// `notAfter` or the limit, whichever comes first.
        public var pollingInterval: Duration
        /// The longest the tvOS flow waits for the second screen, counted as the sum of the polling intervals slept
        /// (30 minutes by default); then the wait fails with ``AccessEnablerError/Code/genericAuthentication``.
        public var pollingTimeout: Duration
        /// How the flow layer waits (back-off, polling); tests make it instant.
        public var sleep: @Sendable (Duration) async -> Void
        /// The platform's single-sign-on framework, when the app has one (Apple's Video Subscriber Account).
        public var tvProviderAccount: (any TVProviderAccountProvider)?
        /// The REST API spoken to the service providers: v2 by default (see ``ServiceAPI``).
        public var api: ServiceAPI
        /// The app's REST API v2 single-sign-on credential, asked for before each v2 call (nil: none now); none by default.
        /// REST API v1 has no such single sign-on and never asks.
        public var singleSignOnCredential: (@Sendable () async -> SingleSignOnCredential?)?

        /// A configuration. The defaults: ``URLSessionTransport``, ``InMemoryTokenStore``, the system clock, iOS,
        /// ``AsyncAccessEnabler/defaultRedirectURL``, no metadata decryptor, polling every 2 s for up to 30 minutes,
        /// `Task.sleep`, no single-sign-on framework, REST API v2 and no REST API v2 single-sign-on credential.
        public init(
            transport: any EntitlementTransport = URLSessionTransport(), tokenStore: any EntitlementTokenStore = InMemoryTokenStore(),
            clock: any MediaTokenClock = SystemMediaTokenClock(), platform: EntitlementPlatform = .iOS,
            redirectURL: String = AsyncAccessEnabler.defaultRedirectURL, metadataDecryptor: MetadataDecryptor? = nil,
            pollingInterval: Duration = .seconds(2), pollingTimeout: Duration = .seconds(1800),
            sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
            tvProviderAccount: (any TVProviderAccountProvider)? = nil, api: ServiceAPI = .v2,
            singleSignOnCredential: (@Sendable () async -> SingleSignOnCredential?)? = nil
        ) {
            self.singleSignOnCredential = singleSignOnCredential
            self.api = api
            self.tvProviderAccount = tvProviderAccount
            self.transport = transport
            self.tokenStore = tokenStore
            self.clock = clock
            self.platform = platform
            self.redirectURL = redirectURL
            self.metadataDecryptor = metadataDecryptor
            self.pollingInterval = pollingInterval
            self.pollingTimeout = pollingTimeout
            self.sleep = sleep
        }
    }
}

extension AsyncAccessEnabler.Configuration {
    /// Whether `url` is the configured redirect URL: the same scheme and host (case-insensitively) and path; a query
    /// or fragment may follow.
    func isRedirect(_ url: URL) -> Bool {
        guard let expected = URL(string: redirectURL) else { return false }
        return url.scheme?.lowercased() == expected.scheme?.lowercased() && url.host?.lowercased() == expected.host?.lowercased()
            && url.path == expected.path && url.user == nil && url.port == expected.port
    }
}
