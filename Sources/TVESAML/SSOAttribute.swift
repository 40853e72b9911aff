import Foundation

/// One attribute of the assertion: its `Name` and its values in document order.
public struct SSOAttribute: Hashable, Sendable {
    /// The attribute's `Name` (empty when the IdP gave none).
    public let name: String
    /// The text of each `AttributeValue`, in document order.
    public let values: [String]

    /// Creates an attribute with `name` and `values`.
    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}
