import Foundation
import NIOConcurrencyHelpers

/// What the flow layer keeps between calls and, with a ``FileTokenStore``, between runs: per requestor.
public struct StoredEntitlements: Sendable, Hashable, Codable {
    /// The device ID sent to the service provider (generated once, kept).
    public var deviceID: String
    public var authentication: AuthenticationToken?
    /// Authorizations by resource.
    public var authorizations: [String: AuthorizationToken]
    /// The MVPD chosen for the current authentication.
    public var selectedMVPD: MVPD?

    public init(deviceID: String, authentication: AuthenticationToken? = nil, authorizations: [String: AuthorizationToken] = [:],
                selectedMVPD: MVPD? = nil) {
        self.deviceID = deviceID
        self.authentication = authentication
        self.authorizations = authorizations
        self.selectedMVPD = selectedMVPD
    }

    /// Drops what has expired at `now` (milliseconds).
    public mutating func prune(now: Int64) {
        if let authentication, authentication.expires <= now {
            self.authentication = nil
            authorizations = [:]
        }
        authorizations = authorizations.filter { $0.value.expires > now }
    }
}

/// Where the flow layer keeps its tokens.
public protocol EntitlementTokenStore: Sendable {
    func load(requestor: String) throws -> StoredEntitlements?
    func save(_ entitlements: StoredEntitlements, requestor: String) throws
}

/// Tokens in memory only: gone with the process.
public final class InMemoryTokenStore: EntitlementTokenStore {
    private let entries = NIOLockedValueBox<[String: StoredEntitlements]>([:])

    public init() {}

    public func load(requestor: String) -> StoredEntitlements? { entries.withLockedValue { $0[requestor] } }

    public func save(_ entitlements: StoredEntitlements, requestor: String) {
        entries.withLockedValue { $0[requestor] = entitlements }
    }
}

/// Tokens in one JSON file per requestor in a directory: written atomically (a temporary file renamed over the old
/// one), readable by the owner only (0600), expired tokens pruned when read. The directory is created 0700.
public final class FileTokenStore: EntitlementTokenStore {
    public let directory: URL
    /// The largest file read back (a store never writes more than a few kilobytes).
    static let maximumFileBytes = 1 << 20
    private let lock = NIOLock()

    public init(directory: URL) {
        self.directory = directory
    }

    /// The file of a requestor: its ID, hex-encoded, so that no ID can name another path.
    func file(for requestor: String) -> URL {
        directory.appendingPathComponent("entitlements-" + requestor.utf8.map { String(format: "%02x", $0) }.joined() + ".json")
    }

    public func load(requestor: String) throws -> StoredEntitlements? {
        try lock.withLock {
            let url = file(for: requestor)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw AccessEnablerError(.storageError, "the token store \(url.lastPathComponent) cannot be read")
            }
            guard data.count <= Self.maximumFileBytes,
                  let stored = try? JSONDecoder().decode(StoredEntitlements.self, from: data) else {
                throw AccessEnablerError(.storageError, "the token store \(url.lastPathComponent) is not valid")
            }
            return stored
        }
    }

    public func save(_ entitlements: StoredEntitlements, requestor: String) throws {
        try lock.withLock {
            let manager = FileManager.default
            do {
                try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let data = try encoder.encode(entitlements)
                let target = file(for: requestor)
                let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
                guard manager.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                    throw AccessEnablerError(.storageError, "cannot write \(temporary.lastPathComponent)")
                }
                guard rename(temporary.path, target.path) == 0 else {
                    try? manager.removeItem(at: temporary)
                    throw AccessEnablerError(.storageError, "cannot replace \(target.lastPathComponent)")
                }
            } catch let error as AccessEnablerError {
                throw error
            } catch {
                throw AccessEnablerError(.storageError, "the token store cannot be written")
            }
        }
    }
}
