// swift-tools-version: 6.1
import PackageDescription

// The targets are the layers of DESIGN.md: a lower one cannot import a higher one.
//   C modules → WebImageCodecs (Image, Coders) → WebImage (Transform … Prefetch, Metrics) → WebImageServer → webimage
//   WebImage → WebImageCompat (SDWebImage's completion-handler API, its callback queues, transformer types and view layer)
// WebImageTestOrigin is the loopback HTTP origin of the tests and of `webimage demo`.
let package = Package(
    name: "WebImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImageCodecs", targets: ["WebImageCodecs"]),
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageCompat", targets: ["WebImageCompat"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    // OpenTelemetry export (swift-otel) is compiled in only with this trait: its first build
    // costs ~7 min, which `make demo` does not pay. `make deb`, `make test` and `make bench` enable it.
    traits: [
        .trait(name: "OpenTelemetry", description: "Export traces, metrics and logs over OTLP/HTTP (webimage serve)"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // The test origin's HTTPS mode: a self-signed certificate made at run time.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        // `webimage serve`: the image proxy's HTTP server and its graceful shutdown.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // NIOHTTPTypes: the HTTP part type of the proxy's own channel handler.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // `fetch --input-format csv|tsv`: RFC 4180 records read as a stream.
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        // The proxy's spans (the API only; Hummingbird already depends on it).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP/HTTP exporters, with the OpenTelemetry trait only (gRPC's dependencies left out).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // System libraries from Debian (`make deps` installs the -dev packages).
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CLCMS2", providers: [.apt(["liblcms2-dev"])]),
        // The PNG fast path's inflater: whole-buffer zlib decompression, ~2x zlib's inflate.
        .systemLibrary(name: "CDeflate", providers: [.apt(["libdeflate-dev"])]),
        // libjpeg and libpng report errors by longjmp; these C shims keep every jump inside C.
        .target(name: "CJPEGShim", linkerSettings: [.linkedLibrary("jpeg")]),
        // Optimised in debug builds too: its PNG fast path unfilters every row of the suite's PNGs.
        .target(name: "CPNGShim", dependencies: ["CPNG", "CDeflate"], cSettings: [.unsafeFlags(["-O2"])],
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]),
        // The Lanczos resampler's inner loops (AVX2 chosen at run time, SSE2, plain C elsewhere).
        // Optimised in debug builds too: the suite resizes 12 MP photos hundreds of times,
        // and at -O0 the SIMD loops are ~10x slower (CI runs the debug build).
        .target(name: "CResample", cSettings: [.unsafeFlags(["-O2"])]),
        // getxattr/setxattr, which Glibc's Swift module does not export.
        .systemLibrary(name: "CXattr"),
        // The disk cache's non-blocking hit path: openat2(RESOLVE_CACHED) and preadv2(RWF_NOWAIT).
        .target(name: "CFileIO"),
        // mallopt, likewise (the proxy's allocator settings).
        .systemLibrary(name: "CMalloc"),
        // Bulk mode (`fetch --file`): webdataset tar shards and gzip-compressed lists.
        .systemLibrary(name: "CArchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Parquet page codecs: snappy (its C API) and zstd; gzip pages go through CZlib.
        .systemLibrary(name: "CSnappy", providers: [.apt(["libsnappy-dev"])]),
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
        // The parquet reader and writer (bulk mode's lists and shard metadata): no image code.
        .target(name: "Parquet", dependencies: ["CSnappy", "CZstd", "CZlib"]),
        // Pixels, formats, decoders and encoders: no networking, no caches.
        .target(
            name: "WebImageCodecs",
            dependencies: [
                "CJPEG", "CJPEGShim", "CPNG", "CPNGShim", "CGIF", "CWebP",
                "CAVIF", "CHEIF", "CJXL", "CLCMS2", "CResample",
            ]
        ),
        // Caches, loaders, the manager, transformers, prefetching and the view layer.
        .target(
            name: "WebImage",
            dependencies: [
                "WebImageCodecs", "CXattr", "CFileIO",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // SDWebImage's completion-handler spellings over WebImage's `async` API: the callback
        // adapters, the cache query's operation, and the queues the callbacks run on.
        .target(name: "WebImageCompat", dependencies: ["WebImage"]),
        .target(
            name: "WebImageTestOrigin",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // The image proxy (`webimage serve`): imgproxy's URL scheme on Hummingbird 2.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage", "WebImageCodecs",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage", "WebImageCodecs", "WebImageTestOrigin", "WebImageServer", "CMalloc",
                "CArchive", "CZlib", "Parquet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Bulk mode's s3:// output folder.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["OpenTelemetry"])),
                // The exporters' background work runs beside the server (ServeObservability).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // libFuzzer harness (`make fuzz`); a plain build makes it a replay tool for saved inputs.
        .executableTarget(name: "WebImageFuzz", dependencies: ["WebImage", "WebImageCodecs", "WebImageServer", "Parquet"], exclude: ["FUZZING.md"]),
        // The loader and manager suites drive the core through the callback forms too
        // (their recorders), hence WebImageCompat; the adapters' own tests are WebImageCompatTests.
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage", "WebImageCompat", "WebImageCodecs", "WebImageTestOrigin", "WebImageTestSupport",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Hardening/Regressions"]
        ),
        .testTarget(
            name: "WebImageServerTests",
            dependencies: [
                "WebImageServer", "WebImage", "WebImageCodecs", "WebImageTestOrigin",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The callback adapters: which queue each form delivers on, the blocking query, queueing order.
        .testTarget(
            name: "WebImageCompatTests",
            dependencies: ["WebImageCompat", "WebImage", "WebImageCodecs", "WebImageTestOrigin", "WebImageTestSupport"]),
        // Helpers both library test targets use (one copy).
        .target(name: "WebImageTestSupport", dependencies: ["WebImage", "WebImageCompat", "WebImageCodecs"], path: "Tests/WebImageTestSupport"),
        // The `webimage` tool's internals, unit-tested (`@testable import webimage`); the
        // tool's commands are tested end to end in WebImageTests.
        .testTarget(name: "WebImageCLITests", dependencies: ["webimage"]),
        .testTarget(name: "ParquetTests", dependencies: ["Parquet"]),
        // The README's examples, compiled; its test checks that none is missing.
        // MemberImportVisibility: a snippet sees only the members of what its own file imports,
        // so a README example that needs `import WebImageCompat` fails to compile without it
        // (Swift otherwise lets one file's import lend extension members to the whole target).
        .testTarget(name: "ReadmeSnippetsTests", dependencies: ["WebImage", "WebImageCompat"],
                    swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
    ],
    swiftLanguageModes: [.v6]
)
