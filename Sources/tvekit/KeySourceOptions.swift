import ArgumentParser
import TVECrypto

/// Where a command that signs gets its private key: `--private-key FILE [--passphrase-env VAR]` or
/// `--p12 FILE --password-env VAR`. Secrets come from environment variables, never from the command line.
struct KeySourceOptions: ParsableArguments {
    @Option(name: .long, help: "A private key file (PEM or DER, PKCS#8 or PKCS#1).")
    var privateKey: String?

    @Option(name: .customLong("passphrase-env"), help: "The environment variable holding the private key's passphrase.")
    var passphraseEnvironment: String?

    @Option(name: .long, help: "A PKCS#12 file holding the key.")
    var p12: String?

    @Option(name: .customLong("password-env"), help: "The environment variable holding the PKCS#12 password.")
    var passwordEnvironment: String?

    func validate() throws {
        if (privateKey == nil) == (p12 == nil) { throw ValidationError("give exactly one of --private-key and --p12") }
        if p12 != nil, passwordEnvironment == nil { throw ValidationError("--p12 needs --password-env VAR") }
    }

    func load() throws -> RSAPrivateKey {
        try Input.privateKey(
            file: privateKey, passphraseEnvironment: passphraseEnvironment, p12: p12,
            passwordEnvironment: passwordEnvironment)
    }
}
