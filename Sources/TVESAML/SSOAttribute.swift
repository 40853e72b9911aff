import Foundation

/// One attribute of the assertion: its `Name` and its values in document order.
public struct SSOAttribute: Hashable, Sendable {
    public let name: String
    public let values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}
