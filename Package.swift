// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WebImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Test-only: an HTTPS origin with a self-signed certificate made at test time.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // System libraries from Debian (`make deps` installs the -dev packages).
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        // libjpeg and libpng report errors by longjmp; these C shims keep every jump inside C.
        .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNGShim", dependencies: ["CPNG"], linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),
        // getxattr/setxattr, which Glibc's Swift module does not export.
        .systemLibrary(name: "CXattr"),
        .target(
            name: "WebImage",
            dependencies: [
                "CJPEG", "CJPEGShim", "CPNG", "CPNGShim", "CGIF", "CWebP", "CXattr",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // libFuzzer harness (`make fuzz`); a plain build makes it a replay tool for saved inputs.
        .executableTarget(name: "WebImageFuzz", dependencies: ["WebImage"]),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Hardening/Regressions"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
