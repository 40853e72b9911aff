/// A protected resource written as an MRSS document, and how TVEKit compares resources (`FORMATS.md` §1,
/// "Resources and MRSS", a **choice**).
///
/// Adobe documents that a plain resource ID such as `TNT` stands for
/// `<rss version="2.0"><channel><title>TNT</title></channel></rss>`; real tokens carry MRSS documents in
/// `resourceID`. ``resource(_:matches:)`` decides whether a token's resource matches the one a player asks for:
///
/// - equal bytes match;
/// - a request for a plain ID matches a token whose MRSS document names that channel (`rss/channel/title`), with or
///   without items;
/// - otherwise both sides are read as MRSS (a plain ID standing for the channel-only document above) and match
///   when their normalised trees are equal: element names as written (no namespace resolution), attributes as a
///   set of name and value, children in order, and each element's text (character data and CDATA joined) with
///   leading and trailing XML whitespace removed.
///
/// Reading is hardened: at most ``maximumBytes``, depth at most ``maximumDepth``, at most ``maximumElements``
/// elements and ``maximumAttributes`` attributes per element; an optional XML declaration; no DOCTYPE, other
/// processing instruction, comment, entity beyond the five predefined ones, or numeric character reference. The
/// root must be `rss`, with exactly one `channel` that has exactly one `title`.
public struct MRSSResource: Sendable, Hashable {
    /// The channel's title (`rss/channel/title`), the plain resource ID it stands for.
    public var channelTitle: String { String(decoding: channelTitleBytes, as: UTF8.self) }

    let root: Element
    let channelTitleBytes: [UInt8]

    /// The largest document read (the token's field limit).
    public static let maximumBytes = 16384
    /// The deepest nesting of elements (`rss` is depth 1).
    public static let maximumDepth = 16
    /// The most elements in one document.
    public static let maximumElements = 256
    /// The most attributes on one element.
    public static let maximumAttributes = 16

    /// Reads an MRSS document.
    /// - Throws: ``MediaTokenError`` with ``MediaTokenError/Code/malformedResource`` (what and the byte offset).
    public init(parsing document: String) throws {
        var reader = MRSSReader(bytes: Array(document.utf8))
        try self.init(root: reader.read())
    }

    /// The channel-only document a plain resource ID stands for.
    public init(channel title: String) {
        let titleElement = Element(name: Array("title".utf8), attributes: [], text: Array(title.utf8), children: [])
        let channel = Element(name: Array("channel".utf8), attributes: [], text: [], children: [titleElement])
        root = Element(
            name: Array("rss".utf8), attributes: [Attribute(name: Array("version".utf8), value: Array("2.0".utf8))],
            text: [], children: [channel])
        channelTitleBytes = Array(title.utf8)
    }

    private init(root: Element) throws {
        func fail(_ reason: String) -> MediaTokenError { .malformedResource(reason: reason) }
        guard root.name == Array("rss".utf8) else { throw fail("the root element is not rss") }
        let channels = root.children.filter { $0.name == Array("channel".utf8) }
        guard channels.count == 1, let channel = channels.first else { throw fail("rss must have exactly one channel") }
        let titles = channel.children.filter { $0.name == Array("title".utf8) }
        guard titles.count == 1, let title = titles.first else { throw fail("the channel must have exactly one title") }
        self.root = root
        channelTitleBytes = title.text
    }

    /// Whether a token's `resourceID` matches the resource a caller asks for (rules above). A value whose first
    /// byte is `<` is read as MRSS; one that cannot be read matches only itself, byte for byte.
    public static func resource(_ tokenResource: String, matches expected: String) -> Bool {
        if MediaTokenVerifier.sameBytes(tokenResource, expected) { return true }
        let tokenIsMRSS = tokenResource.utf8.first == UInt8(ascii: "<")
        let expectedIsMRSS = expected.utf8.first == UInt8(ascii: "<")
        switch (tokenIsMRSS, expectedIsMRSS) {
        case (false, false):
            return false
        case (true, false):
            guard let token = try? MRSSResource(parsing: tokenResource) else { return false }
            return token.channelTitleBytes.elementsEqual(expected.utf8)
        case (false, true):
            guard let request = try? MRSSResource(parsing: expected) else { return false }
            return request.root == MRSSResource(channel: tokenResource).root
        case (true, true):
            guard let token = try? MRSSResource(parsing: tokenResource), let request = try? MRSSResource(parsing: expected) else {
                return false
            }
            return token.root == request.root
        }
    }

    /// One attribute; names and values are compared as bytes.
    struct Attribute: Hashable, Sendable, Comparable {
        let name: [UInt8]
        let value: [UInt8]

        static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.name.lexicographicallyPrecedes(rhs.name) || (lhs.name == rhs.name && lhs.value.lexicographicallyPrecedes(rhs.value))
        }
    }

    /// A normalised element: attributes sorted, text trimmed; compared as bytes (no Unicode equivalence).
    struct Element: Hashable, Sendable {
        let name: [UInt8]
        let attributes: [Attribute]
        let text: [UInt8]
        let children: [Element]
    }
}

/// The hardened reader behind ``MRSSResource``: a strict subset of XML 1.0 over UTF-8 bytes.
struct MRSSReader {
    let bytes: [UInt8]
    var index = 0
    var elements = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ what: String) -> MediaTokenError { .malformedResource(reason: "\(what) at byte \(index)") }

    private func peek(_ literal: String) -> Bool {
        let utf8 = literal.utf8
        return bytes.count - index >= utf8.count && bytes[index..<(index + utf8.count)].elementsEqual(utf8)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private mutating func skipSpace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    mutating func read() throws -> MRSSResource.Element {
        guard bytes.count <= MRSSResource.maximumBytes else {
            throw MediaTokenError.malformedResource(
                reason: "the MRSS document is \(bytes.count) bytes; the limit is \(MRSSResource.maximumBytes)")
        }
        if peek("<?xml"), index + 5 < bytes.count, Self.isSpace(bytes[index + 5]) {
            guard let end = find("?>", from: index + 5) else { throw fail("the XML declaration is not closed") }
            index = end + 2
        }
        skipSpace()
        try checkMarkup()
        let root = try element(depth: 1)
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected content after the root element") }
        return root
    }

    private func find(_ literal: String, from start: Int) -> Int? {
        let utf8 = Array(literal.utf8)
        var position = start
        while position + utf8.count <= bytes.count {
            if bytes[position] == utf8[0], bytes[position..<(position + utf8.count)].elementsEqual(utf8) { return position }
            position += 1
        }
        return nil
    }

    /// Refuses the markup the subset leaves out, at a `<`.
    private func checkMarkup() throws {
        if peek("<!--") { throw fail("comments are not accepted") }
        if peek("<!DOCTYPE") || (peek("<!") && !peek("<![CDATA[")) { throw fail("DOCTYPE and declarations are not accepted") }
        if peek("<?") { throw fail("processing instructions are not accepted") }
    }

    private mutating func name() throws -> [UInt8] {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let other = byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            let later = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard letter || other || (index > start && later) else { break }
            index += 1
        }
        guard index > start else { throw fail("expected a name") }
        return Array(bytes[start..<index])
    }

    private mutating func element(depth: Int) throws -> MRSSResource.Element {
        guard depth <= MRSSResource.maximumDepth else { throw fail("elements are nested deeper than \(MRSSResource.maximumDepth)") }
        elements += 1
        guard elements <= MRSSResource.maximumElements else { throw fail("more than \(MRSSResource.maximumElements) elements") }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw fail("expected an element") }
        index += 1
        let elementName = try name()
        var attributes: [MRSSResource.Attribute] = []
        while true {
            let before = index
            skipSpace()
            guard index < bytes.count else { throw fail("the tag is not closed") }
            if peek("/>") {
                index += 2
                return MRSSResource.Element(name: elementName, attributes: attributes.sorted(), text: [], children: [])
            }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            guard index > before else { throw fail("expected whitespace before an attribute") }
            let attributeName = try name()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw fail("expected '='") }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw fail("expected a quoted attribute value")
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote {
                guard bytes[index] != UInt8(ascii: "<") else { throw fail("'<' in an attribute value") }
                index += 1
            }
            guard index < bytes.count else { throw fail("the attribute value is not closed") }
            var value: [UInt8] = []
            try decode(start..<index, to: &value)
            index += 1
            guard !attributes.contains(where: { $0.name == attributeName }) else { throw fail("a duplicate attribute") }
            attributes.append(MRSSResource.Attribute(name: attributeName, value: value))
            guard attributes.count <= MRSSResource.maximumAttributes else {
                throw fail("more than \(MRSSResource.maximumAttributes) attributes on one element")
            }
        }
        var text: [UInt8] = []
        var children: [MRSSResource.Element] = []
        while true {
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
            try decode(start..<index, to: &text)
            guard index < bytes.count else { throw fail("the element is not closed") }
            if peek("</") {
                index += 2
                guard try name() == elementName else { throw fail("the closing tag does not match") }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw fail("expected '>'") }
                index += 1
                return MRSSResource.Element(
                    name: elementName, attributes: attributes.sorted(), text: Self.trimmed(text), children: children)
            }
            if peek("<![CDATA[") {
                guard let end = find("]]>", from: index + 9) else { throw fail("the CDATA section is not closed") }
                text += bytes[(index + 9)..<end]
                index = end + 3
                continue
            }
            try checkMarkup()
            children.append(try element(depth: depth + 1))
        }
    }

    /// Character data: the five entities, no other `&`, no `]]>`.
    private func decode(_ range: Range<Int>, to out: inout [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            do {
                try MediaTokenText.appendCharacterData(
                    UnsafeRawBufferPointer(rebasing: raw[range]), offset: range.lowerBound,
                    field: "the MRSS document", to: &out)
            } catch let error as MediaTokenError {
                throw MediaTokenError.malformedResource(reason: error.reason)
            }
        }
    }

    private static func trimmed(_ text: [UInt8]) -> [UInt8] {
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return [] }
        return Array(text[first...last])
    }
}
