// swift-tools-version: 6.1
// The contract generator's pinned version, built only by `make openapi` and `make lint` (into .build-openapi), so that
// neither TVEKit's users nor its own builds ever build swift-openapi-generator. See scripts/openapi.py.
//
// The generator and every package it builds with are pinned exactly (no Package.resolved is committed), so that the
// check in `make lint` gives the same code on every machine.
import PackageDescription

let package = Package(
    name: "tvekit-openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", exact: "6.4.0"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-algorithms", exact: "1.2.1"),
        .package(url: "https://github.com/apple/swift-numerics.git", exact: "1.1.1"),
    ],
    targets: []
)
