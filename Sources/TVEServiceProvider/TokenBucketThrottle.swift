import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TVEConcurrency
import TVECrypto
import TVETokens
import TVEPassAPIv2

/// Adobe's throttle: a token bucket per device — 1 request per second, an initial burst of 10 — and HTTP 429 once it
/// is empty. The device is the peer address, or the first `X-Forwarded-For` address when the service provider trusts
/// that header (behind a proxy or for server-to-server callers). The table of buckets is bounded: when it is full,
/// buckets that have refilled are dropped, then the least recently used one.
public final class TokenBucketThrottle: Sendable {
    /// The tokens a bucket regains per second: the sustained requests per second of one device (default 1).
    public let ratePerSecond: Double
    /// The tokens a full bucket holds: the requests a device may make at once, and what a new device starts with
    /// (default 10).
    public let burst: Double
    let clock: any MediaTokenClock
    let maximumDevices: Int

    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let buckets = Locked<[String: Bucket]>([:])

    /// A throttle of `ratePerSecond` and `burst`, keeping the buckets of at most `maximumDevices` devices (default
    /// 100,000); `clock` measures the refill. Its buckets are behind a lock: one throttle may be shared.
    public init(
        ratePerSecond: Double = 1, burst: Int = 10, maximumDevices: Int = 100_000, clock: any MediaTokenClock = SystemMediaTokenClock()
    ) {
        self.ratePerSecond = ratePerSecond
        self.burst = Double(burst)
        self.maximumDevices = maximumDevices
        self.clock = clock
    }

    /// Takes one token for `device`; `false` when its bucket is empty.
    public func allow(_ device: String) -> Bool {
        let now = clock.nowMilliseconds
        return buckets.withLock { buckets in
            if buckets[device] == nil, buckets.count >= maximumDevices {
                // Buckets that have refilled carry no state worth keeping; else the least recently used goes.
                buckets = buckets.filter { Double(max(0, now - $0.value.updated)) / 1000 * ratePerSecond + $0.value.tokens < burst }
                if buckets.count >= maximumDevices, let oldest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key {
                    buckets[oldest] = nil
                }
            }
            var bucket = buckets[device] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Double(max(0, now - bucket.updated)) / 1000 * ratePerSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[device] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[device] = bucket
            return true
        }
    }
}

/// Applies a ``TokenBucketThrottle`` to the routes of the group it is added to: the service provider's (v1, v2,
/// client registration, second screen) and its identity provider's pages (where passwords are tried). The
/// verification service, and any route of the caller's outside that group, is not throttled.
struct ThrottlingMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let throttle: TokenBucketThrottle
    let enhancedErrors: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The address ClientAddressMiddleware chose (X-Forwarded-For when trusted, IPv6 by /64).
        let device = ClientAddress.of(context)
        guard throttle.allow(device) else {
            // REST API v2 answers only in the enhanced shape, with a code of Adobe's v2 enum.
            let v2 = request.uri.path.hasPrefix(PassAPIv2.pathPrefix + "/")
            var response = (v2 ? ServiceProviderError.throttledV2 : .throttled).response(enhanced: enhancedErrors || v2)
            response.headers[.retryAfter] = "1"
            return response
        }
        return try await next(request, context)
    }
}
