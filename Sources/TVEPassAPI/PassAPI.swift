import Foundation

/// The contract of the Adobe Pass REST API v1 as TVEKit speaks it, shared by the client (`TVEAccessEnabler`) and the
/// local service provider (`TVEServiceProvider`): the JSON bodies of each endpoint, their error bodies, the one
/// `application/x-www-form-urlencoded` codec (``FormCodec``) and the reading of the HTML forms of the login pages
/// (``HTMLForm``). FORMATS.md §6 and §7 describe the wire forms.
///
/// Every body type is `Codable`: the service provider encodes it, the client decodes it. Decoding is tolerant where
/// Adobe's servers vary (`expires` as a string or a number, optional fields absent), and strict where the client
/// relies on a field.
public enum PassAPI {
    /// The largest JSON body ``decode(_:from:)`` reads.
    public static let maximumJSONBytes = 4 << 20

    /// Encodes a body as the service provider sends it: sorted keys, slashes not escaped.
    public static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// Decodes a body, or nil when it is not JSON of that shape (or is over ``maximumJSONBytes``).
    public static func decode<Body: Decodable>(_ type: Body.Type, from data: Data) -> Body? {
        guard data.count <= maximumJSONBytes else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }
}
