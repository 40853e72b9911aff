/// The one-pass reader of the usual `POST /verify` body (see ``VerificationRequestBody``).
extension VerificationRequestBody {
    /// The body read in one pass, or nil when it is not of the usual shape (the strict reader then decides): one
    /// object, an array of objects, or objects on separate lines; each object with the keys `token`, `requestor` and
    /// optionally `resource` (a string or null) once each, in any order, and nothing else; every key and string
    /// printable ASCII without escapes; at most `maximumItems` objects.
    static func fast(_ body: UnsafeRawBufferPointer, maximumItems: Int) -> VerificationRequestBody? {
        var reader = FastReader(body: body)
        reader.skipWhitespace()
        guard reader.index < body.count else { return nil }
        switch body[reader.index] {
        case UInt8(ascii: "{"):
            guard let first = reader.object() else { return nil }
            let firstSpansLines = reader.objectSpannedLines
            let newlines = reader.skipWhitespace()
            if reader.index == body.count { return .single(first) }
            // JSON lines: every object on a line of its own, none across lines.
            guard !firstSpansLines else { return nil }
            var items = [first]
            var separated = newlines > 0
            while reader.index < body.count {
                guard separated, items.count < maximumItems, body[reader.index] == UInt8(ascii: "{"), let item = reader.object(),
                    !reader.objectSpannedLines
                else {
                    return nil
                }
                items.append(item)
                separated = reader.skipWhitespace() > 0
            }
            return .lines(items)
        case UInt8(ascii: "["):
            reader.index += 1
            var items: [Item] = []
            reader.skipWhitespace()
            while true {
                guard items.count < maximumItems, reader.index < body.count, body[reader.index] == UInt8(ascii: "{"),
                    let item = reader.object()
                else { return nil }
                items.append(item)
                reader.skipWhitespace()
                guard reader.index < body.count else { return nil }
                if body[reader.index] == UInt8(ascii: "]") {
                    reader.index += 1
                    break
                }
                guard body[reader.index] == UInt8(ascii: ",") else { return nil }
                reader.index += 1
                reader.skipWhitespace()
            }
            reader.skipWhitespace()
            return reader.index == body.count ? .array(items) : nil
        default:
            return nil
        }
    }

    /// A cursor over the body.
    struct FastReader {
        let body: UnsafeRawBufferPointer
        var index = 0
        /// Whether the last object read had a line feed inside it.
        var objectSpannedLines = false

        /// Skips JSON whitespace; returns how many line feeds it passed.
        @discardableResult
        mutating func skipWhitespace() -> Int {
            var newlines = 0
            while index < body.count {
                switch body[index] {
                case 0x20, 0x09, 0x0D: break
                case 0x0A: newlines += 1
                default: return newlines
                }
                index += 1
            }
            return newlines
        }

        /// A string of printable ASCII without escapes: the range of its content (nil for anything else). Eight bytes
        /// at a time while no byte can end or spoil the string, then byte by byte.
        mutating func plainString() -> Range<Int>? {
            guard index < body.count, body[index] == UInt8(ascii: "\""), let base = body.baseAddress else { return nil }
            let start = index + 1
            var end = start
            while end + 8 <= body.count, Self.isPlain(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: end, as: UInt64.self))) {
                end += 8
            }
            while end < body.count {
                let byte = body[end]
                if byte == UInt8(ascii: "\"") {
                    index = end + 1
                    return start..<end
                }
                guard byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            return nil
        }

        /// Whether none of eight bytes is below 0x20, above 0x7E, a quote or a backslash. Never true when one is (it may
        /// be false when none is: the byte loop then decides).
        static func isPlain(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
            let below = (word &- ones &* 0x20) & ~word & highs
            let above = ((word &+ ones) | word) & highs
            return below == 0 && above == 0 && !hasZeroByte(word ^ (ones &* 0x22)) && !hasZeroByte(word ^ (ones &* 0x5C))
        }

        /// Whether the range holds exactly `word`.
        func range(_ range: Range<Int>, is word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            return word.withUTF8Buffer { expected in
                var offset = 0
                for position in range {
                    guard body[position] == expected[offset] else { return false }
                    offset += 1
                }
                return true
            }
        }

        /// One request object, or nil when it is not of the usual shape.
        mutating func object() -> Item? {
            guard index < body.count, body[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            // Strings hold no line feed (plainString refuses control bytes): only the whitespace inside can.
            var newlines = 0
            defer { objectSpannedLines = newlines > 0 }
            var token: Range<Int>?
            var requestor: Range<Int>?
            var resource: Range<Int>??
            newlines += skipWhitespace()
            while true {
                guard let key = plainString() else { return nil }
                newlines += skipWhitespace()
                guard index < body.count, body[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                newlines += skipWhitespace()
                if range(key, is: "token") {
                    guard token == nil, let value = plainString() else { return nil }
                    token = value
                } else if range(key, is: "requestor") {
                    guard requestor == nil, let value = plainString() else { return nil }
                    requestor = value
                } else if range(key, is: "resource") {
                    guard resource == nil else { return nil }
                    if let value = plainString() {
                        resource = .some(value)
                    } else if index + 4 <= body.count, self.range(index..<index + 4, is: "null") {
                        index += 4
                        resource = .some(nil)
                    } else {
                        return nil
                    }
                } else {
                    return nil
                }
                newlines += skipWhitespace()
                guard index < body.count else { return nil }
                if body[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                }
                guard body[index] == UInt8(ascii: ",") else { return nil }
                index += 1
                newlines += skipWhitespace()
            }
            guard let token, let requestor else { return nil }
            let resourceText = resource.flatMap { $0 }.map { String(decoding: UnsafeRawBufferPointer(rebasing: body[$0]), as: UTF8.self) }
            return .request(token: .bytes(token), requestor: .bytes(requestor), resource: resourceText)
        }
    }
}

/// The two readers side by side, for the `FuzzVerifyReader` fuzzer and the tests (not API).
package enum VerificationRequestReading {
    /// A body as each reader reads it, in comparable text: the shape, then one line per item. `fast` is nil when the
    /// fast reader declined the body.
    package static func readings(_ body: UnsafeRawBufferPointer, maximumItems: Int) -> (fast: [String]?, strict: [String]) {
        (
            VerificationRequestBody.fast(body, maximumItems: maximumItems).map { describe($0, body) },
            describe(VerificationRequestBody.strict(body, maximumItems: maximumItems), body)
        )
    }

    private static func describe(_ request: VerificationRequestBody, _ body: UnsafeRawBufferPointer) -> [String] {
        func item(_ item: VerificationRequestBody.Item) -> String {
            switch item {
            case .request(let token, let requestor, let resource):
                return "request \(token.string(in: body).debugDescription) \(requestor.string(in: body).debugDescription) "
                    + (resource?.debugDescription ?? "nil")
            case .malformed(let reason): return "malformed \(reason)"
            }
        }
        switch request {
        case .single(let only): return ["single", item(only)]
        case .array(let items): return ["array"] + items.map(item)
        case .lines(let items): return ["lines"] + items.map(item)
        case .refused(let reason): return ["refused \(reason)"]
        }
    }
}
