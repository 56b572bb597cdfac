import Foundation
import WebImage
import WebImageCodecs

extension ProxyConfig {
    /// A variable that could not be used: its name and why.
    public struct EnvironmentError: Error, Sendable, CustomStringConvertible {
        public var variable: String
        public var reason: String
        public var description: String { "\(variable): \(reason)" }
    }

    /// Where the server listens, from `IMGPROXY_BIND` (`host:port`, `:port`) or `PORT`.
    public struct Bind: Sendable, Hashable {
        public var host: String?
        public var port: Int?
    }

    /// These settings with every imgproxy environment variable of `environment` that
    /// `serve` shares applied (docs/configuration/options.mdx of imgproxy). Unset and
    /// blank variables keep the setting; a malformed value is an error naming the
    /// variable (as imgproxy 4 refuses to start). Booleans take Go's forms (`1 t T TRUE
    /// true True`, `0 f F FALSE false False`); lists are comma-separated.
    ///
    /// Also returns the listen address from `IMGPROXY_BIND`/`PORT`.
    public func applyingEnvironment(_ environment: [String: String]) throws(EnvironmentError) -> (ProxyConfig, Bind) {
        try applyingEnvironment(environment, reader: EnvironmentReader(values: environment))
    }

    /// The `IMGPROXY_*` variables of `environment` that ``applyingEnvironment(_:)`` does not
    /// read (imgproxy settings `serve` does not have, misspellings, or one that another
    /// variable overrides), sorted: `serve` warns about them once at start, so someone
    /// migrating from imgproxy learns which of their settings have no effect.
    public static func unreadEnvironmentVariables(_ environment: [String: String]) -> [String] {
        let reader = EnvironmentReader(values: environment)
        // A malformed value stops the reading early; the caller reports that error instead.
        _ = try? ProxyConfig().applyingEnvironment(environment, reader: reader)
        _ = try? TelemetrySettings(reader: reader)
        return environment.keys.filter { $0.hasPrefix("IMGPROXY_") && !reader.asked.contains($0) }.sorted()
    }

    private func applyingEnvironment(
        _ environment: [String: String], reader: EnvironmentReader
    ) throws(EnvironmentError) -> (ProxyConfig, Bind) {
        var c = self
        // Signing
        var keys = try reader.list("IMGPROXY_KEY")
        if keys == nil { keys = try reader.list("WEBIMAGE_KEY") }
        var salts = try reader.list("IMGPROXY_SALT")
        if salts == nil { salts = try reader.list("WEBIMAGE_SALT") }
        if keys != nil || salts != nil {
            let k = keys ?? [], s = salts ?? []
            guard k.count == s.count else {
                throw EnvironmentError(variable: "IMGPROXY_KEY", reason: "as many keys as salts are needed (\(k.count) and \(s.count))")
            }
            c.keys = try zip(k, s).map { key, salt throws(EnvironmentError) in
                guard let pair = URLSigner.KeyPair(hexKey: key, hexSalt: salt) else {
                    throw EnvironmentError(variable: "IMGPROXY_KEY", reason: "keys and salts are hex strings")
                }
                return pair
            }
        }
        if let v = try reader.value(.signatureSize) { c.signatureSize = Int(v) }
        if let v = try reader.list("IMGPROXY_TRUSTED_SIGNATURES") { c.trustedSignatures = Set(v) }
        // Server and limits
        if let v = try reader.value(.workers) { c.maxConcurrentTransforms = Int(v) }
        else if let v = try reader.value(.workers, name: "IMGPROXY_CONCURRENCY") { c.maxConcurrentTransforms = Int(v) }
        // imgproxy: 0 is "no limit", here the largest queue and the largest source.
        if let v = try reader.value(.maxQueue, zero: ServeSetting.maxQueue.range.upperBound) { c.maxQueuedTransforms = Int(v) }
        if let v = try reader.value(.timeout) { c.requestTimeout = v }
        if let v = try reader.value(.maxAge) { c.maxAge = Int(v) }
        if let v = try reader.megapixels(.maxSourcePixels) { c.maxSourcePixels = v }
        if let v = try reader.value(.maxSourceBytes, zero: ServeSetting.maxSourceBytes.range.upperBound) { c.maxSourceBytes = Int(v) }
        if let v = try reader.value(.maxAnimationFrames) { c.maxAnimationFrames = Int(v) }
        if let v = try reader.int("IMGPROXY_MAX_RESULT_DIMENSION", 0...1_000_000) { c.output.maxResultDimension = v }
        if let v = try reader.list("IMGPROXY_ALLOWED_SOURCES") { c.allowedSources = v }
        if let v = try reader.bool("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES") { c.setAllowed(.loopback, v) }
        if let v = try reader.bool("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES") { c.setAllowed(.linkLocal, v) }
        if let v = try reader.bool("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES") { c.setAllowed(.privateNetwork, v) }
        // Sources: local files and S3 (docs/image_sources of imgproxy)
        if let v = reader.text("IMGPROXY_LOCAL_FILESYSTEM_ROOT") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: v, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw EnvironmentError(variable: "IMGPROXY_LOCAL_FILESYSTEM_ROOT", reason: "\(v) is not a directory")
            }
            c.localRoot = URL(fileURLWithPath: v, isDirectory: true)
        }
        if let v = reader.raw("IMGPROXY_SOURCE_URL_QUERY_SEPARATOR") { c.sourceURLQuerySeparator = v }
        if let v = try reader.bool("IMGPROXY_USE_S3") { c.s3.isEnabled = v }
        if let v = reader.text("IMGPROXY_S3_ENDPOINT") {
            guard let url = S3Settings.endpoint(v) else {
                throw EnvironmentError(variable: "IMGPROXY_S3_ENDPOINT", reason: "not an http(s) URL with a host")
            }
            c.s3.endpoint = url
        }
        if let v = try reader.bool("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE") { c.s3.usesPathStyle = v }
        if let v = reader.text("IMGPROXY_S3_REGION") ?? reader.text("AWS_REGION") ?? reader.text("AWS_DEFAULT_REGION") {
            c.s3.region = v
        }
        if let v = try reader.list("IMGPROXY_S3_ALLOWED_BUCKETS") { c.s3.allowedBuckets = Set(v) }
        if let v = try reader.list("IMGPROXY_S3_DENIED_BUCKETS") { c.s3.deniedBuckets = Set(v) }
        if let id = reader.text("AWS_ACCESS_KEY_ID") {
            guard let secret = reader.text("AWS_SECRET_ACCESS_KEY") else {
                throw EnvironmentError(variable: "AWS_SECRET_ACCESS_KEY", reason: "AWS_ACCESS_KEY_ID is set without it")
            }
            c.s3.credentials = S3Settings.Credentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: reader.text("AWS_SESSION_TOKEN"))
        }
        // Output
        if let v = try reader.value(.quality) { c.output.quality = Int(v) }
        if let v = try reader.formatQualities("IMGPROXY_FORMAT_QUALITY") { c.output.formatQuality.merge(v) { $1 } }
        if let v = try reader.bool("IMGPROXY_AUTO_WEBP") { c.output.autoWebP = v }
        else if let v = try reader.bool("IMGPROXY_ENABLE_WEBP_DETECTION") { c.output.autoWebP = v }
        if let v = try reader.bool("IMGPROXY_AUTO_AVIF") { c.output.autoAVIF = v }
        else if let v = try reader.bool("IMGPROXY_ENABLE_AVIF_DETECTION") { c.output.autoAVIF = v }
        if let v = try reader.bool("IMGPROXY_ENFORCE_WEBP") { c.output.enforceWebP = v }
        if let v = try reader.bool("IMGPROXY_ENFORCE_AVIF") { c.output.enforceAVIF = v }
        if let v = try reader.formats("IMGPROXY_PREFERRED_FORMATS") { c.output.preferredFormats = v }
        if let v = try reader.formats("IMGPROXY_SKIP_PROCESSING_FORMATS") { c.output.skipProcessingFormats = Set(v) }
        if let v = try reader.bool("IMGPROXY_AUTO_ROTATE") { c.output.autoRotate = v }
        if let v = try reader.bool("IMGPROXY_STRIP_METADATA") { c.output.stripMetadata = v }
        if let v = try reader.bool("IMGPROXY_KEEP_COPYRIGHT") { c.output.keepCopyright = v }
        if let v = try reader.bool("IMGPROXY_STRIP_COLOR_PROFILE") { c.output.stripColorProfile = v }
        if let v = try reader.bool("IMGPROXY_RETURN_ATTACHMENT") { c.output.returnAttachment = v }
        if let v = try reader.bool("IMGPROXY_ENABLE_CLIENT_HINTS") { c.output.clientHints = v }
        if let v = try reader.bool("IMGPROXY_CACHE_CONTROL_PASSTHROUGH") { c.output.cacheControlPassthrough = v }
        if let v = try reader.number("IMGPROXY_WATERMARK_OPACITY", 0...1) { c.output.watermarkOpacity = v }
        if let v = reader.text("WEBIMAGE_SHRINK_ON_LOAD") {
            guard let rule = ShrinkOnLoadRule(rawValue: v) else {
                throw EnvironmentError(variable: "WEBIMAGE_SHRINK_ON_LOAD", reason: "\"\(v.prefix(20))\" is neither libvips nor imgproxy")
            }
            c.output.shrinkOnLoad = rule
        }
        if let v = reader.text("IMGPROXY_WATERMARK_DATA") {
            guard let data = Data(base64Encoded: v) else {
                throw EnvironmentError(variable: "IMGPROXY_WATERMARK_DATA", reason: "not base64")
            }
            c.output.watermark = data
        } else if let path = reader.text("IMGPROXY_WATERMARK_PATH") {
            c.output.watermark = try reader.file(path, "IMGPROXY_WATERMARK_PATH")
        } else if let url = reader.text("IMGPROXY_WATERMARK_URL") {
            c.watermarkURL = URL(string: url)
        }
        // Language
        if let v = reader.text("IMGPROXY_PATH_PREFIX") { c.language.pathPrefix = v.hasSuffix("/") ? String(v.dropLast()) : v }
        if let v = reader.text("IMGPROXY_ARGUMENTS_SEPARATOR") { c.language.separator = v }
        if let v = reader.text("IMGPROXY_BASE_URL") { c.language.baseURL = v }
        if let v = try reader.bool("IMGPROXY_BASE64_URL_INCLUDES_FILENAME") { c.language.base64URLIncludesFilename = v }
        if let v = try reader.bool("IMGPROXY_ALLOW_SECURITY_OPTIONS") { c.language.allowsSecurityOptions = v }
        if let v = try reader.list("IMGPROXY_ALLOWED_PROCESSING_OPTIONS") { c.language.allowedOptionNames = Set(v) }
        if let v = try reader.bool("IMGPROXY_ONLY_PRESETS") { c.language.onlyPresets = v }
        var presetEntries: [String] = []
        if let v = reader.text("IMGPROXY_PRESETS") {
            let separator = reader.text("IMGPROXY_PRESETS_SEPARATOR") ?? ","
            presetEntries += v.components(separatedBy: separator)
        }
        if let path = reader.text("IMGPROXY_PRESETS_PATH") {
            let data = try reader.file(path, "IMGPROXY_PRESETS_PATH")
            presetEntries += String(decoding: data, as: UTF8.self).components(separatedBy: .newlines)
        }
        if !presetEntries.isEmpty {
            do throws(ProxyError) {
                c.language.presets = try Presets(entries: presetEntries, separator: c.language.separator)
            } catch {
                throw EnvironmentError(variable: "IMGPROXY_PRESETS", reason: error.message)
            }
        }
        var infoPresetEntries: [String] = []
        if let v = reader.text("IMGPROXY_INFO_PRESETS") {
            infoPresetEntries += v.components(separatedBy: reader.text("IMGPROXY_PRESETS_SEPARATOR") ?? ",")
        }
        if let path = reader.text("IMGPROXY_INFO_PRESETS_PATH") {
            let data = try reader.file(path, "IMGPROXY_INFO_PRESETS_PATH")
            infoPresetEntries += String(decoding: data, as: UTF8.self).components(separatedBy: .newlines)
        }
        if !infoPresetEntries.isEmpty {
            do throws(ProxyError) {
                c.infoPresets = try Presets(entries: infoPresetEntries, separator: c.language.separator)
            } catch {
                throw EnvironmentError(variable: "IMGPROXY_INFO_PRESETS", reason: error.message)
            }
        }
        var bind = Bind()
        if let v = reader.text("IMGPROXY_BIND") {
            guard let colon = v.lastIndex(of: ":"), let port = Int(v[v.index(after: colon)...]), (0...65535).contains(port) else {
                throw EnvironmentError(variable: "IMGPROXY_BIND", reason: "expected host:port or :port")
            }
            let host = String(v[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            bind = Bind(host: host.isEmpty ? "0.0.0.0" : host, port: port)
        } else if let port = try reader.value(.port) {
            bind = Bind(host: "0.0.0.0", port: Int(port))
        }
        return (c, bind)
    }

    /// Allows or refuses one kind of address for sources.
    mutating func setAllowed(_ kind: IPAddress.Kind, _ allowed: Bool) {
        if allowed { allowedAddressKinds.insert(kind) } else { allowedAddressKinds.remove(kind) }
    }
}

/// Reads typed values from environment variables, with imgproxy's forms, remembering
/// which names were asked for (``ProxyConfig/unreadEnvironmentVariables(_:)``).
///
/// A class used by one thread at a time: made, read and dropped inside one call.
final class EnvironmentReader {
    let values: [String: String]
    /// Every name asked for, set or not.
    private(set) var asked: Set<String> = []

    init(values: [String: String]) {
        self.values = values
    }

    /// The value as set (not trimmed), `nil` when unset.
    func raw(_ name: String) -> String? {
        asked.insert(name)
        return values[name]
    }

    /// The trimmed value, `nil` when unset or blank.
    func text(_ name: String) -> String? {
        guard let raw = raw(name)?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    func bool(_ name: String) throws(ProxyConfig.EnvironmentError) -> Bool? {
        guard let v = text(name) else { return nil }
        if ["1", "t", "T", "TRUE", "true", "True"].contains(v) { return true }
        if ["0", "f", "F", "FALSE", "false", "False"].contains(v) { return false }
        throw ProxyConfig.EnvironmentError(variable: name, reason: "\"\(v.prefix(20))\" is not a boolean (true/false, 1/0)")
    }

    func int(_ name: String, _ range: ClosedRange<Int>) throws(ProxyConfig.EnvironmentError) -> Int? {
        guard let v = text(name) else { return nil }
        guard let value = Int(v), range.contains(value) else {
            throw ProxyConfig.EnvironmentError(variable: name, reason: "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func number(_ name: String, _ range: ClosedRange<Double>) throws(ProxyConfig.EnvironmentError) -> Double? {
        guard let v = text(name) else { return nil }
        guard let value = Double(v), value.isFinite, range.contains(value) else {
            throw ProxyConfig.EnvironmentError(variable: name, reason: "expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `setting`'s variable, checked against its range; `zero`, when given, is what an
    /// imgproxy `0` stands for. `name` reads another variable for the same setting.
    func value(_ setting: ServeSetting, name: String? = nil, zero: Double? = nil) throws(ProxyConfig.EnvironmentError) -> Double? {
        guard let name = name ?? setting.variable, let v = text(name) else { return nil }
        guard let value = Double(v), value == 0 && zero != nil || setting.accepts(value) else {
            throw ProxyConfig.EnvironmentError(variable: name, reason: "expected \(setting.expectation)\(zero == nil ? "" : ", or 0")")
        }
        return value == 0 ? zero ?? 0 : value
    }

    /// `setting`'s variable in megapixels as a float (imgproxy's unit), to pixels (truncated).
    func megapixels(_ setting: ServeSetting) throws(ProxyConfig.EnvironmentError) -> Int? {
        guard let name = setting.variable, let v = text(name) else { return nil }
        guard let megapixels = Double(v), megapixels.isFinite, setting.accepts((megapixels * 1_000_000).rounded(.towardZero)) else {
            throw ProxyConfig.EnvironmentError(variable: name, reason: "expected megapixels making \(setting.expectation)")
        }
        return Int(megapixels * 1_000_000)
    }

    /// A comma-separated list, items trimmed, empty items dropped.
    func list(_ name: String) throws(ProxyConfig.EnvironmentError) -> [String]? {
        guard let v = text(name) else { return nil }
        return v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func formats(_ name: String) throws(ProxyConfig.EnvironmentError) -> [ImageFormat]? {
        guard let items = try list(name) else { return nil }
        return try items.map { item throws(ProxyConfig.EnvironmentError) in
            guard let format = OptionParser.formatNames[item] else {
                throw ProxyConfig.EnvironmentError(variable: name, reason: "\"\(item.prefix(16))\" is not a format name")
            }
            return format
        }
    }

    /// `fmt=q,fmt=q`.
    func formatQualities(_ name: String) throws(ProxyConfig.EnvironmentError) -> [ImageFormat: Int]? {
        guard let items = try list(name) else { return nil }
        var result: [ImageFormat: Int] = [:]
        for item in items {
            let parts = item.split(separator: "=")
            guard parts.count == 2, let format = OptionParser.formatNames[String(parts[0])],
                  let q = Int(parts[1]), (1...100).contains(q) else {
                throw ProxyConfig.EnvironmentError(variable: name, reason: "expected format=quality pairs, got \"\(item.prefix(20))\"")
            }
            result[format] = q
        }
        return result
    }

    func file(_ path: String, _ name: String) throws(ProxyConfig.EnvironmentError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProxyConfig.EnvironmentError(variable: name, reason: "cannot read \(path)")
        }
        return data
    }
}
