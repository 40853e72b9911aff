/// The platform's single-sign-on framework (Apple's Video Subscriber Account), as a protocol the app implements;
/// the logic of the Apple SSO cookbook lives in the flow layer and is testable without it.
public protocol TVProviderAccountProvider: Sendable {
    /// The access status; with `prompt`, the framework may ask the user.
    func accessStatus(prompt: Bool) async -> TVProviderAccessStatus
    /// A metadata request. When it is interactive and the framework needs its picker, it calls `presenter` to show and
    /// hide it.
    func accountMetadata(_ request: TVProviderMetadataRequest, presenter: any TVProviderDialogPresenter) async -> TVProviderMetadataResult
}
