// swift-tools-version: 6.1
// The contract generator's pinned version, built only by `make openapi` and `make lint` (into .build-openapi), so that
// neither TVEKit's users nor its own builds ever build swift-openapi-generator. See scripts/openapi.py.
import PackageDescription

let package = Package(
    name: "tvekit-openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ],
    targets: []
)
