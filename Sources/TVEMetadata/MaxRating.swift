import Foundation

/// The `maxRating` value: the highest ratings the user may watch.
public struct MaxRating: Sendable, Hashable {
    /// The MPAA (film) rating, for example `PG-13`.
    public var mpaa: String?
    /// The V-chip (TV) rating, for example `TV-Y`.
    public var vchip: String?
    /// Where the user manages the ratings.
    public var url: String?

    /// Creates a rating ceiling from its parts, any of which may be absent.
    public init(mpaa: String?, vchip: String?, url: String?) {
        self.mpaa = mpaa
        self.vchip = vchip
        self.url = url
    }
}
