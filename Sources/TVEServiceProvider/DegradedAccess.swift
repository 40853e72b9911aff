import Foundation
import TVEConcurrency
import TVECrypto
import TVETokens

/// Degraded access: Adobe's operators' switch for an MVPD that is down, with Adobe's three degradation rules
/// (``Mode``). While a rule is on for an MVPD, REST API v2 answers as Adobe's service does under it:
/// - ``Mode/authenticateAll`` (AuthNAll): `POST sessions` answers `authorize` with `reasonType: degraded` (no login), a
///   device with no profile of that MVPD holds a `degraded` profile issued by `Adobe`, every decision for that MVPD is
///   made by the rule (`source: degradation`) and authorized whenever the requestor offers the resource, whatever the
///   MVPD would have said, and a logout is `complete` (the MVPD's logout page is down too).
/// - ``Mode/authorizeAll`` (AuthZAll): logins are as usual; the decisions of a device that holds a profile of that
///   MVPD are made by the rule and authorized.
/// - ``Mode/authorizeNone`` (AuthZNone): logins are as usual; the decisions of a device that holds a profile of that
///   MVPD are made by the rule and denied (`authorization_denied_by_degradation_rule`).
///
/// Under every rule an authorization may ask about as many resources as a preauthorization: the one-resource limit is
/// the MVPDs', and the rule decides instead of the MVPD.
///
/// **Choices:** ``begin(mvpd:)`` is AuthNAll, which implies authorizing all, as Adobe's samples show (its decisions
/// are authorized by the rule); a device with no profile under AuthZAll or AuthZNone is answered
/// `authenticated_profile_missing`, as without the rule (Adobe's pages show those rules only with a login). When the
/// switch goes off, the degraded profiles go with it (decisions then answer `authenticated_profile_missing`) and the
/// profiles of real logins are what they were. The switch is shared by every request: an operator (or a test) flips
/// it while the service provider runs. It starts with the MVPDs whose configuration sets
/// ``ServiceProviderConfiguration/MVPD/degradedAccess`` (AuthNAll). TempPass MVPDs are never degraded.
public final class DegradedAccess: Sendable {
    /// Adobe's degradation rules, named as Adobe names them (`rawValue`).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// AuthNAll: authenticate all (a `degraded` profile, no login) and authorize all.
        case authenticateAll = "AuthNAll"
        /// AuthZAll: authorize all the MVPD's authenticated devices.
        case authorizeAll = "AuthZAll"
        /// AuthZNone: authorize none of the MVPD's authenticated devices.
        case authorizeNone = "AuthZNone"
    }

    /// A rule in force: its mode and when it began (milliseconds since 1970).
    struct Rule: Sendable, Hashable {
        let mode: Mode
        let since: Int64
    }

    private let rules: Locked<[String: Rule]>
    private let clock: any MediaTokenClock

    init(mvpds: [String], clock: any MediaTokenClock) {
        self.clock = clock
        let now = clock.nowMilliseconds
        rules = Locked(Dictionary(mvpds.map { ($0, Rule(mode: .authenticateAll, since: now)) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Switches degraded access on for `mvpd` with Adobe's AuthNAll rule (no change when it is on with that rule).
    public func begin(mvpd: String) { begin(mvpd: mvpd, mode: .authenticateAll) }

    /// Switches degraded access on for `mvpd` with `mode`: no change when that rule is on, a fresh rule (from now) when
    /// another one was.
    public func begin(mvpd: String, mode: Mode) {
        let now = clock.nowMilliseconds
        rules.withLock { table in if table[mvpd]?.mode != mode { table[mvpd] = Rule(mode: mode, since: now) } }
    }

    /// Switches degraded access off for `mvpd`.
    public func end(mvpd: String) {
        _ = rules.withLock { $0.removeValue(forKey: mvpd) }
    }

    /// Whether degraded access is on for `mvpd`, with any rule.
    public func isOn(for mvpd: String) -> Bool { rule(mvpd) != nil }

    /// The rule on for `mvpd`, or nil when degraded access is off.
    public func mode(for mvpd: String) -> Mode? { rule(mvpd)?.mode }

    /// The MVPDs under degraded access, sorted.
    public var mvpds: [String] { rules.withLock { $0.keys.sorted() } }

    /// The rule on for `mvpd`, or nil.
    func rule(_ mvpd: String) -> Rule? { rules.withLock { $0[mvpd] } }

    /// When AuthNAll began for `mvpd` (milliseconds since 1970), or nil when that rule is not on.
    func authenticatingSince(_ mvpd: String) -> Int64? {
        rule(mvpd).flatMap { $0.mode == .authenticateAll ? $0.since : nil }
    }
}
