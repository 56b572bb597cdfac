import Crypto
import Foundation

/// imgproxy's URL signature: base64url, without padding, of the first
/// ``signatureSize`` bytes of HMAC-SHA256(key, salt ‖ path-after-the-signature), with hex
/// key and salt (docs/usage/signing_url.mdx; `IMGPROXY_SIGNATURE_SIZE` truncates it).
///
/// Several key/salt pairs may be active at once so keys can be rotated: a URL signed
/// with any of them passes. ``trusted`` signature strings pass without a check
/// (`IMGPROXY_TRUSTED_SIGNATURES`). Comparison is constant-time. Stateless; use from any task.
public struct URLSigner: Sendable {
    /// One key and its salt, as raw bytes.
    public struct KeyPair: Sendable, Hashable {
        public var key: [UInt8]
        public var salt: [UInt8]

        /// Parses hex `key` and `salt`; `nil` when either is not even-length hex or the key is empty.
        public init?(hexKey: String, hexSalt: String) {
            guard let key = Self.bytes(hex: hexKey), !key.isEmpty, let salt = Self.bytes(hex: hexSalt) else { return nil }
            self.key = key
            self.salt = salt
        }

        /// A fresh random pair (64 bytes each), for dev mode.
        public static func random() -> KeyPair {
            var generator = SystemRandomNumberGenerator()
            let key = (0..<64).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let salt = (0..<64).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            return KeyPair(key: key, salt: salt)
        }

        init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }

        public var hexKey: String { key.map { String(format: "%02x", $0) }.joined() }
        public var hexSalt: String { salt.map { String(format: "%02x", $0) }.joined() }

        static func bytes(hex: String) -> [UInt8]? {
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(digits.count / 2)
            var i = 0
            while i < digits.count {
                guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
                out.append(hi << 4 | lo)
                i += 2
            }
            return out
        }

        private static func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }

    public let pairs: [KeyPair]
    /// Bytes of the MAC a signature carries, 1…32. Default 32.
    public let signatureSize: Int
    /// Signature strings accepted as they are.
    public let trusted: Set<String>

    public init(pairs: [KeyPair], signatureSize: Int = 32, trusted: Set<String> = []) {
        self.pairs = pairs
        self.signatureSize = min(max(signatureSize, 1), 32)
        self.trusted = trusted
    }

    /// Whether URLs must be signed: some key is configured. Without one, imgproxy accepts
    /// any signature segment (`unsafe`, `insecure`, `_`…).
    public var isSigning: Bool { !pairs.isEmpty }

    /// The signature of `path` (which starts with `/`) under `pair`, `size` bytes of MAC.
    public static func signature(of path: String, with pair: KeyPair, size: Int = 32) -> String {
        Data(mac(path, pair).prefix(min(max(size, 1), 32))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func mac(_ path: String, _ pair: KeyPair) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    /// Whether `signature` signs `path` under any pair; constant-time in the signature's
    /// bytes (every pair is tried, and the comparison does not stop at the first difference).
    public func isValid(signature: String, for path: String) -> Bool {
        if trusted.contains(signature) { return true }
        guard let given = Self.digest(fromBase64URL: signature), given.count == signatureSize else { return false }
        var valid = false
        for pair in pairs {
            let expected = Self.mac(path, pair).prefix(signatureSize)
            var difference: UInt8 = 0
            for (a, b) in zip(given, expected) { difference |= a ^ b }
            if difference == 0 { valid = true }
        }
        return valid
    }

    /// The bytes of an unpadded base64url signature; `nil` when malformed (a padded one
    /// too, as imgproxy refuses it).
    static func digest(fromBase64URL text: String) -> [UInt8]? {
        guard !text.isEmpty, text.count <= 44, !text.contains("=") else { return nil }
        return SourceDecoding.base64URL(Substring(text))
    }
}
