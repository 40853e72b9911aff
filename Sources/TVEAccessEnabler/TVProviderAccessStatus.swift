/// The user's permission for the app to read their TV-provider account (Apple's Video Subscriber Account access).
public enum TVProviderAccessStatus: Sendable, Hashable {
    case granted
    case denied
    case undetermined
    /// The framework could not be asked (the SDK reports `APPL_ERROR` with these details).
    case failed(String)
}
