import WebImage
import WebImageServer

extension ProxyConfig {
    /// The tests' configuration: unsigned URLs off, the SSRF guard on, and the test
    /// origins' address (127.0.0.2) let through it.
    static var testing: ProxyConfig {
        var config = ProxyConfig()
        config.allowedNetworks = [IPNetwork("127.0.0.2/32")].compactMap { $0 }
        config.requestTimeout = 10
        return config
    }

    /// ``testing`` with `unsafe` URLs accepted.
    static var unsigned: ProxyConfig {
        var config = testing
        config.allowsUnsigned = true
        return config
    }
}
