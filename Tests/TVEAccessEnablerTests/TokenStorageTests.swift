import Foundation
import Testing
import TVEAccessEnabler
import TVESandbox
import TVEServiceProvider

/// The file token store as a cache: a broken file does not lock the app out, and the file stays under its read limit.
@Suite("AccessEnabler: the token store (a corrupt file, a bounded size)")
struct TokenStorageTests {
    @Test("a token file that does not parse is moved aside and the enabler starts empty")
    func corruptTokenFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-corrupt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalProvider { provider in
            let store = FileTokenStore(directory: directory)
            try store.save(StoredEntitlements(deviceID: "d"), requestor: "tvekit-sandbox")
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".json") })
            try Data("{\"deviceID\": ".utf8).write(to: directory.appendingPathComponent(file))
            let enabler = provider.enabler(store: store)
            #expect(try await enabler.setRequestor("tvekit-sandbox", serviceProviders: [provider.url]).count == 2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.contains(".unreadable-") })
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
            #expect((attributes[.posixPermissions] as? Int ?? 0o777) & 0o022 == 0)
        }
    }

    @Test("the token file stays readable: at most 100 authorizations, those expiring soonest dropped first")
    func authorizationsAreBounded() throws {
        var entitlements = StoredEntitlements(deviceID: "d")
        for index in 0..<150 {
            entitlements.authorizations["r\(index)"] = AuthorizationToken(resource: "r\(index)", mvpd: "m", expires: Int64(1000 + index))
        }
        entitlements.limitAuthorizations()
        #expect(entitlements.authorizations.count == StoredEntitlements.maximumAuthorizations)
        #expect(entitlements.authorizations["r49"] == nil && entitlements.authorizations["r50"] != nil)

        // 40 resources of 16 KiB of quotes (escaped to 32 KiB, written twice) would be 2.5 MiB of JSON: the store drops the
        // soonest-expiring ones until the file is under its 1 MiB read limit, and reads it back.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tvekit-bound-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        var large = StoredEntitlements(
            deviceID: "d", authentication: AuthenticationToken(requestor: "r", mvpd: "m", userID: "u", expires: 9_999))
        for index in 0..<40 {
            let resource = String(repeating: "\"", count: 16 * 1024 - 3) + String(format: "%03d", index)
            large.authorizations[resource] = AuthorizationToken(resource: resource, mvpd: "m", expires: Int64(1000 + index))
        }
        try store.save(large, requestor: "r")
        let loaded = try #require(try store.load(requestor: "r"))
        #expect(loaded.authentication == large.authentication)
        #expect(loaded.authorizations.count > 0 && loaded.authorizations.count < 40)
        #expect(loaded.authorizations.values.map(\.expires).min() ?? 0 > 1000)
    }
}
