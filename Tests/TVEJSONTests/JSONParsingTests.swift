import Foundation
import Testing
import TVEJSON

@Suite("Strict JSON parsing")
struct JSONParsingTests {
    static func parse(_ text: String) throws(JSONParsingError) -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test("values of every kind, with exact integers")
    func values() throws {
        #expect(
            try Self.parse(#"{"a":[1,-2,3.5,true,false,null,"x"],"b":{}}"#)
                == .object([
                    "a": .array([.integer(1), .integer(-2), .number(3.5), .bool(true), .bool(false), .null, .string("x")]),
                    "b": .object([:]),
                ]))
        #expect(try Self.parse("9223372036854775807") == .integer(.max))
        #expect(try Self.parse("-9223372036854775808") == .integer(.min))
        #expect(try Self.parse("9223372036854775808").integerValue == nil, "beyond Int64 is a Double")
        #expect(try Self.parse(" \t\r\n[ ] ") == .array([]))
        #expect(try Self.parse("1e3") == .integer(1000), "JSON equality: 1e3 equals 1000")
        #expect(try Self.parse(#""\u00e9\ud83d\ude00\n\"\\\/""#) == .string("é😀\n\"\\/"))
    }

    @Test(
        "refused: each rule names the byte offset",
        arguments: [
            (#"{"a":1,"a":2}"#, "duplicate object key"),
            (#"{"a":1,}"#, "trailing comma in an object"),
            ("[1,]", "trailing comma in an array"),
            ("01", "leading zero"),
            ("1 2", "data after the value"),
            ("[1", "unterminated array"),
            (#""abc"#, "unterminated string"),
            ("\"a\u{01}b\"", "control character in a string"),
            (#""\ud800""#, "lone high surrogate"),
            (#""\udc00""#, "lone low surrogate"),
            (#""\ud800\u0041""#, "high surrogate without its low surrogate"),
            (#""\x""#, "invalid escape"),
            (#""\u12G4""#, "non-hex digit"),
            ("tru", "truncated literal"),
            ("nul1", "invalid literal"),
            ("+1", "plus sign"),
            (".5", "no integer part"),
            ("1.", "no fraction digits"),
            ("NaN", "not a JSON value"),
            ("", "empty text"),
        ])
    func refused(text: String, rule: String) {
        do {
            _ = try Self.parse(text)
            Issue.record("accepted: \(rule)")
        } catch {
            #expect(error.offset >= 0 && error.offset <= text.utf8.count, "\(rule): \(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    @Test(
        "invalidUTF8IsRefused: overlong forms, surrogates and stray continuation bytes",
        arguments: [
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        ] as [[UInt8]])
    func invalidUTF8IsRefused(bytes: [UInt8]) {
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: bytes) }
    }

    @Test("deepNestingIsRefused: 64 levels parse, 65 do not (no stack exhaustion on hostile input)")
    func deepNestingIsRefused() throws {
        _ = try Self.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        #expect(throws: JSONParsingError.self) { try Self.parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) }
        #expect(throws: JSONParsingError.self) { try Self.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test("oversizedTextIsRefused: the parsing initialisers stop at 16 MiB")
    func oversizedTextIsRefused() {
        let huge = [UInt8](repeating: 0x20, count: JSONValue.maximumBytes + 1)
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: huge) }
    }
}

@Suite("JSON writing")
struct JSONWritingTests {
    @Test("compact text with sorted keys survives a round trip")
    func roundTrip() throws {
        let value: JSONValue = .object([
            "b": .array([.integer(1), .number(2.5), .null]), "a": .string("é \"q\" \\ \n \u{01}"), "c": .bool(true),
        ])
        let text = value.jsonText
        #expect(text.hasPrefix(#"{"a":"#))
        #expect(text.contains(#"\u0001"#) && text.contains(#"\n"#) && text.contains(#"\""#))
        #expect(try JSONValue(parsing: Array(text.utf8)) == value)
    }

    @Test("writeString escapes what JSON requires and nothing a reader would misread")
    func writeString() throws {
        var output = ""
        JSONValue.writeString("<tag> & \u{2028} \u{7F} \t", to: &output)
        let back = try JSONValue(parsing: Array(output.utf8))
        #expect(back == .string("<tag> & \u{2028} \u{7F} \t"))
        #expect(!output.contains("\t"))
    }

    @Test("Codable: decodes and encodes through Foundation's coders")
    func codable() throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"zip":["12345"],"n":3,"ok":true}"#.utf8))
        #expect(value.objectValue?["zip"]?.arrayValue?.first?.stringValue == "12345")
        #expect(value.objectValue?["n"]?.integerValue == 3)
        #expect(value.objectValue?["ok"]?.boolValue == true)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }
}

@Suite("JSON parsing error codes")
struct JSONParsingErrorCodeTests {
    @Test(
        "each refusal has its stable code",
        arguments: [
            ("{\"a\":1,}", JSONParsingError.Code.syntax), ("1 2", .trailingData), (#"{"a":1,"a":2}"#, .duplicateKey),
            (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), .tooDeep), ("\"\u{01}\"", .invalidString),
            (#""\ud800""#, .invalidString), ("012", .invalidNumber), ("1e999", .invalidNumber),
        ])
    func codes(text: String, code: JSONParsingError.Code) {
        #expect(throws: JSONParsingError(code, offset: 0, reason: "")) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test("invalid UTF-8 and oversized text have their codes")
    func bytes() {
        #expect(throws: JSONParsingError(.invalidUTF8, offset: 0, reason: "")) { try JSONValue(parsing: [0x22, 0xC0, 0xAF, 0x22]) }
        #expect(throws: JSONParsingError(.tooLarge, offset: 0, reason: "")) {
            try JSONValue(parsing: [UInt8](repeating: 0x20, count: JSONValue.maximumBytes + 1))
        }
    }
}
