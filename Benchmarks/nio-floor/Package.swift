// swift-tools-version:6.0
// The NIO floor (make fleet-bench's second HTTP peer): what a SwiftNIO server costs per request when it does nothing but
// find the end of each request head and answer a fixed 200. A package of its own, so that the project's users never
// build it.
import PackageDescription

let package = Package(
    name: "nio-floor",
    dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.101.2")],
    targets: [
        .executableTarget(
            name: "nio-floor",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        )
    ]
)
