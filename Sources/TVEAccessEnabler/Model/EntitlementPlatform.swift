/// The device platform, which decides the login path (a web view on iOS, a registration code on tvOS) and the
/// `deviceType` sent to the service provider.
public enum EntitlementPlatform: String, Sendable, Hashable, CaseIterable {
    /// `iOS`: the login page in a web view. `tvOS`: a registration code, used on a second screen.
    case iOS, tvOS
}
