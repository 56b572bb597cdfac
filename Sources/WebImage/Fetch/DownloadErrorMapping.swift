import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns AsyncHTTPClient and SwiftNIO errors into ``WebImageCodecs/WebImageError`` codes.
enum DownloadErrorMapping {
    /// Where the transfer was when the error happened: the same lost connection is
    /// `connectionLost` before a response and `invalidDownloadResponse` mid-body.
    enum Phase {
        case connecting
        case body
    }

    static func map(_ error: any Error, url: URL, phase: Phase) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if error is CancellationError { return .cancelled() }
        let cause = SendableErrorBox(error)
        func make(_ code: WebImageError.Code, _ message: String) -> WebImageError {
            WebImageError(code, message, underlying: cause)
        }
        let lost: WebImageError.Code = phase == .body ? .invalidDownloadResponse : .connectionLost
        let lostMessage = phase == .body
            ? "The connection to \(url.host ?? "the server") closed before the whole body arrived"
            : "The connection to \(url.host ?? "the server") closed before a response arrived"

        if let e = error as? HTTPClientError {
            switch e {
            case .cancelled: return .cancelled()
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return make(.timedOut, "Connecting to \(url.host ?? "the server") timed out")
            case .readTimeout, .writeTimeout, .deadlineExceeded:
                return make(.timedOut, "The server at \(url.host ?? "?") stopped answering")
            case .redirectLimitReached: return make(.tooManyRedirects, "Too many redirects loading \(url.redactedForLog)")
            case .redirectCycleDetected: return make(.tooManyRedirects, "A redirect loop loading \(url.redactedForLog)")
            case .remoteConnectionClosed, .bodyLengthMismatch: return make(lost, lostMessage)
            case .invalidURL, .emptyHost, .emptyScheme: return make(.invalidURL, "Not a valid http(s) URL: \(url.redactedForLog)")
            case .alreadyShutdown: return make(.invalidDownloadOperation, "The HTTP client was shut down")
            default: break
            }
        }
        if let e = error as? NIOConnectionError {
            if e.connectionErrors.isEmpty {
                return make(.cannotFindHost, "The host \(e.host) was not found")
            }
            if let single = e.connectionErrors.first?.error { return map(single, url: url, phase: phase) }
            return make(.cannotConnect, "Could not connect to \(e.host):\(e.port)")
        }
        if error is SocketAddressError { return make(.cannotFindHost, "The host \(url.host ?? "?") was not found") }
        if let e = error as? ChannelError {
            switch e {
            case .connectTimeout: return make(.timedOut, "Connecting to \(url.host ?? "the server") timed out")
            case .eof, .ioOnClosedChannel, .alreadyClosed, .inputClosed, .outputClosed: return make(lost, lostMessage)
            default: break
            }
        }
        if let e = error as? IOError {
            switch e.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
                // strerror's words alone: NIO's own description ("connection reset (error set): …
                // (errno: 111)") reads as a reset and nests its parentheses.
                let port = url.port.map { ":\($0)" } ?? ""
                return make(.cannotConnect, "Could not connect to \(url.host ?? "the server")\(port): \(String(cString: strerror(e.errnoCode)))")
            case ETIMEDOUT: return make(.timedOut, "Connecting to \(url.host ?? "the server") timed out")
            case ECONNRESET, EPIPE: return make(lost, lostMessage)
            default: break
            }
        }
        if isTLSError(error) {
            // Certificate not trusted, wrong host name, no common protocol: the same
            // "could not reach a trustworthy server" as a refused connection.
            return make(.cannotConnect, "The TLS handshake with \(url.host ?? "the server") failed: \(error)")
        }
        if error is HTTPParserError {
            return make(.invalidDownloadResponse, "The server sent a malformed response: \(error)")
        }
        return phase == .body
            ? make(.invalidDownloadResponse, "The body of \(url.redactedForLog) could not be read: \(error)")
            : make(.cannotConnect, "Could not load \(url.redactedForLog): \(error)")
    }

    /// Whether `error` comes from SwiftNIO SSL (a failed handshake or certificate check).
    private static func isTLSError(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }
}

/// Carries a non-`Sendable` error as the underlying cause, by its description only.
struct SendableErrorBox: Error, Sendable, CustomStringConvertible {
    let description: String
    let typeName: String

    init(_ error: any Error) {
        description = String(describing: error)
        typeName = String(describing: type(of: error))
    }
}
