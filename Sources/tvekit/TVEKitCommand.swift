import ArgumentParser
import Foundation
import TVECrypto

/// `tvekit`: the command-line face of TVEKit. Every command is a thin shell over the libraries.
///
/// Exit codes: 0 success (and `valid`), 1 a negative answer (`invalid`), 2 malformed input or a usage error.
@main
struct TVEKitCommand: AsyncParsableCommand {
    /// TVEKit's version, which `tvekit --version` prints.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "tvekit",
        abstract:
            "TV Everywhere entitlement tools: media tokens, user metadata, signatures, SAML, a local service provider, an app client, speed.",
        discussion: """
            Exit status: 0 on success (valid, VALID_TOKEN, an accepted SAML response, a decrypted document, a demo or \
            client run whose every step behaved); 1 for a negative answer (invalid, any token result other than \
            VALID_TOKEN, a rejected SAML response, a metadata document that does not parse or decrypt, a failed demo or \
            client step); 2 for malformed arguments or files and other usage errors, with the message on standard error.

            Secrets are read from environment variables, never from the command line (where ps would show them): \
            --password-env, --passphrase-env and --secret-env take the name of the variable that holds the secret, not \
            the secret; serve also reads its database password and bearer secret from a file.

            Example: tvekit demo
            """,
        version: version,
        subcommands: [
            SignatureCommand.self, TokenCommand.self, MetadataCommand.self, RequestorCommand.self, ClientlessCommand.self, SAMLCommand.self,
            ServeCommand.self,
            DemoCommand.self, ClientCommand.self, KeyCommand.self, SpeedCommand.self,
        ]
    )

    /// Parses and runs, mapping every failure to the documented exit codes.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version: ArgumentParser's clean exits.
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            // The package's errors as a user reads them: the reason and the code, never the file and line.
            let message = CLIError.userMessage(for: error).map { "error: " + $0 } ?? fullMessage(for: error)
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

enum Input {
    /// The largest file any command reads, 64 MiB.
    static let maximumFileBytes = 64 << 20

    static func read(_ path: String, what: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes else { throw CLIError(.unreadableInput, "cannot read the \(what) file '\(path)'") }
        if let size = attributes[.size] as? Int, size > maximumFileBytes {
            throw CLIError(.unreadableInput, "the \(what) file '\(path)' is \(size) bytes; the limit is \(maximumFileBytes)")
        }
        guard let data = try? Data(contentsOf: url) else { throw CLIError(.unreadableInput, "cannot read the \(what) file '\(path)'") }
        return [UInt8](data)
    }

    /// Reads a secret from an environment variable (never from the command line, where `ps` would show it).
    static func secret(fromEnvironment name: String?) throws -> String? {
        guard let name else { return nil }
        guard let value = ProcessInfo.processInfo.environment[name] else {
            throw CLIError(.missingSecret, "the environment variable \(name) is not set")
        }
        return value
    }

    /// Reads the text of a token argument: the argument itself, or standard input for `-`.
    static func tokenArgument(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        // Read up to the file limit, not the token limit: an oversized token is the verifier's INVALID_TOKEN_FORMAT
        // (with its size), as in --batch and the service, not a usage error.
        return try standardInput(limit: maximumFileBytes, what: "token").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The trusted media-token keys of `--cert` files (certificates or bare public keys, PEM or DER, one or several
    /// per file). A key under 2048 bits is refused with a clear message unless `allowing1024BitKeys`, and then
    /// announced as weak on standard error.
    static func trustedKeys(_ paths: [String], allowing1024BitKeys: Bool) throws -> [RSAPublicKey] {
        var keys: [RSAPublicKey] = []
        for path in paths {
            // Loaded at the 1024-bit floor once; the 2048-bit rule is applied here, so that the message can name the size.
            let loaded: [RSAPublicKey]
            do {
                loaded = try RSAPublicKey.keys(
                    encodedKeysOrCertificates: read(path, what: "certificate or public key"), allowing1024BitKeys: true)
            } catch let error as TVECryptoError where error.code == .keyTooSmall {
                throw CLIError(.unusableKey, "refusing the key in '\(path)': \(error.reason)")
            } catch let error as TVECryptoError {
                throw CLIError(.unusableKey, "cannot load a certificate or public key from '\(path)': \(error.reason)")
            }
            for key in loaded where key.keySizeInBits < 2048 {
                guard allowing1024BitKeys else {
                    throw CLIError(
                        .unusableKey,
                        "refusing the \(key.keySizeInBits)-bit RSA key in '\(path)': keys under 2048 bits are weak. "
                            + "Add --allow-1024-bit-keys to trust it anyway (to verify legacy tokens such as Adobe's of 2015-2017)")
                }
                Output.progress(
                    "warning: trusting a \(key.keySizeInBits)-bit RSA key from '\(path)' (sha256 \(key.sha256Fingerprint.prefix(16))): "
                        + "keys under 2048 bits are weak; accept one only to verify legacy tokens")
            }
            keys += loaded
        }
        return keys
    }

    /// Reads standard input up to `limit` bytes, as bytes (nothing replaced: invalid UTF-8 reaches the library).
    static func standardInputBytes(limit: Int, what: String) throws -> [UInt8] {
        var data = Data()
        while let chunk = try FileHandle.standardInput.read(upToCount: 65536), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= limit else {
                throw CLIError(.unreadableInput, "the \(what) on standard input is longer than \(limit) bytes")
            }
        }
        return [UInt8](data)
    }

    /// Reads a file argument, or standard input for `-`.
    static func fileOrStandardInput(_ path: String, limit: Int, what: String) throws -> [UInt8] {
        path == "-" ? try standardInputBytes(limit: limit, what: what) : try read(path, what: what)
    }

    /// Reads standard input up to `limit` bytes.
    static func standardInput(limit: Int, what: String) throws -> String {
        var data = Data()
        while let chunk = try FileHandle.standardInput.read(upToCount: 65536), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= limit else {
                throw CLIError(.unreadableInput, "the \(what) on standard input is longer than \(limit) bytes")
            }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Loads a private key from `--private-key FILE [--passphrase-env VAR]` or `--p12 FILE --password-env VAR`.
    static func privateKey(file: String?, passphraseEnvironment: String?, p12: String?, passwordEnvironment: String?) throws
        -> RSAPrivateKey
    {
        if let p12 {
            guard let passwordEnvironment else { throw CLIError(.invalidArgument, "--p12 needs --password-env VAR") }
            let password = try secret(fromEnvironment: passwordEnvironment) ?? ""
            return try PKCS12Bundle(derRepresentation: read(p12, what: "PKCS#12"), password: password).privateKey
        }
        if let file {
            return try RSAPrivateKey(encoded: read(file, what: "private key"), passphrase: secret(fromEnvironment: passphraseEnvironment))
        }
        throw CLIError(.invalidArgument, "give exactly one of --private-key and --p12")
    }

    static func hash(_ name: String) throws -> RSASignaturePadding {
        guard let hash = HashFunction(name: name) else {
            throw CLIError(.invalidArgument, "unknown hash '\(name)'; use sha256, sha384 or sha512")
        }
        return try RSASignaturePadding.pkcs1v15(hash)
    }
}

enum Output {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
