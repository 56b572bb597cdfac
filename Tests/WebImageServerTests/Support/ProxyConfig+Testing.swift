import WebImage
import WebImageServer

extension ProxyConfig {
    /// The tests' configuration: no key (so URLs are not signed, as in imgproxy), the
    /// SSRF guard on, and the test origins' address (127.0.0.2) let through it.
    static var testing: ProxyConfig {
        var config = ProxyConfig()
        config.allowedNetworks = [IPNetwork("127.0.0.2/32")].compactMap { $0 }
        config.requestTimeout = 10
        return config
    }

    /// ``testing``: without a key any signature segment, `unsafe` included, passes.
    static var unsigned: ProxyConfig { testing }
}
