import TVEJSON

/// A `POST /verify` body: one request object, a JSON array of them, or JSON lines (one object per line).
///
/// Read in one pass by ``fast(_:maximumItems:)`` when it has the usual shape (objects of `token`, `requestor` and
/// `resource` only, printable ASCII strings without escapes): the items are then ranges of the body, with no parse
/// tree and no copy. Anything else goes to the strict reader (``strict(_:maximumItems:)``: TVEJSON's parser, which
/// refuses duplicate keys, bad UTF-8 and deep nesting), whose answer is the reference: on every body the fast path
/// accepts, both give the same items (the `FuzzVerifyReader` fuzzer checks it).
enum VerificationRequestBody: Equatable {
    /// A string of the request: a range of the body's bytes (printable ASCII, no escapes), or decoded text.
    enum Text: Equatable {
        case bytes(Range<Int>)
        case string(String)

        /// Runs `body` with the text's UTF-8 bytes.
        func withBytes<Result>(in request: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            switch self {
            case .bytes(let range): return body(UnsafeRawBufferPointer(rebasing: request[range]))
            case .string(let text):
                var text = text
                return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            }
        }

        /// The text as a string.
        func string(in request: UnsafeRawBufferPointer) -> String {
            switch self {
            case .bytes(let range): return String(decoding: UnsafeRawBufferPointer(rebasing: request[range]), as: UTF8.self)
            case .string(let text): return text
            }
        }
    }

    /// One token to verify, or why its object is not a request.
    enum Item: Equatable {
        case request(token: Text, requestor: Text, resource: String?)
        case malformed(String)
    }

    case single(Item)
    case array([Item])
    case lines([Item])
    /// Not JSON of any of the three shapes, or a batch over the limit.
    case refused(String)

    /// Whether the body is JSON lines.
    var isLines: Bool { if case .lines = self { true } else { false } }

    static let shape = #"the body must be JSON {"token", "requestor", "resource"?}, an array of them, or JSON lines"#
    static let itemShape = #"a request is JSON {"token", "requestor", "resource"?}"#

    init(_ body: UnsafeRawBufferPointer, maximumItems: Int) {
        self = Self.fast(body, maximumItems: maximumItems) ?? Self.strict(body, maximumItems: maximumItems)
    }

    // MARK: The strict reader (the reference)

    /// Reads any body with TVEJSON's strict parser.
    static func strict(_ body: UnsafeRawBufferPointer, maximumItems: Int) -> VerificationRequestBody {
        if let value = try? JSONValue.parse(body) {
            switch value {
            case .object: return .single(Self.item(value))
            case .array(let values):
                guard !values.isEmpty else { return .refused("the batch is empty") }
                guard values.count <= maximumItems else { return .refused("a batch holds at most \(maximumItems) tokens") }
                return .array(values.map(Self.item))
            default: return .refused(Self.shape)
            }
        }
        // JSON lines: one object per non-empty line.
        var items: [Item] = []
        var start = 0
        var index = 0
        let newline = UInt8(ascii: "\n")
        while index <= body.count {
            if index == body.count || body[index] == newline {
                let line = UnsafeRawBufferPointer(rebasing: body[start..<index])
                if line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
                    guard items.count < maximumItems else { return .refused("a batch holds at most \(maximumItems) tokens") }
                    guard let value = try? JSONValue.parse(line), case .object = value else { return .refused(Self.shape) }
                    items.append(Self.item(value))
                }
                start = index + 1
            }
            index += 1
        }
        return items.count > 1 ? .lines(items) : .refused(Self.shape)
    }

    static func item(_ value: JSONValue) -> Item {
        guard case .object(let fields) = value, case .string(let token)? = fields["token"],
            case .string(let requestor)? = fields["requestor"]
        else { return .malformed(Self.itemShape) }
        switch fields["resource"] {
        case nil, .null?: return .request(token: .string(token), requestor: .string(requestor), resource: nil)
        case .string(let resource)?: return .request(token: .string(token), requestor: .string(requestor), resource: resource)
        default: return .malformed("resource must be a string")
        }
    }
}
