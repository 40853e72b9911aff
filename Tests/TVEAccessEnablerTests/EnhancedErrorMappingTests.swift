import Foundation
import Testing
import TVEAccessEnabler

@Suite("Enhanced Error codes onto the AccessEnabler's codes")
struct EnhancedErrorMappingTests {
    /// The 66 codes of `UserMetadataResponse.error` in Adobe's REST API v2 file.
    static let adobeCodes: [String] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OpenAPI/adobe/restApiV2.json")
        guard let data = try? Data(contentsOf: url), let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any],
            let metadata = (schemas["UserMetadataResponse"] as? [String: Any])?["properties"] as? [String: Any],
            let codes = (metadata["error"] as? [String: Any])?["enum"] as? [String]
        else { return [] }
        return codes
    }()

    @Test("everyAdobeCodeIsMapped: the table has exactly the codes of Adobe's file")
    func everyAdobeCodeIsMapped() {
        #expect(Self.adobeCodes.count == 66)
        #expect(Set(EnhancedErrorMapping.table.keys) == Set(Self.adobeCodes))
    }

    @Test(
        "the seeds' meaning of the main codes",
        arguments: [
            ("authorization_denied_by_mvpd", "USER_NOT_AUTHORIZED_ERROR", "Z100"),
            ("authenticated_profile_missing", "USER_NOT_AUTHENTICATED_ERROR", "N000"),
            ("too_many_resources", "P100", "P100"), ("invalid_access_token_client_application", "R401", "R401"),
            ("temporary_access_duration_limit_exceeded", "N111", "N111"), ("maximum_attempts_exceeded", "CFG429", "CFG429"),
            ("invalid_header_pfs_permission_access_not_granted", "APPL_ERROR", "VSA403"),
        ])
    func mainCodes(code: String, error: String, status: String) {
        let entry = EnhancedErrorMapping.entry(for: code)
        #expect(entry.error.rawValue == error)
        #expect(entry.status == status)
    }

    @Test("a code Adobe adds later maps by its family, else to INTERNAL_ERROR")
    func unknownCodes() {
        #expect(EnhancedErrorMapping.entry(for: "authorization_denied_by_something_new").error == .userNotAuthorized)
        #expect(EnhancedErrorMapping.entry(for: "invalid_configuration_new").error == .configurationUnavailable)
        #expect(EnhancedErrorMapping.entry(for: "something_else").error == .internalError)
    }
}

@Suite("The flow layer's documentation")
struct FlowLayerDocumentationTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/TVEAccessEnabler/Docs.docc")

    @Test("the Enhanced Error article's table is EnhancedErrorMapping.table, row for row (it cannot rot)")
    func errorTableMatchesTheCode() throws {
        let text = try String(contentsOf: Self.catalog.appendingPathComponent("EnhancedErrorCodes.md"), encoding: .utf8)
        var rows: [String: (String, String?)] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
            guard cells.count == 3 else { continue }
            rows[cells[0]] = (cells[1], cells[2] == "—" ? nil : cells[2])
        }
        #expect(rows.count == EnhancedErrorMapping.table.count)
        for (code, entry) in EnhancedErrorMapping.table {
            #expect(rows[code]?.0 == entry.error.rawValue && rows[code]?.1 == entry.status, "\(code)")
        }
    }

    @Test("the migration article's code builds the enabler it describes (REST API v2 by default, .v1 selectable)")
    func migrationArticleCode() throws {
        let appSupport = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-doc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: appSupport) }
        let statement = "header.payload.signature"
        // The article's code:
        var configuration = AsyncAccessEnabler.Configuration(tokenStore: FileTokenStore(directory: appSupport))
        configuration.api = .v2  // the default; .v1 keeps the old API for an app not yet moved
        let enabler = AccessEnabler(softwareStatement: statement, configuration: configuration)
        // What it claims:
        #expect(AsyncAccessEnabler.Configuration().api == .v2)
        #expect(enabler.core.configuration.api == .v2)
    }
}
