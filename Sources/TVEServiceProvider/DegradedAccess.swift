import Foundation
import TVECrypto
import TVETokens

/// Degraded access: Adobe's operators' switch for an MVPD that is down. While it is on for an MVPD, REST API v2 grants
/// access without the MVPD, as Adobe's service does: `POST sessions` answers `authorize` with `reasonType: degraded`
/// (no login), a device with no profile of that MVPD holds a `degraded` profile issued by `Adobe`, and every decision
/// for that MVPD is made by the degradation rule (`source: degradation`): authorized whenever the requestor offers the
/// resource, whatever the MVPD would have said.
///
/// **Choice:** one mode, Adobe's "authenticate and authorize all"; when the switch goes off, the degraded profiles go
/// with it (decisions then answer `authenticated_profile_missing`) and the profiles of real logins are what they were.
/// The switch is shared by every request: an operator (or a test) flips it while the service provider runs. It starts
/// with the MVPDs whose configuration sets ``ServiceProviderConfiguration/MVPD/degradedAccess``.
public final class DegradedAccess: Sendable {
    private let since: Locked<[String: Int64]>
    private let clock: any MediaTokenClock

    init(mvpds: [String], clock: any MediaTokenClock) {
        self.clock = clock
        let now = clock.nowMilliseconds
        since = Locked(Dictionary(mvpds.map { ($0, now) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Switches degraded access on for `mvpd` (no change when it is on).
    public func begin(mvpd: String) {
        let now = clock.nowMilliseconds
        since.withLock { table in if table[mvpd] == nil { table[mvpd] = now } }
    }

    /// Switches degraded access off for `mvpd`.
    public func end(mvpd: String) {
        _ = since.withLock { $0.removeValue(forKey: mvpd) }
    }

    /// Whether degraded access is on for `mvpd`.
    public func isOn(for mvpd: String) -> Bool { since(mvpd) != nil }

    /// The MVPDs under degraded access, sorted.
    public var mvpds: [String] { since.withLock { $0.keys.sorted() } }

    /// When degraded access began for `mvpd` (milliseconds since 1970), or nil when it is off.
    func since(_ mvpd: String) -> Int64? { since.withLock { $0[mvpd] } }
}
