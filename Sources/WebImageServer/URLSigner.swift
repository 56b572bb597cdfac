import Crypto
import Foundation

/// imgproxy's URL signature: base64url, without padding, of
/// HMAC-SHA256(key, salt ‖ path-after-the-signature), with hex key and salt.
///
/// Several key/salt pairs may be active at once so keys can be rotated: a URL signed
/// with any of them passes. Comparison is constant-time. Stateless; use from any task.
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

    public init(pairs: [KeyPair]) {
        self.pairs = pairs
    }

    /// The signature of `path` (which starts with `/`) under `pair`.
    public static func signature(of path: String, with pair: KeyPair) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Data(hmac.finalize()).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `signature` signs `path` under any pair; constant-time in the signature's bytes.
    public func isValid(signature: String, for path: String) -> Bool {
        guard let given = Self.digest(fromBase64URL: signature) else { return false }
        var valid = false
        let message = Array(path.utf8)
        // Every pair is tried (no early exit) and swift-crypto compares in constant time.
        for pair in pairs where HMAC<SHA256>.isValidAuthenticationCode(
            given, authenticating: pair.salt + message, using: SymmetricKey(data: pair.key)) {
            valid = true
        }
        return valid
    }

    /// The 32 bytes of a base64url signature; `nil` when malformed or of another length
    /// (imgproxy's truncated signatures are not supported: they weaken the check).
    static func digest(fromBase64URL text: String) -> [UInt8]? {
        guard text.count == 43 else { return nil }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        guard let data = Data(base64Encoded: base64), data.count == 32 else { return nil }
        return Array(data)
    }
}
