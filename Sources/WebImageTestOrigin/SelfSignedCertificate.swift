import Crypto
import Foundation
import NIOSSL
import X509

/// A throwaway TLS identity for ``TestOrigin``: a new P-256 key and a self-signed
/// certificate for 127.0.0.1, made at test time so no key is ever committed.
public enum SelfSignedCertificate {
    /// A server context presenting a fresh self-signed certificate, valid for an hour;
    /// it offers `applicationProtocols` by ALPN (none by default).
    public static func serverContext(applicationProtocols: [String] = []) throws -> NIOSSLContext {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("127.0.0.1")
            OrganizationName("WebImage tests")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(key))
        let pem = try certificate.serializeAsPEM().pemString
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)))
        configuration.applicationProtocols = applicationProtocols
        return try NIOSSLContext(configuration: configuration)
    }
}
