import Foundation
import Testing
@testable import WebImage

/// The SSRF guard's classifier, as values: no address here is ever connected to.
@Suite("AddressPolicy: classifying addresses", .timeLimit(.minutes(1)))
struct AddressPolicyTests {
    @Test("IPv4 classes", arguments: [
        ("0.0.0.0", IPAddress.Kind.unspecified), ("0.1.2.3", .unspecified),
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback),
        ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("100.64.0.1", .privateNetwork),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
        ("172.32.0.1", .global), ("172.15.0.1", .global), ("8.8.8.8", .global), ("100.128.0.1", .global),
        ("93.184.216.34", .global),
    ])
    func ipv4(_ text: String, _ kind: IPAddress.Kind) throws {
        let address = try #require(IPAddress(text))
        #expect(address.isIPv4)
        #expect(address.kind == kind)
    }

    @Test("IPv6 classes, and the IPv6 forms of IPv4 addresses", arguments: [
        ("::", IPAddress.Kind.unspecified), ("::1", .loopback), ("[::1]", .loopback),
        ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork), ("fec0::1", .privateNetwork),
        ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal), ("febf::1", .linkLocal),
        ("ff02::1", .multicast), ("2001:4860:4860::8888", .global), ("2606:4700::1111", .global),
        // IPv4-mapped
        ("::ffff:127.0.0.1", .loopback), ("::ffff:169.254.169.254", .linkLocal), ("::ffff:10.1.2.3", .privateNetwork),
        ("::ffff:7f00:1", .loopback), ("::ffff:0.0.0.0", .unspecified), ("::ffff:8.8.8.8", .global),
        // IPv4-compatible (deprecated, still routed by some stacks)
        ("::127.0.0.1", .loopback), ("::10.0.0.1", .privateNetwork), ("::a9fe:a9fe", .linkLocal),
        // NAT64 and 6to4 carrying internal IPv4 addresses
        ("64:ff9b::169.254.169.254", .linkLocal), ("64:ff9b::a00:1", .privateNetwork),
        ("2002:7f00:1::", .loopback), ("2002:c0a8:101::1", .privateNetwork), ("2002:808:808::", .global),
    ])
    func ipv6(_ text: String, _ kind: IPAddress.Kind) throws {
        let address = try #require(IPAddress(text))
        #expect(!address.isIPv4)
        #expect(address.kind == kind)
    }

    @Test("host names and exotic IPv4 spellings are not address literals (they get resolved)")
    func notLiterals() {
        for text in ["localhost", "example.com", "2130706433", "0x7f.0.0.1", "127.1", "017700000001", "", "1.2.3.4.5", "[::1"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
    }

    @Test("the default policy refuses every internal kind and allows global addresses")
    func defaultPolicy() throws {
        let policy = AddressPolicy.blockPrivateAddresses
        for text in ["127.0.0.1", "10.0.0.1", "192.168.0.1", "172.20.0.1", "169.254.169.254", "fd00::1", "fe80::1",
                     "::ffff:169.254.169.254", "::ffff:127.0.0.1", "::1", "::", "0.0.0.0", "224.0.0.1", "ff02::1"] {
            #expect(!policy.permits(try #require(IPAddress(text))), "\(text)")
        }
        for text in ["8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8"] {
            #expect(policy.permits(try #require(IPAddress(text))), "\(text)")
        }
    }

    @Test("allowlisted networks and hosts pass; a mapped address matches its IPv4 block")
    func allowlists() throws {
        let policy = AddressPolicy(
            allowedHosts: ["Images.Internal", ".corp.example"],
            allowedNetworks: [try #require(IPNetwork("10.1.0.0/16")), try #require(IPNetwork("fd00::/8"))])
        #expect(policy.permits(try #require(IPAddress("10.1.2.3"))))
        #expect(policy.permits(try #require(IPAddress("::ffff:10.1.2.3"))))
        #expect(!policy.permits(try #require(IPAddress("10.2.0.1"))))
        #expect(policy.permits(try #require(IPAddress("fd00::5"))))
        #expect(!policy.permits(try #require(IPAddress("fc00::5"))))
        #expect(policy.allowsByName("images.internal"))
        #expect(policy.allowsByName("cdn.corp.example"))
        #expect(!policy.allowsByName("corp.example.evil"))
        #expect(!policy.allowsByName("images.internal.evil"))
    }

    @Test("CIDR parsing: prefixes, host bits, bad input")
    func cidr() throws {
        let net = try #require(IPNetwork("192.168.1.77/24"))
        #expect(net.description == "192.168.1.0/24")
        #expect(net.contains(try #require(IPAddress("192.168.1.200"))))
        #expect(!net.contains(try #require(IPAddress("192.168.2.1"))))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(try #require(IPAddress("8.8.8.8"))))
        #expect(try #require(IPNetwork("10.0.0.1")).prefixLength == 32)
        #expect(try #require(IPNetwork("fe80::/10")).contains(try #require(IPAddress("febf::1"))))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/-1", "nope/8", "10.0.0.0/x"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }
}
