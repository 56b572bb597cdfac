import Foundation
import Testing
import WebImage
import WebImageCodecs
@testable import WebImageServer

/// imgproxy's environment variables (docs/configuration/options.mdx), read by
/// `ProxyConfig.applyingEnvironment`: every variable `serve` shares changes the same
/// setting; malformed values stop the start with the variable's name.
@Suite("imgproxy environment variables", .timeLimit(.minutes(1)))
struct EnvironmentTests {
    static func config(_ environment: [String: String], base: ProxyConfig = ProxyConfig()) throws -> ProxyConfig {
        try base.applyingEnvironment(environment).0
    }

    @Test("signing: IMGPROXY_KEY/SALT (lists, for rotation), IMGPROXY_SIGNATURE_SIZE, IMGPROXY_TRUSTED_SIGNATURES")
    func signing() throws {
        let c = try Self.config([
            "IMGPROXY_KEY": "736563726574,6b6579", "IMGPROXY_SALT": "68656C6C6F,73616c74", "IMGPROXY_SIGNATURE_SIZE": "8",
            "IMGPROXY_TRUSTED_SIGNATURES": "abc, def",
        ])
        #expect(c.keys.count == 2 && c.keys[0].key == Array("secret".utf8) && c.keys[1].salt == Array("salt".utf8))
        #expect(c.signatureSize == 8 && c.trustedSignatures == ["abc", "def"])
        #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["IMGPROXY_KEY": "00", "IMGPROXY_SALT": "00,11"]) }
        #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["IMGPROXY_KEY": "zz", "IMGPROXY_SALT": "00"]) }
        #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["IMGPROXY_SIGNATURE_SIZE": "33"]) }
    }

    @Test("server and limits: BIND, PORT, WORKERS, REQUESTS_QUEUE_SIZE, TIMEOUT, TTL, MAX_SRC_RESOLUTION, MAX_SRC_FILE_SIZE, MAX_ANIMATION_FRAMES, MAX_RESULT_DIMENSION")
    func limits() throws {
        let (c, bind) = try ProxyConfig().applyingEnvironment([
            "IMGPROXY_BIND": ":9090", "IMGPROXY_WORKERS": "3", "IMGPROXY_REQUESTS_QUEUE_SIZE": "7", "IMGPROXY_TIMEOUT": "12",
            "IMGPROXY_TTL": "3600", "IMGPROXY_MAX_SRC_RESOLUTION": "12.5", "IMGPROXY_MAX_SRC_FILE_SIZE": "2000000",
            "IMGPROXY_MAX_ANIMATION_FRAMES": "9", "IMGPROXY_MAX_RESULT_DIMENSION": "640",
        ])
        #expect(bind == .init(host: "0.0.0.0", port: 9090))
        #expect(c.maxConcurrentTransforms == 3 && c.maxQueuedTransforms == 7 && c.requestTimeout == 12 && c.maxAge == 3600)
        #expect(c.maxSourcePixels == 12_500_000 && c.maxSourceBytes == 2_000_000 && c.maxAnimationFrames == 9)
        #expect(c.output.maxResultDimension == 640)
        #expect(try ProxyConfig().applyingEnvironment(["PORT": "7070"]).1.port == 7070)
        #expect(try ProxyConfig().applyingEnvironment(["IMGPROXY_BIND": "127.0.0.3:81"]).1 == .init(host: "127.0.0.3", port: 81))
    }

    @Test("output: QUALITY, FORMAT_QUALITY, AUTO/ENFORCE WEBP/AVIF (and the old detection names), PREFERRED and SKIP_PROCESSING formats")
    func output() throws {
        let c = try Self.config([
            "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "jpeg=85,webp=60", "IMGPROXY_AUTO_WEBP": "false",
            "IMGPROXY_ENABLE_AVIF_DETECTION": "0", "IMGPROXY_ENFORCE_WEBP": "true", "IMGPROXY_ENFORCE_AVIF": "1",
            "IMGPROXY_PREFERRED_FORMATS": "png,jpeg", "IMGPROXY_SKIP_PROCESSING_FORMATS": "svg,gif",
        ])
        #expect(c.output.quality == 70 && c.output.formatQuality[.jpeg] == 85 && c.output.formatQuality[.webp] == 60)
        #expect(c.output.formatQuality[.avif] == 63, "imgproxy's defaults stay for the formats not named")
        #expect(!c.output.autoWebP && !c.output.autoAVIF && c.output.enforceWebP && c.output.enforceAVIF)
        #expect(c.output.preferredFormats == [.png, .jpeg] && c.output.skipProcessingFormats == [.svg, .gif])
    }

    @Test("processing defaults: AUTO_ROTATE, STRIP_METADATA, KEEP_COPYRIGHT, STRIP_COLOR_PROFILE, ENABLE_CLIENT_HINTS, CACHE_CONTROL_PASSTHROUGH, RETURN_ATTACHMENT")
    func defaults() throws {
        let c = try Self.config([
            "IMGPROXY_AUTO_ROTATE": "false", "IMGPROXY_STRIP_METADATA": "F", "IMGPROXY_KEEP_COPYRIGHT": "False",
            "IMGPROXY_STRIP_COLOR_PROFILE": "FALSE", "IMGPROXY_ENABLE_CLIENT_HINTS": "t", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "True",
            "IMGPROXY_RETURN_ATTACHMENT": "1",
        ])
        #expect(!c.output.autoRotate && !c.output.stripMetadata && !c.output.keepCopyright && !c.output.stripColorProfile)
        #expect(c.output.clientHints && c.output.cacheControlPassthrough && c.output.returnAttachment)
        #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["IMGPROXY_AUTO_ROTATE": "yes"]) }
    }

    @Test("language: PATH_PREFIX, ARGUMENTS_SEPARATOR, BASE_URL, BASE64_URL_INCLUDES_FILENAME, ALLOW_SECURITY_OPTIONS, ALLOWED_PROCESSING_OPTIONS, PRESETS, PRESETS_PATH, ONLY_PRESETS")
    func language() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("presets-\(UUID().uuidString).txt")
        try Data("# thumbnails\nthumb=rs:fill:64:64\n\nlarge=rs:fit:1200:1200\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let c = try Self.config([
            "IMGPROXY_PATH_PREFIX": "/img", "IMGPROXY_ARGUMENTS_SEPARATOR": ":", "IMGPROXY_BASE_URL": "http://cdn.example/",
            "IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "1", "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true",
            "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs,w", "IMGPROXY_PRESETS": "default=q:60,sharp=sh:0.7",
            "IMGPROXY_PRESETS_PATH": file.path, "IMGPROXY_ONLY_PRESETS": "false",
        ])
        #expect(c.language.pathPrefix == "/img" && c.language.baseURL == "http://cdn.example/")
        #expect(c.language.base64URLIncludesFilename && c.language.allowsSecurityOptions && !c.language.onlyPresets)
        #expect(c.language.allowedOptionNames == ["rs", "w"])
        #expect(Set(c.language.presets.definitions.keys) == ["default", "sharp", "thumb", "large"])
        #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["IMGPROXY_PRESETS": "broken"]) }
    }

    @Test("sources and watermark: ALLOWED_SOURCES, ALLOW_*_SOURCE_ADDRESSES, WATERMARK_DATA/PATH/URL, WATERMARK_OPACITY")
    func sources() throws {
        let mark = Data([0x89, 0x50, 0x4E, 0x47])
        let c = try Self.config([
            "IMGPROXY_ALLOWED_SOURCES": "s3://,https://*.example.com/", "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "true",
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false", "IMGPROXY_WATERMARK_DATA": mark.base64EncodedString(),
            "IMGPROXY_WATERMARK_OPACITY": "0.5",
        ])
        #expect(c.allowedSources == ["s3://", "https://*.example.com/"])
        #expect(c.allowedAddressKinds == [.privateNetwork])
        #expect(c.output.watermark == mark && c.output.watermarkOpacity == 0.5)
        let remote = try Self.config(["IMGPROXY_WATERMARK_URL": "http://example.com/mark.png"])
        #expect(remote.watermarkURL?.absoluteString == "http://example.com/mark.png")
    }

    @Test("WEBIMAGE_SHRINK_ON_LOAD picks libvips' or imgproxy's shrink-on-load rule; anything else stops the start")
    func shrinkOnLoad() throws {
        #expect(try Self.config([:]).output.shrinkOnLoad == .libvips)
        #expect(try Self.config(["WEBIMAGE_SHRINK_ON_LOAD": "imgproxy"]).output.shrinkOnLoad == .imgproxy)
        #expect(try Self.config(["WEBIMAGE_SHRINK_ON_LOAD": " libvips "]).output.shrinkOnLoad == .libvips)
        let error = #expect(throws: ProxyConfig.EnvironmentError.self) { try Self.config(["WEBIMAGE_SHRINK_ON_LOAD": "fast"]) }
        #expect(error?.variable == "WEBIMAGE_SHRINK_ON_LOAD")
    }

    @Test("a setting changes the fingerprint results and ETags are keyed by")
    func fingerprint() throws {
        let base = ProxyConfig()
        for environment in [["IMGPROXY_QUALITY": "70"], ["IMGPROXY_FORMAT_QUALITY": "webp=50"], ["IMGPROXY_PRESETS": "a=q:10"],
                            ["IMGPROXY_AUTO_WEBP": "false"], ["IMGPROXY_MAX_RESULT_DIMENSION": "100"],
                            ["IMGPROXY_WATERMARK_DATA": "AAAA"], ["IMGPROXY_PREFERRED_FORMATS": "png"],
                            ["WEBIMAGE_SHRINK_ON_LOAD": "imgproxy"]] {
            #expect(try Self.config(environment).fingerprint != base.fingerprint, "\(environment)")
        }
        #expect(try Self.config(["IMGPROXY_TTL": "60"]).fingerprint == base.fingerprint, "headers do not change bytes")
    }

    @Test("--imgproxy-defaults: imgproxy's own defaults where ours differ")
    func imgproxyDefaults() {
        let c = ProxyConfig.imgproxyDefaults
        #expect(!c.output.autoWebP && !c.output.autoAVIF && c.maxAnimationFrames == 1 && c.requestTimeout == 10)
        #expect(c.allowedAddressKinds == [.privateNetwork])
    }
}
