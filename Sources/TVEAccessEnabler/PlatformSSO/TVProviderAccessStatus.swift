/// The user's permission for the app to read their TV-provider account (Apple's Video Subscriber Account access).
public enum TVProviderAccessStatus: Sendable, Hashable {
    /// The user allows it.
    case granted
    /// The user refused (the SDK reports `VSA403`).
    case denied
    /// The user has not decided (the SDK reports `VSA404`).
    case undetermined
    /// The framework could not be asked (the SDK reports `APPL_ERROR` with these details).
    case failed(String)
}
