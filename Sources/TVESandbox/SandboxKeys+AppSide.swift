import Foundation
import TVECrypto

extension SandboxKeys {
    /// The files ``writeAppSide(softwareStatement:to:)`` writes: what the app side needs to use the sandbox.
    public static let appSideFiles = [
        "software-statement.jwt", "media-token-public.pem", "metadata-private.pem", "requestor-private.pem",
        "platform-identity-private.pem", "service-token-private.pem",
    ]

    /// Writes the app side's material into a private directory (0700, files 0600), created when missing:
    /// `software-statement.jwt` (register with `POST /o/client/register`), `media-token-public.pem` (verify media
    /// tokens), `metadata-private.pem` (decrypt user metadata), `requestor-private.pem` (sign requestor IDs), and the
    /// identity services' keys of REST API v2 single sign-on: `platform-identity-private.pem` (signs `Adobe-Subject-Token`s)
    /// and `service-token-private.pem` (signs `AD-Service-Token`s).
    /// - Parameters:
    ///   - softwareStatement: the software statement to write as `software-statement.jwt`.
    ///   - directory: a new private directory in the temporary folder by default.
    /// - Returns: the directory's path.
    /// - Throws: ``SandboxError`` `.appSideNotWritten` when the directory exists and is not a private directory of
    ///   this user (mode 0700, not a symlink), or a file cannot be written.
    public func writeAppSide(softwareStatement: String, to directory: String? = nil) throws(SandboxError) -> String {
        let manager = FileManager.default
        let directory =
            directory ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("tvekit-sandbox-" + UUID().uuidString.lowercased())
        // An existing directory must be a real directory of ours that nobody else can read.
        var status = stat()
        if lstat(directory, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
                throw SandboxError(
                    .appSideNotWritten, "\(directory) exists and is not a private directory of this user (mode 0700, not a symlink)")
            }
        }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let contents: [Data] = [
                Data((softwareStatement + "\n").utf8),
                Data(mediaTokenKey.publicKey.pemRepresentation.utf8),
                Data(try metadataKey.pkcs8PEMRepresentation),
                Data(try requestorKey.pkcs8PEMRepresentation),
                Data(try platformIdentityKey.pkcs8PEMRepresentation),
                Data(try serviceTokenKey.pkcs8PEMRepresentation),
            ]
            for (name, data) in zip(Self.appSideFiles, contents) {
                let path = (directory as NSString).appendingPathComponent(name)
                guard manager.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                    throw SandboxError(.appSideNotWritten, "could not write \(path)")
                }
            }
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.appSideNotWritten, "could not create the directory \(directory)")
        }
        return directory
    }
}
