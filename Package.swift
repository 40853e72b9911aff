// swift-tools-version: 6.2
// 6.2: TVESAML validates UTF-8 with UTF8Span, new in Swift 6.2.
//
// TVEKit: an open TV Everywhere entitlement client and the security tools around it.
// See README.md for the two commands (`make demo`, `make test`) and what each module does.

import PackageDescription

let package = Package(
    name: "tvekit",
    products: [
        .library(name: "TVECrypto", targets: ["TVECrypto"]),
        .library(name: "TVETokens", targets: ["TVETokens"]),
        .library(name: "TVEJSON", targets: ["TVEJSON"]),
        .library(name: "TVEMetadata", targets: ["TVEMetadata"]),
        .library(name: "TVESAML", targets: ["TVESAML"]),
        .library(name: "TVEPassAPI", targets: ["TVEPassAPI"]),
        .library(name: "TVEPassAPIv2", targets: ["TVEPassAPIv2"]),
        .library(name: "TVEPassDCR", targets: ["TVEPassDCR"]),
        .library(name: "TVEAccessEnabler", targets: ["TVEAccessEnabler"]),
        .library(name: "TVEVerification", targets: ["TVEVerification"]),
        .library(name: "TVEVerificationServer", targets: ["TVEVerificationServer"]),
        .library(name: "TVEPostgresReplayGuard", targets: ["TVEPostgresReplayGuard"]),
        .library(name: "TVEServiceProvider", targets: ["TVEServiceProvider"]),
        .library(name: "TVESandbox", targets: ["TVESandbox"]),
        .executable(name: "tvekit", targets: ["tvekit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        // System libraries, found through pkg-config. Each has one shim header that wraps the macros and
        // composite constants Swift cannot import.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // OpenSSL helpers with logic of their own (the PKCS#12 iteration scan, RSA context set-up), in real C.
        .target(
            name: "CTVEOpenSSL",
            dependencies: ["COpenSSL"]
        ),
        // The package's shared concurrency parts, never part of a product: the one lock (`Locked`), the event-loop task
        // executor and the deadline race. No dependency, so that the client libraries stay free of SwiftNIO.
        .target(
            name: "TVEConcurrency"
        ),
        // Base64 decoding of whole blocks with the processor's vector instructions (AVX2, SSSE3), in real C: the first
        // stage of TVECrypto's strict decoder.
        .target(
            name: "CTVEBase64"
        ),
        .target(
            name: "TVECrypto",
            dependencies: ["TVEConcurrency", "COpenSSL", "CTVEOpenSSL", "CTVEBase64"]
        ),
        .target(
            name: "TVETokens",
            dependencies: ["TVEConcurrency", "TVECrypto", "TVEJSON"]
        ),
        .target(
            name: "TVEJSON"
        ),
        .target(
            name: "TVEMetadata",
            dependencies: ["TVECrypto", "TVEJSON"]
        ),
        // The committed test material of TestVectors/, shared by the test targets and the fuzz bodies: never part
        // of a product.
        .target(
            name: "TVETestSupport",
            dependencies: ["TVECrypto"],
            path: "Tests/TVETestSupport"
        ),
        // The fuzz bodies (invariant checks over every input) and their test material: never part of a product.
        .target(
            name: "TVEFuzzSupport",
            dependencies: [
                "TVEConcurrency",
                "TVETokens", "TVEMetadata", "TVECrypto", "TVESAML", "TVETestSupport", "TVEPassAPIv2", "TVEVerification", "TVEJSON",
                "TVEVerificationServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // libxml2's per-thread error handlers, which need real C.
        .target(
            name: "CTVEShims",
            dependencies: ["CLibXML2"]
        ),
        // XML canonicalization in C: libxml2's for a subtree, and TVEKit's own exclusive C14N.
        .target(
            name: "CTVEC14N",
            dependencies: ["CLibXML2"]
        ),
        .target(
            name: "TVESAML",
            dependencies: ["TVECrypto", "CLibXML2", "CTVEShims", "CTVEC14N"]
        ),
        // The REST API v1 contract: bodies, the form codec, the login pages' forms. Shared by client and server.
        .target(
            name: "TVEPassAPI"
        ),
        // The REST API v2 contract, generated from Adobe's OpenAPI file with TVEKit's overlay (scripts/openapi.py):
        // types, server and client. Sources/TVEPassAPIv2/Generated is generated code; the rest is TVEKit's.
        .target(
            name: "TVEPassAPIv2",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Dynamic Client Registration's contract, generated the same way: types and client.
        .target(
            name: "TVEPassDCR",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "TVEAccessEnabler",
            dependencies: [
                "TVEConcurrency",
                "TVECrypto", "TVEJSON", "TVETokens", "TVEMetadata", "TVESAML", "TVEPassAPI", "TVEPassAPIv2",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The media-token verification service, without a transport.
        .target(
            name: "TVEVerification",
            dependencies: [
                "TVEConcurrency",
                "TVECrypto", "TVETokens", "TVEJSON",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // One-time use shared by a fleet of verifiers, on PostgreSQL. Its own product: only its users build postgres-nio.
        .target(
            name: "TVEPostgresReplayGuard",
            dependencies: [
                "TVEConcurrency",
                "TVETokens", "TVECrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Its lean HTTP/1.1 transport on SwiftNIO, a ServiceLifecycle service.
        .target(
            name: "TVEVerificationServer",
            dependencies: [
                "TVEConcurrency",
                "TVEVerification",
                "TVECrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The local service provider and its MVPD identity providers on Hummingbird. Never the client SDK.
        .target(
            name: "TVEServiceProvider",
            dependencies: [
                "TVEConcurrency",
                "TVEPassAPI",
                "TVEPassAPIv2",
                "TVEPassDCR",
                "TVEVerification",
                "TVECrypto",
                "TVETokens",
                "TVEMetadata",
                "TVESAML",
                "TVEJSON",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
            ]
        ),
        // The sandbox: keys, the browser, a simulated TV-provider account, one-call start, the cookbook's scenarios.
        .target(
            name: "TVESandbox",
            dependencies: [
                "TVEConcurrency",
                "TVEServiceProvider",
                "TVEAccessEnabler",
                "TVEPassAPI",
                "TVECrypto",
                "TVETokens",
                "TVEMetadata",
                "TVEJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // What `tvekit speed` and the benchmarks share, never part of a product: the speed engine (the operations,
        // the paired measurement, `openssl speed`) and the bare OpenSSL baselines TVEKit is compared against.
        .target(
            name: "TVEBenchmarkSupport",
            dependencies: ["TVECrypto", "TVETokens", "TVEMetadata", "TVESAML", "TVEVerification", "COpenSSL"]
        ),
        .executableTarget(
            name: "tvekit",
            dependencies: [
                "TVEConcurrency",
                "TVEBenchmarkSupport",
                "TVESandbox",
                "TVEServiceProvider",
                "TVEVerification",
                "TVEVerificationServer",
                "TVEPostgresReplayGuard",
                "TVEJSON",
                "TVECrypto",
                "TVETokens",
                "TVEMetadata",
                "TVESAML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // libFuzzer target (make fuzz); in a normal build, a replayer for its inputs.
        .executableTarget(
            name: "FuzzMediaToken",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzMediaToken"
        ),
        .executableTarget(
            name: "FuzzSAMLParser",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzSAMLParser"
        ),
        .executableTarget(
            name: "FuzzC14N",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzC14N"
        ),
        .executableTarget(
            name: "FuzzSAMLVerify",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzSAMLVerify"
        ),
        .executableTarget(
            name: "FuzzMetadata",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzMetadata"
        ),
        .executableTarget(
            name: "FuzzV2Requests",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzV2Requests"
        ),
        .executableTarget(
            name: "FuzzVerifyReader",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzVerifyReader"
        ),
        .executableTarget(
            name: "FuzzHTTPReader",
            dependencies: ["TVEFuzzSupport"],
            path: "Fuzz/FuzzHTTPReader"
        ),
        .testTarget(
            name: "TVECryptoTests",
            dependencies: ["TVETestSupport", "TVECrypto"]
        ),
        .testTarget(
            name: "TVETokensTests",
            dependencies: ["TVETestSupport", "TVETokens", "TVECrypto", "TVEFuzzSupport"]
        ),
        .testTarget(
            name: "TVEJSONTests",
            dependencies: ["TVEJSON"]
        ),
        .testTarget(
            name: "TVEMetadataTests",
            dependencies: ["TVETestSupport", "TVEMetadata", "TVECrypto", "TVEJSON", "TVEFuzzSupport"]
        ),
        .testTarget(
            name: "TVESAMLTests",
            dependencies: ["TVETestSupport", "TVESAML", "TVECrypto", "TVEFuzzSupport"]
        ),
        .testTarget(
            name: "TVEPassAPITests",
            dependencies: ["TVEPassAPI"]
        ),
        .testTarget(
            name: "TVEVerificationTests",
            dependencies: ["TVEConcurrency", "TVETestSupport", "TVEVerification", "TVETokens", "TVECrypto", "TVEFuzzSupport"]
        ),
        .testTarget(
            name: "TVEVerificationServerTests",
            dependencies: [
                "TVEConcurrency",
                "TVETestSupport", "TVEVerificationServer", "TVEVerification", "TVEServiceProvider", "TVETokens", "TVECrypto",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                "TVEFuzzSupport",
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TVEPostgresReplayGuardTests",
            dependencies: [
                "TVETestSupport", "TVEPostgresReplayGuard", "TVEVerificationServer", "TVEVerification", "TVETokens", "TVECrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TVEServiceProviderTests",
            dependencies: [
                "TVEConcurrency",
                "TVETestSupport", "TVEServiceProvider", "TVESandbox", "TVEVerification", "TVEPassAPI", "TVETokens", "TVECrypto",
                "TVEMetadata",
                "TVESAML",
                "TVEPassAPIv2",
                "TVEPassDCR",
                "TVEFuzzSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "TVESandboxTests",
            dependencies: ["TVEConcurrency", "TVETestSupport", "TVESandbox", "TVEServiceProvider", "TVEAccessEnabler", "TVECrypto"]
        ),
        .testTarget(
            name: "TVEAccessEnablerTests",
            dependencies: [
                "TVEConcurrency",
                "TVETestSupport",
                "TVEAccessEnabler", "TVESandbox", "TVEServiceProvider", "TVEVerification", "TVETokens", "TVECrypto", "TVEMetadata",
                "TVEJSON", "TVEPassAPIv2",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "CLibXML2Tests",
            dependencies: ["CLibXML2"]
        ),
        .testTarget(
            name: "tvekitTests",
            dependencies: ["tvekit", "TVESandbox", "TVETestSupport"]
        ),
    ]
)

// The benchmarks (ordo-one/benchmark, run by `make benchmarks`) exist only when the manifest is evaluated with
// TVEKIT_BENCHMARKS=1, so that library users never resolve or build package-benchmark. Without it, Benchmarks/ is
// just a folder.
if Context.environment["TVEKIT_BENCHMARKS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"])
    )
    package.targets.append(
        .executableTarget(
            name: "CryptoBenchmarks",
            dependencies: [
                "TVEBenchmarkSupport",
                "TVECrypto",
                "TVETokens",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CryptoBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
