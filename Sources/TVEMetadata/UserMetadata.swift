import Foundation

/// Decrypted user metadata: every value in clear, with typed accessors for the keys Adobe Pass documents.
///
/// Decrypted values are ordinary Swift values, which TVEKit cannot wipe: keep them no longer than needed.
public struct UserMetadata: Sendable, Hashable {
    /// The REST v1 `updated` counter (`nil` for REST v2).
    public var updated: Int64?
    /// Every value by key, including keys TVEKit does not know.
    public var values: [String: JSONValue]
    /// The keys that were encrypted in the document, sorted.
    public var decryptedKeys: [String]

    /// Creates metadata from its values; ``decryptedKeys`` defaults to none.
    public init(updated: Int64?, values: [String: JSONValue], decryptedKeys: [String] = []) {
        self.updated = updated
        self.values = values
        self.decryptedKeys = decryptedKeys
    }

    /// The value of `key`, or `nil` when there is none.
    public subscript(key: String) -> JSONValue? { values[key] }

    /// `zip`: the user's ZIP codes.
    public var zip: [String]? { strings("zip") }
    /// `channelID`: the channels the user subscribes to.
    public var channelID: [String]? { strings("channelID") }
    /// `userID`.
    public var userID: String? { values["userID"]?.stringValue }
    /// `upstreamUserID`.
    public var upstreamUserID: String? { values["upstreamUserID"]?.stringValue }
    /// `householdID`.
    public var householdID: String? { values["householdID"]?.stringValue }
    /// `tokenSource`: `Apple` when the user authenticated through Apple single sign-on.
    public var tokenSource: String? { values["tokenSource"]?.stringValue }
    /// `primaryOID` (AT&T).
    public var primaryOID: String? { values["primaryOID"]?.stringValue }
    /// `typeID` (AT&T, for example `Primary`).
    public var typeID: String? { values["typeID"]?.stringValue }
    /// `is_hoh`: whether the user is the head of household (Synacor; a string).
    public var isHeadOfHousehold: String? { values["is_hoh"]?.stringValue }
    /// `language`.
    public var language: String? { values["language"]?.stringValue }
    /// `encryptedZip` (Comcast).
    public var encryptedZip: String? { values["encryptedZip"]?.stringValue }
    /// `hba_status`: whether the user was authenticated by home-based authentication.
    public var hbaStatus: Bool? { values["hba_status"]?.boolValue }
    /// `allowMirroring` (Spectrum).
    public var allowMirroring: Bool? { values["allowMirroring"]?.boolValue }
    /// `maxRating`: the parental-control ceilings.
    public var maxRating: MaxRating? {
        guard let object = values["maxRating"]?.objectValue else { return nil }
        return MaxRating(mpaa: object["MPAA"]?.stringValue, vchip: object["VCHIP"]?.stringValue, url: object["URL"]?.stringValue)
    }

    private func strings(_ key: String) -> [String]? {
        guard let array = values[key]?.arrayValue else { return nil }
        let strings = array.compactMap(\.stringValue)
        return strings.count == array.count ? strings : nil
    }

    /// `{"updated": n, "data": {...}}` (keys sorted; `updated` is `null` for REST v2), as `tvekit metadata decrypt` prints.
    public var jsonText: String {
        JSONValue.object(["updated": updated.map { .integer($0) } ?? .null, "data": .object(values)]).jsonText
    }
}
