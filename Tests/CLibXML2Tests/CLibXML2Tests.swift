import CLibXML2
import Foundation
import Testing

/// The libxml2 system-library target imports beside Foundation (the ICU module clash is fixed in shim.h) and
/// its shim functions work. The SAML module builds on this.
@Suite("CLibXML2 shim")
struct CLibXML2Tests {
    @Test("libxml2 2.9 or newer parses a document and frees through the shim")
    func parses() throws {
        #expect(clibxml2_LIBXML_VERSION >= 20900)
        let xml = "<a><b>text</b></a>"
        let document = try #require(
            xml.withCString { xmlReadMemory($0, Int32(strlen($0)), "test.xml", nil, Int32(XML_PARSE_NONET.rawValue)) })
        defer { xmlFreeDoc(document) }
        let root = try #require(xmlDocGetRootElement(document))
        let content = try #require(xmlNodeGetContent(root))
        defer { clibxml2_xmlFree(content) }
        #expect(String(cString: content) == "text")
        #expect(Date().timeIntervalSince1970 > 0)  // Foundation in the same file: no ICU clash.
    }
}
