import ArgumentParser
import Foundation
import TVEBenchmarkSupport

struct SpeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Measure operations per second of the TVECrypto API on this machine, like `openssl speed`.",
        discussion: """
            Operations (one thread, keys loaded once, as a server would hold them):
            - rsa2048-verify: RSASSA-PKCS1-v1_5 SHA-256 verify of a 400-byte message (hash included).
            - rsa1024-verify: the same with an RSA-1024 key, the size real Adobe tokens use (generated with OpenSSL \
            directly: TVEKit generates no keys under 2048 bits).
            - rsa2048-sign: RSASSA-PKCS1-v1_5 SHA-256 sign of the same message (hash included).
            - rsa2048-decrypt-pkcs1: RSAES-PKCS1-v1_5 decrypt of one block.
            - rsa2048-decrypt-oaep-sha256: RSAES-OAEP (SHA-256, MGF1-SHA-256) decrypt of one block.
            - base64-decode: Base64.decode(buffer:options: .ignoringWhitespace) of a serialized media token (about \
            580 bytes, no whitespace); its baseline is OpenSSL's EVP_DecodeBlock.
            - token-parse: strict parse of a serialized (Base64) media token, signature not checked; its baseline is \
            EVP_DecodeBlock of the same bytes (the decoding alone).
            - token-parse-text: the same for the raw token text (no outer Base64; no baseline).
            - token-verify: MediaTokenVerifier.verify of the same serialized token: Base64 decode, parse, RSA-2048 \
            SHA-256 verify, requestor/resource/time checks; its baseline is the bare verification of the token's signed \
            bytes (their SHA-256, then EVP_PKEY_verify), so that its ratio is what the parse and the checks cost.
            - service-verify: VerificationService.verify of a POST /verify body carrying the same token (body reader, \
            verification, one-time use in memory: every answer after the first is TOKEN_REPLAYED, as most of make \
            fleet-bench's are; the JSON answer, the metrics); its baseline is token-verify, so that its ratio is what \
            the service adds to the verification, without HTTP.
            - token-verify-1024, token-verify-1024-text: MediaTokenVerifier.verify of a real Adobe media token of 2017 \
            (serialized as Base64, and as raw text) with the RSA-1024 key recovered from real tokens (FORMATS.md §1), \
            at a fixed time within its lifetime; the baseline is the bare verification of its signed bytes, as for \
            token-verify.
            - token-verify-1024-glue: token-verify-1024 again, against TVEKit's own bare verification of the signed \
            bytes (RSAPublicKey.isValidSignature: SHA-256, then TVEKit's RSA public operation, which needs fewer \
            Montgomery multiplications than OpenSSL's and so is the faster): its ratio is what the Base64 decode, \
            the parse and the checks cost, which the ratio to OpenSSL no longer shows.
            - metadata-decrypt: MetadataDecryptor.decrypt of a REST v1 user-metadata document with five encrypted keys \
            (one PKCS#1 v1.5 block each) and two plain ones; its baseline is five bare decryptions, and against \
            `openssl speed` it is compared with sign/s ÷ 5.
            - saml-verify-5k, saml-verify-50k: SAMLResponseVerifier.verify of a signed Response of about 5 KB and \
            50 KB (parse, structure, exc-c14n, RSA-2048 SHA-256, semantics); the script Benchmarks/saml-compare \
            compares it with python-xmlsec and signxml.

            Each operation alternates 50 ms slices of the TVEKit call with the bare OpenSSL call that `openssl speed` \
            times (EVP_PKEY_verify/sign/decrypt on a context set up once), on the same key and padding, with the \
            SHA-256 of the signed bytes before it for the token verifications, or with EVP_DecodeBlock for \
            base64-decode and token-parse; "ratio" is TVEKit's rate over that baseline, paired \
            slice by slice so that changes in the machine's speed cancel out. token-parse-text and the SAML \
            operations have no baseline. The goals the project holds itself to follow the table, with PASS or MISS: \
            token-parse at least 0.8 of its baseline, token-verify and token-verify-1024 at least 0.95.

            With --compare-openssl, the measurement runs in rounds (one per second of --seconds, at least two): each \
            round measures every operation for one second and runs `openssl speed -seconds 1 rsa1024 rsa2048` (only \
            the sizes the chosen operations need), alternating which goes first, and each RSA figure is divided by the \
            mean of OpenSSL's verify/s (for verify) or sign/s (for the private-key operations) of the same key size, so \
            both sides see the same machine.

            Example: tvekit speed --seconds 1 token-verify token-verify-1024
            """
    )

    @Option(name: .long, help: "Seconds to spend on each operation (TVEKit and baseline together).")
    var seconds: Double = 4

    @Flag(name: .long, help: "Also run `openssl speed rsa1024 rsa2048`, interleaved in one-second rounds, and report ratios against it.")
    var compareOpenssl = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Argument(help: "The operations to measure (all when none is named), for example `token-verify`.")
    var only: [String] = []

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        for name in only where !SpeedSuite.operationNames.contains(name) {
            throw ValidationError("unknown operation '\(name)'; the operations are \(SpeedSuite.operationNames.joined(separator: ", "))")
        }
    }

    func run() async throws {
        let all = try SpeedSuite.operations(progress: Output.progress)
        let operations = only.isEmpty ? all : all.filter { only.contains($0.name) }
        // A SpeedError reaches the command's error handler, which prints its reason and code.
        let report = try SpeedRunner.run(operations, seconds: seconds, compareOpenSSL: compareOpenssl, progress: Output.progress)
        if json {
            print(try Output.json(report))
            return
        }
        if let version = report.opensslVersion { print("openssl speed: \(version)") }
        print("operation                       ops/s  baseline ops/s  ratio" + (compareOpenssl ? "  openssl speed  ratio" : ""))
        for result in report.results {
            var line = result.operation.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%10.1f", result.opsPerSecond)
            if let baseline = result.baselineOpsPerSecond, let ratio = result.ratioToBaseline {
                line += String(format: "  %14.1f  %5.2f", baseline, ratio)
            } else {
                line += "               -      -"
            }
            if let reference = result.opensslSpeedOpsPerSecond, let ratio = result.ratioToOpensslSpeed {
                line += String(format: "  %13.1f  %5.2f", reference, ratio)
            }
            print(line)
        }
        let goals = report.results.filter { $0.goal != nil }
        guard !goals.isEmpty else { return }
        print("\ngoals (ratio to the paired baseline)")
        for result in goals {
            guard let goal = result.goal, let ratio = result.ratioToBaseline, let met = result.meetsGoal else { continue }
            print(
                result.operation.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%6.3f  goal >= %.2f  ", ratio, goal)
                    + (met ? "PASS" : "MISS"))
        }
    }
}
