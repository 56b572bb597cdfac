import Foundation
import Testing
@testable import WebImageServer

/// `ServeSetting.all` is the one statement of each numeric serve setting's range and
/// default: the proxy article's "Limits" table, `ProxyConfig`'s clamps, the environment
/// reader and the command line all follow it.
@Suite("serve settings: one table", .timeLimit(.minutes(2)))
struct ServeSettingTests {
    /// The article's row for `setting`, computed from the table.
    static func row(_ setting: ServeSetting) -> String {
        "| `\(setting.flag)` | \(setting.variable.map { "`\($0)`" } ?? "—") | \(setting.rangeText) | "
            + "\(setting.defaultText) | \(setting.summary) |"
    }

    @Test("the proxy article's Limits table lists exactly the table's settings, ranges and defaults, in order")
    func documented() throws {
        let article = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("Sources/WebImage/WebImage.docc/ImageProxy.md"), encoding: .utf8)
        let section = try #require(article.components(separatedBy: "#### Limits\n").dropFirst().first)
        let rows = section.split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2).map(String.init)
        #expect(rows == ServeSetting.all.map(Self.row))
    }

    /// How each setting reads and writes `ProxyConfig` (the port is the command's, not the config's).
    static let fields: [(ServeSetting, get: @Sendable (ProxyConfig) -> Double, set: @Sendable (inout ProxyConfig, Double) -> Void)] = [
        (.signatureSize, { Double($0.signatureSize) }, { $0.signatureSize = Int($1) }),
        (.maxSourcePixels, { Double($0.maxSourcePixels) }, { $0.maxSourcePixels = Int($1) }),
        (.maxSourceBytes, { Double($0.maxSourceBytes) }, { $0.maxSourceBytes = Int($1) }),
        (.maxOutputPixels, { Double($0.maxOutputPixels) }, { $0.maxOutputPixels = Int($1) }),
        (.maxAnimationFrames, { Double($0.maxAnimationFrames) }, { $0.maxAnimationFrames = Int($1) }),
        (.timeout, { $0.requestTimeout }, { $0.requestTimeout = $1 }),
        (.workers, { Double($0.maxConcurrentTransforms) }, { $0.maxConcurrentTransforms = Int($1) }),
        (.maxQueue, { Double($0.maxQueuedTransforms) }, { $0.maxQueuedTransforms = Int($1) }),
        (.maxAge, { Double($0.maxAge) }, { $0.maxAge = Int($1) }),
        (.cacheMaxSize, { Double($0.maxCacheBytes) }, { $0.maxCacheBytes = Int($1) }),
        (.cacheMaxAge, { $0.maxCacheAge }, { $0.maxCacheAge = $1 }),
        (.memoryCacheSize, { Double($0.memoryCacheBytes) }, { $0.memoryCacheBytes = Int($1) }),
        (.quality, { Double($0.output.quality) }, { $0.output.quality = Int($1) }),
        (.maxMemory, { Double($0.maxMemoryBytes) }, { $0.maxMemoryBytes = Int($1) }),
        (.ioThreads, { Double($0.ioThreads) }, { $0.ioThreads = Int($1) }),
    ]

    @Test("each numeric default is ProxyConfig()'s; ProxyConfig clamps to each range")
    func defaultsAndClamps() {
        #expect(Self.fields.count == ServeSetting.all.count - 1, "every setting but --port has a field")
        for (setting, get, set) in Self.fields {
            if let value = Double(setting.defaultText) {
                #expect(get(ProxyConfig()) == value, "\(setting.flag)")
            }
            var config = ProxyConfig()
            set(&config, setting.range.upperBound * 2 + 1)
            #expect(get(config) == setting.range.upperBound, "\(setting.flag)")
            set(&config, setting.range.lowerBound - 1)
            #expect(get(config) == setting.range.lowerBound, "\(setting.flag)")
        }
    }

    @Test("a variable outside its range stops the start naming it and the range; imgproxy's 0 means the most")
    func environment() throws {
        for setting in ServeSetting.all {
            guard let variable = setting.variable else { continue }
            let above = ServeSetting.format(setting.isInteger ? setting.range.upperBound + 1 : setting.range.upperBound * 2)
            let error = #expect(throws: ProxyConfig.EnvironmentError.self, "\(variable)") {
                try ProxyConfig().applyingEnvironment([variable: above])
            }
            #expect(error?.variable == variable)
            #expect(error?.reason.contains(setting.expectation) == true, "\(error?.reason ?? "")")
        }
        let (config, _) = try ProxyConfig().applyingEnvironment(["IMGPROXY_REQUESTS_QUEUE_SIZE": "0", "IMGPROXY_MAX_SRC_FILE_SIZE": "0"])
        #expect(Double(config.maxQueuedTransforms) == ServeSetting.maxQueue.range.upperBound)
        #expect(Double(config.maxSourceBytes) == ServeSetting.maxSourceBytes.range.upperBound)
        #expect(try ProxyConfig().applyingEnvironment(["IMGPROXY_TIMEOUT": "2.5"]).0.requestTimeout == 2.5)
    }

    @Test("a flag outside its range is a usage error (status 2) naming the flag and the range")
    func commandLine() async throws {
        for setting in ServeSetting.all {
            let above = ServeSetting.format(setting.isInteger ? setting.range.upperBound + 1 : setting.range.upperBound * 2)
            let run = try await InfoCommandTests.run(["serve", "--unsigned", setting.flag, above])
            let text = String(decoding: run.out, as: UTF8.self)
            #expect(run.status == 2, "\(setting.flag): \(text)")
            #expect(text.contains("\(setting.flag) must be \(setting.expectation)"), "\(text)")
        }
    }
}
