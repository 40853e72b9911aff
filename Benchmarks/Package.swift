// swift-tools-version: 6.1
// Benchmarks for TVEKit, kept in a nested package so that library users never build package-benchmark.
// Run: make benchmarks (or: cd Benchmarks && swift package benchmark)

import PackageDescription

let package = Package(
    name: "TVEKitBenchmarks",
    dependencies: [
        .package(name: "tvekit", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CryptoBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TVECrypto", package: "tvekit"),
                .product(name: "TVETokens", package: "tvekit"),
            ],
            path: "Benchmarks/CryptoBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
