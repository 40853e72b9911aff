/// The seeds' `status` callback (`EntitlementStatus`): advanced statuses (`N003`, `VSA203`, ..., `REGCODE`).
public protocol EntitlementStatus: AnyObject, Sendable {
    /// Receives one advanced status, on the ``AccessEnabler``'s callback executor (a serial dispatch queue by default).
    func status(_ status: AdvancedStatus)
}
