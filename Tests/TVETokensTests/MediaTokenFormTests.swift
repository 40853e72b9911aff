import Foundation
import Testing
import TVECrypto
@testable import TVETokens

@Suite("Media tokens: the real wire form, the documented form, CDATA and dated issue times")
struct MediaTokenFormTests {
    /// The real form with a fixed signature: parsing does not check it.
    static let real =
        "<signatureInfo>AAAA<signatureInfo><authToken><sessionGUID>g</sessionGUID><requestorID>MML</requestorID><resourceID>truTV</resourceID><ttl>420000</ttl><issueTime>2017-03-15 16:40:46 -0700</issueTime><mvpdId>TWC</mvpdId></authToken>"

    @Test("the real form parses: no slash on signatureInfo, authToken root, dated issueTime")
    func realFormParses() throws {
        let token = try ShortMediaToken(parsing: Self.real)
        #expect(token.form == .adobe(utcOffsetMinutes: -420))
        #expect(token.issueTime == 1_489_621_246_000)
        #expect(token.issueTimeText == "2017-03-15 16:40:46 -0700")
        #expect(token.requestorID == "MML" && token.resourceID == "truTV" && token.mvpdId == "TWC" && token.ttl == 420_000)
        #expect(token.proxyMvpdId == nil)
        #expect(String(decoding: token.signedBytes, as: UTF8.self).hasPrefix("<authToken><sessionGUID>g<"))
        #expect(try ShortMediaToken(parsing: Base64.encode(Array(Self.real.utf8), lineLength: 76)) == token)
    }

    @Test(
        "each form choice is read independently and recorded",
        arguments: [
            ("<signatureInfo>", "authToken", "2017-03-15 16:40:46 -0700"),
            ("</signatureInfo>", "authToken", "1489621246000"),
            ("<signatureInfo>", "shortAuthorizationToken", "1489621246000"),
            ("</signatureInfo>", "shortAuthorizationToken", "2017-03-15 23:40:46 +0000"),
        ])
    func mixedForms(end: String, root: String, time: String) throws {
        let text =
            "<signatureInfo>AAAA\(end)<\(root)><sessionGUID>g</sessionGUID><requestorID>r</requestorID><resourceID>s</resourceID><ttl>1</ttl><issueTime>\(time)</issueTime><mvpdId>m</mvpdId></\(root)>"
        let token = try ShortMediaToken(parsing: text)
        #expect(token.form.signatureInfoEnd == (end.hasPrefix("</") ? .slashed : .unslashed))
        #expect(token.form.root.rawValue == root)
        #expect(token.issueTime == 1_489_621_246_000)
        #expect(token.issueTimeText == time)
    }

    @Test(
        "dated issue times: leap years, offsets, the year 9999",
        arguments: [
            ("2000-02-29 00:00:00 +0000", Int64(951_782_400_000)),
            ("2024-02-29 12:00:00 +0530", Int64(1_709_188_200_000)),
            ("1970-01-01 00:00:00 +0000", Int64(0)),
            ("1970-01-01 23:59:00 +2359", Int64(0)),
            ("2017-03-15 16:40:46 -0000", Int64(1_489_596_046_000)),
            ("9999-12-31 23:59:59 -2359", Int64(253_402_387_139_000)),
        ])
    func datedIssueTimes(text: String, milliseconds: Int64) throws {
        let token = try ShortMediaToken(parsing: Self.real.replacingOccurrences(of: "2017-03-15 16:40:46 -0700", with: text))
        #expect(token.issueTime == milliseconds)
        // The writer gives the same text back for the same instant and offset.
        #expect(
            try MediaTokenWriter.issueTimeText(token.issueTime, token.form.issueTimeEncoding)
                == text.replacingOccurrences(of: "-0000", with: "+0000"))
    }

    @Test("CDATA: sections, mixed with character data and entities, and the nested split")
    func cdata() throws {
        func resource(_ text: String) throws -> String {
            try ShortMediaToken(
                parsing: Self.real.replacingOccurrences(of: "<resourceID>truTV</resourceID>", with: "<resourceID>\(text)</resourceID>")
            ).resourceID
        }
        #expect(
            try resource("<![CDATA[<rss version=\"2.0\"><channel><title>truTV</title></channel></rss>]]>")
                == "<rss version=\"2.0\"><channel><title>truTV</title></channel></rss>")
        #expect(try resource("a&amp;<![CDATA[<b>&amp;]]>c&lt;<![CDATA[]]>d") == "a&<b>&amp;c<d")
        #expect(try resource("<![CDATA[x]]]]><![CDATA[>y]]>") == "x]]>y")
        #expect(try resource("<![CDATA[]]]]>") == "]]")
        #expect(try resource("<![CDATA[é日本]]>") == "é日本")
        let ttl = try ShortMediaToken(parsing: Self.real.replacingOccurrences(of: "<ttl>420000</ttl>", with: "<ttl><![CDATA[42]]>0</ttl>"))
        #expect(ttl.ttl == 420)
    }

    @Test(
        "the writer splits ]]> and the parser gives the value back",
        arguments: [
            "a]]>b", "]]>", "x]]]>y", "<rss><channel><title>]]></title></channel></rss>", "]]]]>>", "&<>", "plain", "é & ü",
        ])
    func writerRoundTrip(value: String) throws {
        let token = try TokenFixtures.token(resource: value)
        #expect(try ShortMediaToken(parsing: token.serialized).resourceID == value)
        #expect(try TokenFixtures.verifier().verify(token.serialized).isValid)
    }

    @Test("tamperingInsideCDATAIsInvalidSignature: a changed byte inside a CDATA section breaks the signature")
    func tamperingInsideCDATAIsInvalidSignature() throws {
        let mrss = #"<rss version="2.0"><channel><title>Basic</title></channel></rss>"#
        let token = try TokenFixtures.token(resource: mrss)
        let text = String(decoding: token.text, as: UTF8.self)
        #expect(text.contains("<![CDATA[<rss"))
        let forged = text.replacingOccurrences(of: "<title>Basic</title>", with: "<title>Sport</title>")
        let outcome = try TokenFixtures.verifier().verify(forged, resourceID: "Sport")
        #expect(outcome.result == .invalidSignature)
        #expect(outcome.token == nil)
    }

    @Test("the issuer writes the real form by default, with a configurable offset, and the documented form on request")
    func issuerForms() throws {
        let token = try TokenFixtures.token(issueTime: 1_489_621_246_123)
        let text = String(decoding: token.text, as: UTF8.self)
        #expect(text.contains("==<signatureInfo><authToken><sessionGUID>"))
        #expect(text.contains("<issueTime>2017-03-15 23:40:46 +0000</issueTime>"))
        #expect(!text.contains("proxyMvpdId"))
        #expect(token.issueTime == 1_489_621_246_000)
        let pacific = try TokenFixtures.token(issueTime: 1_489_621_246_000, form: .adobe(utcOffsetMinutes: -420))
        #expect(String(decoding: pacific.text, as: UTF8.self).contains("<issueTime>2017-03-15 16:40:46 -0700</issueTime>"))
        #expect(try ShortMediaToken(parsing: pacific.serialized) == pacific)
        let documented = try TokenFixtures.token(issueTime: 1_489_621_246_123, form: .documented)
        #expect(String(decoding: documented.text, as: UTF8.self).contains("</signatureInfo><shortAuthorizationToken>"))
        #expect(documented.issueTimeText == "1489621246123")
        #expect(try ShortMediaToken(parsing: documented.serialized) == documented)
        #expect(throws: MediaTokenError.invalidField()) { try TokenFixtures.token(form: .adobe(utcOffsetMinutes: 1440)) }
    }

    @Test("rejects1024BitKeyWithoutOptIn: a 1024-bit key is trusted only when the caller opts in")
    func rejects1024BitKeyWithoutOptIn() throws {
        let pem = try TokenFixtures.bytes("TestVectors/fixtures/rsa1024.spki.pem")
        #expect(throws: TVECryptoError.keyTooSmall()) { try RSAPublicKey(encodedKeyOrCertificate: pem) }
        #expect(throws: TVECryptoError.keyTooSmall()) { try RSAPublicKey.keys(encodedKeysOrCertificates: pem) }
        let key = try RSAPublicKey(encodedKeyOrCertificate: pem, allowing1024BitKeys: true)
        #expect(key.keySizeInBits == 1024)
        #expect(try RSAPublicKey.keys(encodedKeysOrCertificates: pem, allowing1024BitKeys: true) == [key])
        #expect(throws: MediaTokenError.invalidConfiguration()) {
            try MediaTokenVerifier(trustedKeys: [key], requestorID: "r")
        }
        _ = try MediaTokenVerifier(trustedKeys: [key], requestorID: "r", allowing1024BitKeys: true)
    }

    @Test("signing keeps the 2048-bit floor")
    func signingFloor() throws {
        let pem = String(decoding: try TokenFixtures.bytes("TestVectors/fixtures/rsa1024.pkcs8.pem"), as: UTF8.self)
        let weak = try RSAPrivateKey(unsafePEMRepresentation: pem)
        #expect(throws: MediaTokenError.invalidConfiguration()) {
            try MediaTokenIssuer(privateKey: weak).issue(requestorID: "r", resourceID: "s", mvpdId: "m")
        }
    }

    @Test("the JSON report gives issueTime as epoch milliseconds and the text as sent")
    func report() throws {
        let token = try TokenFixtures.token(issueTime: TokenFixtures.now - 100_000, form: .adobe(utcOffsetMinutes: -480))
        let outcome = try TokenFixtures.verifier().verify(token.serialized)
        let json = MediaTokenVerificationReport(outcome).jsonText
        #expect(json.contains(#""issueTime":1767225500000,"issueTimeText":"2025-12-31 15:58:20 -0800""#))
        #expect(outcome.token?.form == .adobe(utcOffsetMinutes: -480))
    }
}

@Suite("Media tokens: MRSS resources")
struct MRSSResourceTests {
    static let tnt = #"<rss version="2.0"><channel><title>TNT</title></channel></rss>"#
    static let episode =
        #"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>TNT</title><item><title>Episode 1</title><guid>e1</guid><media:rating scheme="urn:v-chip">tv-14</media:rating></item></channel></rss>"#

    @Test("a plain request accepts an MRSS token of that channel, with or without items")
    func plainMatchesChannel() {
        #expect(MRSSResource.resource(Self.tnt, matches: "TNT"))
        #expect(MRSSResource.resource(Self.episode, matches: "TNT"))
        #expect(!MRSSResource.resource(Self.tnt, matches: "CNN"))
        #expect(!MRSSResource.resource(Self.tnt, matches: "tnt"))
        #expect(!MRSSResource.resource("TNT", matches: "CNN"))
    }

    @Test("two MRSS documents match when their normalised trees are equal")
    func normalisedTrees() {
        let spaced =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version='2.0'>\n  <channel>\n    <title><![CDATA[TNT]]></title>\n  </channel>\n</rss>\n"
        #expect(MRSSResource.resource(spaced, matches: Self.tnt))
        #expect(MRSSResource.resource("TNT", matches: spaced))
        let reordered =
            #"<rss xmlns:media="http://search.yahoo.com/mrss/" version="2.0"><channel><title>TNT</title><item><title>Episode 1</title><guid>e1</guid><media:rating scheme="urn:v-chip">tv-14</media:rating></item></channel></rss>"#
        #expect(MRSSResource.resource(reordered, matches: Self.episode))
        let other = Self.episode.replacingOccurrences(of: "e1", with: "e2")
        #expect(!MRSSResource.resource(other, matches: Self.episode))
        #expect(!MRSSResource.resource(Self.episode, matches: Self.tnt))
        #expect(!MRSSResource.resource("TNT", matches: Self.episode))
    }

    @Test(
        "hostileMRSSMatchesNothing: DTDs, entities, comments, deep or wide documents never match",
        arguments: [
            "<!DOCTYPE rss [<!ENTITY t \"TNT\">]><rss version=\"2.0\"><channel><title>&t;</title></channel></rss>",
            "<rss version=\"2.0\"><channel><title>&#84;NT</title></channel></rss>",
            "<rss version=\"2.0\"><!-- c --><channel><title>TNT</title></channel></rss>",
            "<rss version=\"2.0\"><?pi x?><channel><title>TNT</title></channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT</title><title>TNT</title></channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT</title></channel><channel><title>TNT</title></channel></rss>",
            "<feed><channel><title>TNT</title></channel></feed>",
            "<rss version=\"2.0\"><channel><title>TNT</title></channel></rss>trailing",
            "<rss version=\"2.0\" version=\"2.0\"><channel><title>TNT</title></channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT</title></channel>",
            "<rss version=\"2.0\"><channel><title>TNT</titlex></channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT</title>" + String(repeating: "<a>", count: 15) + String(repeating: "</a>", count: 15)
                + "</channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT</title>" + String(repeating: "<i/>", count: 254) + "</channel></rss>",
            "<rss " + (0..<17).map { "a\($0)=\"1\"" }.joined(separator: " ") + "><channel><title>TNT</title></channel></rss>",
            "<rss version=\"2.0\"><channel><title>TNT]]></title></channel></rss>",
        ])
    func hostileMRSSMatchesNothing(document: String) {
        #expect(throws: MediaTokenError.malformedResource()) { try MRSSResource(parsing: document) }
        #expect(!MRSSResource.resource(document, matches: "TNT"))
    }

    @Test("the limits are inclusive: depth 16, 256 elements, 16 attributes")
    func limits() throws {
        let deep =
            "<rss version=\"2.0\"><channel><title>TNT</title>" + String(repeating: "<a>", count: 14) + String(repeating: "</a>", count: 14)
            + "</channel></rss>"
        #expect(try MRSSResource(parsing: deep).channelTitle == "TNT")
        let wide = "<rss version=\"2.0\"><channel><title>TNT</title>" + String(repeating: "<i/>", count: 253) + "</channel></rss>"
        #expect(try MRSSResource(parsing: wide).channelTitle == "TNT")
        let attributes = "<rss " + (0..<16).map { "a\($0)=\"1\"" }.joined(separator: " ") + "><channel><title>TNT</title></channel></rss>"
        #expect(try MRSSResource(parsing: attributes).channelTitle == "TNT")
    }

    @Test("a verifier asked for the plain channel accepts an MRSS token of that channel")
    func verifierUsesMRSS() throws {
        let token = try TokenFixtures.token(resource: Self.episode)
        #expect(try TokenFixtures.verifier().verify(token.serialized, resourceID: "TNT").isValid)
        #expect(try TokenFixtures.verifier().verify(token.serialized, resourceID: "CNN").result == .invalidResourceID)
        #expect(try TokenFixtures.verifier().verify(token.serialized, resourceID: Self.tnt).result == .invalidResourceID)
    }
}
