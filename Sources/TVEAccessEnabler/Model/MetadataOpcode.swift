/// `getMetadata` operations (`METADATA_OPCODE_KEY` values).
public enum MetadataOpcode: Int, Sendable, Hashable {
    /// `METADATA_AUTHENTICATION`
    case authentication = 0
    /// `METADATA_AUTHORIZATION`
    case authorization = 1
    /// `METADATA_DEVICE_ID`
    case deviceID = 2
    /// `METADATA_USER_META`
    case userMeta = 3
}
