import TVEJSON

/// A `POST /verify` body: one request object, a JSON array of them, or JSON lines (one object per line).
enum VerificationRequestBody {
    /// One token to verify, or why its object is not a request.
    enum Item {
        case request(token: String, requestor: String, resource: String?)
        case malformed(String)
    }

    case single(Item)
    case array([Item])
    case lines([Item])
    /// Not JSON of any of the three shapes, or a batch over the limit.
    case refused(String)

    static let shape = #"the body must be JSON {\"token\", \"requestor\", \"resource\"?}, an array of them, or JSON lines"#

    init(_ body: UnsafeRawBufferPointer, maximumItems: Int) {
        if let value = try? JSONValue.parse(body) {
            switch value {
            case .object: self = .single(Self.item(value))
            case .array(let values):
                guard !values.isEmpty else {
                    self = .refused("the batch is empty")
                    return
                }
                guard values.count <= maximumItems else {
                    self = .refused("a batch holds at most \(maximumItems) tokens")
                    return
                }
                self = .array(values.map(Self.item))
            default: self = .refused(Self.shape)
            }
            return
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
                    guard items.count < maximumItems else {
                        self = .refused("a batch holds at most \(maximumItems) tokens")
                        return
                    }
                    guard let value = try? JSONValue.parse(line), case .object = value else {
                        self = .refused(Self.shape)
                        return
                    }
                    items.append(Self.item(value))
                }
                start = index + 1
            }
            index += 1
        }
        self = items.count > 1 ? .lines(items) : .refused(Self.shape)
    }

    static func item(_ value: JSONValue) -> Item {
        guard case .object(let fields) = value, case .string(let token)? = fields["token"],
            case .string(let requestor)? = fields["requestor"]
        else { return .malformed(#"a request is JSON {\"token\", \"requestor\", \"resource\"?}"#) }
        switch fields["resource"] {
        case nil, .null?: return .request(token: token, requestor: requestor, resource: nil)
        case .string(let resource)?: return .request(token: token, requestor: requestor, resource: resource)
        default: return .malformed("resource must be a string")
        }
    }
}
