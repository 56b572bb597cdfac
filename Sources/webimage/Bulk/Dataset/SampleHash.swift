import Crypto
import Foundation

/// img2dataset's `compute_hash`: the digest of a sample's downloaded bytes, written in
/// lower-case hex into the metadata column of the algorithm's name (`md5`, `sha256`,
/// `sha512`), as Python's `hashlib.<name>(bytes).hexdigest()`.
enum SampleHash: String, Sendable, CaseIterable {
    case md5, sha256, sha512

    /// The hex digest of `data`.
    func hex(_ data: Data) -> String {
        switch self {
        case .md5: Self.hex(Insecure.MD5.hash(data: data))
        case .sha256: Self.hex(SHA256.hash(data: data))
        case .sha512: Self.hex(SHA512.hash(data: data))
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ digest: some Digest) -> String {
        var out = [UInt8]()
        out.reserveCapacity(128)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
