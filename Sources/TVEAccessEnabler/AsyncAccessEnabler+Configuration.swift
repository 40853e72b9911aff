import TVEMetadata
import TVETokens

extension AsyncAccessEnabler {
    /// What does not change per call.
    public struct Configuration: Sendable {
        public var transport: any EntitlementTransport
        public var tokenStore: any EntitlementTokenStore
        public var clock: any MediaTokenClock
        public var platform: EntitlementPlatform
        /// The URL a login or logout ends at (`ADOBEPASS_REDIRECT_URL`, or the app's custom scheme).
        public var redirectURL: String
        /// Decrypts user metadata for ``metadata(_:)``; without one, encrypted values are returned as they came.
        public var metadataDecryptor: MetadataDecryptor?
        /// How the tvOS flow waits for the second screen. REST API v1: the first interval (at least 1 ms; doubling up to
        /// 10 s) and the limit. REST API v2: every interval clamped to 3–5 s, as Adobe asks, until the session's
        /// `notAfter` or the limit, whichever comes first.
        public var pollingInterval: Duration
        public var pollingTimeout: Duration
        /// How the flow layer waits (back-off, polling); tests make it instant.
        public var sleep: @Sendable (Duration) async -> Void
        /// The platform's single-sign-on framework, when the app has one (Apple's Video Subscriber Account).
        public var tvProviderAccount: (any TVProviderAccountProvider)?
        /// The REST API spoken to the service providers: v2 by default (see ``ServiceAPI``).
        public var api: ServiceAPI

        public init(
            transport: any EntitlementTransport = URLSessionTransport(), tokenStore: any EntitlementTokenStore = InMemoryTokenStore(),
            clock: any MediaTokenClock = SystemMediaTokenClock(), platform: EntitlementPlatform = .iOS,
            redirectURL: String = AsyncAccessEnabler.defaultRedirectURL, metadataDecryptor: MetadataDecryptor? = nil,
            pollingInterval: Duration = .seconds(2), pollingTimeout: Duration = .seconds(1800),
            sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
            tvProviderAccount: (any TVProviderAccountProvider)? = nil, api: ServiceAPI = .v2
        ) {
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
