/// What can be asked with `getMetadata`.
public enum MetadataRequest: Sendable, Hashable {
    /// `METADATA_AUTHENTICATION`: when the authentication expires (milliseconds since the epoch, as a string).
    case authenticationTTL
    /// `METADATA_AUTHORIZATION`: when the authorization of a resource expires.
    case authorizationTTL(resource: String)
    /// `METADATA_DEVICE_ID`: the device ID the flow layer keeps. REST API v1 sends it as it is; over REST API v2 Adobe
    /// sees only its SHA-256 fingerprint (`AP-Device-Identifier`, ``V2DeviceHeaders``), never the ID.
    case deviceID
    /// `METADATA_USER_META`: one user-metadata value (`zip`, `householdID`, `maxRating`, `userID`, `tokenSource`, ...).
    case userMetadata(key: String)
}
