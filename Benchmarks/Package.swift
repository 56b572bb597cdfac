// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so `make test` never builds them or
// resolves package-benchmark. `make bench` (Benchmarks/Makefile) drives both parts.
let package = Package(
    name: "WebImageBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebImage", path: ".."),
        // The transport alone (BareClientWork), at the versions WebImage resolves.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // package-benchmark suites for the library's own hot paths: `swift package benchmark`.
        .executableTarget(
            name: "WebImageBenchmarks",
            dependencies: [
                .product(name: "WebImage", package: "WebImage"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/WebImageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Our side of the peer comparison run by `./compare`.
        .executableTarget(
            name: "webimage-bench",
            dependencies: [
                .product(name: "WebImage", package: "WebImage"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
