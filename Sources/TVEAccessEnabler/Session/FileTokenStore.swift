import Foundation
import TVEConcurrency
import TVECrypto

/// Tokens in one JSON file per requestor in a directory, named by the SHA-256 of the requestor ID (so that no ID can
/// name another path or exceed a file-name limit). Written atomically: a new file (created 0600, never following a
/// symlink) is written, synced and renamed over the old one, then the directory is synced. The directory is created
/// 0700, and an existing one must not be writable by others. Expired tokens are pruned when read. A file that does
/// not parse (a crash mid-write on a file system without ordering, a foreign file) is moved aside and the store starts
/// empty: it is a cache, and a broken cache must not lock the app out.
public final class FileTokenStore: EntitlementTokenStore {
    /// The directory of the files (created 0700 by the first save when it does not exist).
    public let directory: URL
    /// The largest file read back (a store never writes more than a few kilobytes).
    static let maximumFileBytes = 1 << 20
    private let lock = Locked(())

    /// A store in `directory`; nothing is read or created until the first call.
    public init(directory: URL) {
        self.directory = directory
    }

    func file(for requestor: String) -> URL {
        let digest = (try? HashFunction.sha256.hash(Array(requestor.utf8))) ?? Array(requestor.utf8.prefix(32))
        return directory.appendingPathComponent("entitlements-" + digest.map { String(format: "%02x", $0) }.joined() + ".json")
    }

    /// The tokens stored for `requestor`, or nil when there is no file, or when it is over 1 MiB or does not parse
    /// (it is then moved aside). Blocks on file I/O; calls on one store run one at a time.
    ///
    /// - Throws: ``AccessEnablerError/Code/storageError`` when the file cannot be opened (a symbolic link is not
    ///   followed) or is not a regular file.
    public func load(requestor: String) throws -> StoredEntitlements? {
        try lock.withLock { _ in
            let url = file(for: requestor)
            let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT { return nil }
                throw AccessEnablerError(.storageError, "the token store \(url.lastPathComponent) cannot be opened")
            }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                throw AccessEnablerError(.storageError, "the token store \(url.lastPathComponent) is not a regular file")
            }
            guard status.st_size <= Self.maximumFileBytes else {
                moveAside(url)
                return nil
            }
            var data = [UInt8](repeating: 0, count: Int(status.st_size))
            let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count == data.count, let stored = try? JSONDecoder().decode(StoredEntitlements.self, from: Data(data)) else {
                moveAside(url)
                return nil
            }
            return stored
        }
    }

    private func moveAside(_ url: URL) {
        _ = rename(url.path, url.path + ".unreadable-" + UUID().uuidString.lowercased())
    }

    /// Writes the tokens of `requestor` atomically (see the type's description). Past 1 MiB, the authorizations that
    /// expire soonest are left out until the file fits. Blocks on file I/O; calls on one store run one at a time.
    ///
    /// - Throws: ``AccessEnablerError/Code/storageError`` when the directory cannot be created, is not a directory or
    ///   others can write to it, or when the file cannot be written.
    public func save(_ entitlements: StoredEntitlements, requestor: String) throws {
        try lock.withLock { _ in
            try prepareDirectory()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            // What is written must stay readable: past the read limit, the authorizations that expire soonest go.
            var entitlements = entitlements
            var encoded = try? encoder.encode(entitlements)
            while let size = encoded?.count, size > Self.maximumFileBytes, !entitlements.authorizations.isEmpty {
                entitlements.limitAuthorizations(to: entitlements.authorizations.count - 1)
                encoded = try? encoder.encode(entitlements)
            }
            guard let data = encoded else { throw AccessEnablerError(.storageError, "the tokens cannot be encoded") }
            guard data.count <= Self.maximumFileBytes else {
                throw AccessEnablerError(.storageError, "the tokens are over \(Self.maximumFileBytes) bytes")
            }
            let target = file(for: requestor)
            let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString.lowercased()).tmp")
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw AccessEnablerError(.storageError, "cannot create \(temporary.lastPathComponent)") }
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor) == 0
            close(descriptor)
            guard written == data.count, synced, rename(temporary.path, target.path) == 0 else {
                unlink(temporary.path)
                throw AccessEnablerError(.storageError, "cannot write \(target.lastPathComponent)")
            }
            let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directoryDescriptor >= 0 {
                _ = fsync(directoryDescriptor)
                close(directoryDescriptor)
            }
        }
    }

    /// Creates the directory 0700, or checks that an existing one is a directory others cannot write to.
    private func prepareDirectory() throws {
        var status = stat()
        if lstat(directory.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR, status.st_mode & 0o022 == 0 else {
                throw AccessEnablerError(.storageError, "the token store directory is not a directory only its owner can write to")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AccessEnablerError(.storageError, "the token store directory cannot be created")
        }
    }
}
