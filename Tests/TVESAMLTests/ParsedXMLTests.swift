import Foundation
import Testing

@testable import TVESAML

/// The verifier's tree (libxml2's tokenizer into an arena) against libxml2's own tree of the same input: the same
/// documents accepted, the same canonical bytes for every element, exclusive and inclusive. The fuzzers hold the two
/// to this on random inputs; these are the shapes that need care.
@Suite("The verifier's XML tree")
struct ParsedXMLTests {
    static let agreeing: [(String, String)] = [
        (
            "references in text and attributes",
            #"<r a="x &amp; &lt;y&gt; &#65;&#x42; &quot;q&quot; &apos;">t &amp; &lt; &gt; &#x1F600; &#10;</r>"#
        ),
        ("whitespace in attribute values", "<r a=\"1\t2\n3\r\n4\r5\" b='&#9;&#10;&#13;'>x\r\ny\rz</r>"),
        ("CDATA beside text", "<r>a<![CDATA[<b> & ]]>c<![CDATA[d]]><![CDATA[e]]>f</r>"),
        ("comments and PIs inside", "<r><!-- c --><?pi data\u{0D}?>t<?empty?></r>"),
        (
            "namespaces, default undeclared",
            #"<a:r xmlns:a="urn:a" xmlns="urn:d"><x><y xmlns=""><z a:k="v" xmlns:b="urn:b" b:k="w"/></y></x></a:r>"#
        ),
        (
            "a prefix redeclared, the same URI twice",
            #"<r xmlns:p="urn:p" xmlns:q="urn:p"><p:x xmlns:p="urn:other" q:a="1"/><q:y p:b="2"/></r>"#
        ),
        ("xml: attributes", #"<r xml:lang="en" xml:space="preserve"><c xml:lang="fr"/></r>"#),
        ("ampersands in namespace URIs and values", #"<p:r xmlns:p="urn:a&amp;b" a="&amp;#38;&#38;x&amp;amp;" p:b="&#38;#38;"/>"#),
        ("attributes sorted by namespace then name", #"<r xmlns:z="urn:a" xmlns:a="urn:z" z:b="1" a:a="2" c="3" b="4"/>"#),
        ("an XML declaration that claims another encoding", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>é</r>"),
        ("deep nesting", String(repeating: "<e>", count: 200) + "x" + String(repeating: "</e>", count: 200)),
        ("a long text in many pieces", "<r>" + String(repeating: "ab&amp;cd&#x263A;", count: 40_000) + "</r>"),
        ("many elements across arena chunks", "<r>" + String(repeating: "<e a=\"1\" b=\"2\">t</e>", count: 30_000) + "</r>"),
    ]

    @Test("the two trees give the same canonical bytes for every element", arguments: agreeing.map(\.0))
    func agree(name: String) throws {
        let input = try #require(Self.agreeing.first { $0.0 == name }?.1)
        let forms = try #require(Array(input.utf8).withUnsafeBytes { SAMLFuzzingHooks.canonicalForms($0, limit: 64) })
        #expect(forms.agree, "\(name): the trees differ in their elements")
        #expect(!forms.forms.isEmpty)
        for (index, form) in forms.forms.enumerated() {
            #expect(form.libxml2 != nil, "\(name), element \(index): libxml2 fails")
            #expect(form.tvekit == form.libxml2, "\(name), element \(index): exclusive C14N differs")
            #expect(form.inclusiveRebuilt == form.inclusiveLibxml2, "\(name), element \(index): inclusive C14N differs")
        }
    }

    static let refused: [(String, String)] = [
        ("an undeclared entity", "<r>&nbsp;</r>"),
        ("an undeclared prefix", "<p:r/>"),
        ("an undeclared attribute prefix", #"<r p:a="1"/>"#),
        ("an empty prefixed namespace", #"<r xmlns:p=""/>"#),
        ("a duplicate attribute", #"<r a="1" a="2"/>"#),
        ("a duplicate expanded attribute", #"<r xmlns:p="urn:x" xmlns:q="urn:x" p:a="1" q:a="2"/>"#),
        ("content after the root", "<r/><s/>"),
        ("text after the root", "<r/>x"),
        ("an unclosed element", "<r><s></r>"),
        ("a lone ampersand", "<r>a & b</r>"),
        ("a less-than in an attribute", #"<r a="<"/>"#),
        ("a control character", "<r>\u{01}</r>"),
        ("a DOCTYPE", "<!DOCTYPE r><r/>"),
        ("no root", "<?xml version=\"1.0\"?>"),
        ("too deep", String(repeating: "<e>", count: 300) + String(repeating: "</e>", count: 300)),
    ]

    @Test("both parsers refuse what is not namespace-well-formed XML", arguments: refused.map(\.0))
    func refuse(name: String) throws {
        let input = try #require(Self.refused.first { $0.0 == name }?.1)
        let outcome = Array(input.utf8).withUnsafeBytes { SAMLFuzzingHooks.parseAndScan($0) }
        #expect(!outcome.accepted, "\(name): the verifier's parser accepts it")
        #expect(!outcome.libxml2Accepted, "\(name): libxml2's tree parser accepts it")
        #expect(outcome.rule?.isEmpty == false)
    }

    @Test("the bytes are read as UTF-8 whatever the declaration says; a NUL byte is refused before parsing")
    func encodingDeclarationIgnored() throws {
        let latin = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>é</r>".utf8)
        let document = try latin.withUnsafeBytes { try ParsedXML.parse($0) }
        #expect(XML.text(document.root) == "é")
        let utf16 = Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><r>x</r>".utf8)
        #expect((try? utf16.withUnsafeBytes { try ParsedXML.parse($0) }).map { XML.text($0.root) } == "x")
        // "<?" in UTF-16: libxml2 would detect it from the NUL bytes.
        let nul: [UInt8] = [0x00, 0x3C, 0x00, 0x3F, 0x00, 0x78] + Array("<r/>".utf8)
        let outcome = nul.withUnsafeBytes { SAMLFuzzingHooks.parseAndScan($0) }
        #expect(!outcome.accepted && !outcome.libxml2Accepted)
        #expect(outcome.rule == SAMLPolicyFailure.Rule.inputEncoding.code)
    }

    @Test("rejectsEntityExpansion: entity declarations never reach either parser")
    func rejectsEntityExpansion() {
        let input = #"<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>"#
        let outcome = Array(input.utf8).withUnsafeBytes { SAMLFuzzingHooks.parseAndScan($0) }
        #expect(!outcome.accepted && !outcome.libxml2Accepted)
        #expect(outcome.rule == SAMLPolicyFailure.Rule.doctype.code)
    }

    @Test("parses on many threads at once, each arena its own")
    func concurrentParses() async {
        let input = Array(("<r>" + String(repeating: "<e a=\"1\">t&amp;u</e>", count: 2_000) + "</r>").utf8)
        let expected = input.withUnsafeBytes { SAMLFuzzingHooks.canonicalForms($0, limit: 1)?.forms.first?.libxml2 }
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    (0..<20).allSatisfy { _ in
                        input.withUnsafeBytes { SAMLFuzzingHooks.canonicalForms($0, limit: 1)?.forms.first?.tvekit } == expected
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(expected != nil)
        #expect(results.allSatisfy { $0 })
    }
}
