/// The seeds' `status` callback (`EntitlementStatus`): advanced statuses (`N003`, `VSA203`, ..., `REGCODE`).
public protocol EntitlementStatus: AnyObject, Sendable {
    func status(_ status: AdvancedStatus)
}
