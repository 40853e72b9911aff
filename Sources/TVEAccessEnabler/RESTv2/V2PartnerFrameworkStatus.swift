import TVEPassAPIv2

extension V2ServiceProviderClient {
    /// `AP-Partner-Framework-Status` as the platform's framework stands now, for every call Adobe's contract lists it on
    /// (`profiles`, `profiles/{mvpd}`, both `decisions`, and the two partner calls); nil when the app has no framework.
    ///
    /// **Choice:** the permission is the framework's access status (`granted`, `denied`, or `notDetermined` for an
    /// undetermined one or a framework that could not be asked); the provider is `providerID` when a call names one (the
    /// partner calls: the MVPD's `platformMappingId`), else the account the framework is signed in to, with its
    /// authentication's end as `expirationDate` when the framework tells it
    /// (``TVProviderAccountProvider/signedInAccount()``).
    func partnerFrameworkStatus(providerID: String? = nil) async -> PassAPIv2.PartnerFrameworkStatus? {
        guard let platformAccount else { return nil }
        let access: String
        switch await platformAccount.accessStatus(prompt: false) {
        case .granted: access = "granted"
        case .denied: access = "denied"
        case .undetermined, .failed: access = "notDetermined"
        }
        let account = access == "granted" ? await platformAccount.signedInAccount() : nil
        let id = providerID ?? account?.providerIdentifier
        let expires = account.flatMap { $0.providerIdentifier == id ? $0.expires : nil }
        return PassAPIv2.PartnerFrameworkStatus(
            frameworkPermissionInfo: .init(accessStatus: access),
            frameworkProviderInfo: id.map { .init(id: String($0.prefix(256)), expirationDate: expires) })
    }
}
