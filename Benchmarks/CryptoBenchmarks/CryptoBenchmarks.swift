import Benchmark
import TVEBenchmarkSupport
import TVECrypto
import TVETokens

// Keys are made and parsed once, outside the measured closures, as a server holds them.
// Each TVEKit benchmark has a twin that runs the bare OpenSSL call (`openssl speed`'s loop) on the same key,
// so the two can be compared within one run.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    guard let key = try? RSAPrivateKey(keySizeInBits: 2048),
        let message = try? SecureRandom.bytes(count: 400),
        let signature = try? key.signature(for: message),
        let pkcs1 = try? key.publicKey.encrypt([UInt8](repeating: 7, count: 32), padding: ._weakAndInsecurePKCS1v15),
        let oaep = try? key.publicKey.encrypt([UInt8](repeating: 7, count: 32), padding: .oaepSHA256),
        let baseline = try? OpenSSLBaseline(key: key, message: message),
        let publicPEM = Optional(key.publicKey.pemRepresentation)
    else { return }
    let publicKey = key.publicKey

    Benchmark("RSA-2048 verify, 400-byte message (TVEKit)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(publicKey.isValidSignature(signature, for: message)) }
    }
    Benchmark("RSA-2048 verify (bare EVP_PKEY_verify)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(baseline.verify()) }
    }
    Benchmark("RSA-2048 sign (TVEKit)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try key.signature(for: message)) }
    }
    Benchmark("RSA-2048 sign (bare EVP_PKEY_sign)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(baseline.sign()) }
    }
    Benchmark("RSA-2048 decrypt PKCS#1 v1.5 (TVEKit)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try key.decrypt(pkcs1, padding: ._weakAndInsecurePKCS1v15)) }
    }
    Benchmark("RSA-2048 decrypt OAEP-SHA256 (TVEKit)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try key.decrypt(oaep, padding: .oaepSHA256)) }
    }
    Benchmark("RSA-2048 public key PEM parse (the trap: do it once)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try RSAPublicKey(pemRepresentation: publicPEM)) }
    }
    let now: Int64 = 1_767_225_600_000
    if let token = try? MediaTokenIssuer(privateKey: key).issue(
        requestorID: "bench", resourceID: "bench-resource", mvpdId: "MVPD",
        issueTime: now),
        let verifier = try? MediaTokenVerifier(
            trustedKeys: [publicKey], requestorID: "bench", clock: FixedMediaTokenClock(milliseconds: now))
    {
        let serialized = Array(token.serialized.utf8)
        let text = token.text
        Benchmark("Media token parse, serialized (Base64)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try ShortMediaToken(parsing: serialized)) }
        }
        Benchmark("Media token parse, raw text") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try ShortMediaToken(parsing: text)) }
        }
        Benchmark("Media token verify, serialized (TVEKit)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(verifier.verify(serialized, resourceID: "bench-resource")) }
        }
    }
    Benchmark("Base64 decode, 4 KiB") { benchmark in
        let text = Base64.encode([UInt8](repeating: 0x5A, count: 4096))
        for _ in benchmark.scaledIterations { blackHole(try Base64.decode(text)) }
    }
}
