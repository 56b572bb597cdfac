import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// The HTTP/2 mode of ``TestOrigin``: over TLS, ALPN offers `h2` and `http/1.1`; an `h2`
/// connection is served by NIOHTTP2, each stream turned into HTTP/1 parts so the same
/// route handling answers it; an `http/1.1` connection is served as usual.
extension TestOrigin {
    private typealias Parts = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    private typealias Negotiated = NIONegotiatedHTTPVersion<
        Parts, (any Channel, NIOHTTP2Handler.AsyncStreamMultiplexer<Parts>)
    >

    /// Starts a server as ``start(tls:host:port:)`` does; with `http2` it also offers
    /// HTTP/2 by ALPN, which needs `tls` (HTTP/2 over cleartext is not offered).
    /// ``httpVersions(_:)``, ``http2ConnectionCount`` and ``http2StreamCount`` tell
    /// which protocol served the requests.
    public static func start(tls: Bool = true, http2: Bool, host: String = "127.0.0.1", port: Int = 0) async throws -> TestOrigin {
        guard http2 else { return try await start(tls: tls, host: host, port: port) }
        guard tls, host == "::1" || host.hasPrefix("127.") else {
            throw ChannelError.operationUnsupported
        }
        let sslContext = try SelfSignedCertificate.serverContext(applicationProtocols: ["h2", "http/1.1"])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { child -> EventLoopFuture<EventLoopFuture<Negotiated>> in
                do {
                    try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                } catch {
                    return child.eventLoop.makeFailedFuture(error)
                }
                return child.configureAsyncHTTPServerPipeline { http1 in
                    http1.eventLoop.makeCompletedFuture { try Parts(wrappingChannelSynchronously: http1) }
                } http2ConnectionInitializer: { connection in
                    connection.eventLoop.makeSucceededFuture(connection)
                } http2StreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        return try Parts(wrappingChannelSynchronously: stream)
                    }
                }
            }
        let origin = TestOrigin(
            channel: channel.channel, port: channel.channel.localAddress?.port ?? 0, host: host, isTLS: true)
        let task = Task {
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await negotiation in inbound {
                        group.addTask {
                            // A failed handshake or negotiation just drops that connection.
                            guard let negotiated = try? await negotiation.get() else { return }
                            switch negotiated {
                            case .http1_1(let connection):
                                await origin.serve(connection)
                            case .http2(let (connection, multiplexer)):
                                await origin.serveHTTP2(connection, multiplexer)
                            }
                        }
                    }
                }
            }
        }
        origin.serverTask.withLock { $0 = task }
        return origin
    }

    /// Serves every stream of one HTTP/2 connection until it closes.
    private func serveHTTP2(_ connection: any Channel, _ multiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Parts>) async {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            s.connections[id] = connection
            s.connectionsAccepted += 1
            s.http2Connections += 1
        }
        defer { state.withLock { _ = $0.connections.removeValue(forKey: id) } }
        try? await withThrowingDiscardingTaskGroup { group in
            for try await stream in multiplexer.inbound {
                group.addTask {
                    self.state.withLock { s in
                        s.http2Streams += 1
                        s.openHTTP2Streams += 1
                        s.peakHTTP2Streams = max(s.peakHTTP2Streams, s.openHTTP2Streams)
                    }
                    defer { self.state.withLock { $0.openHTTP2Streams -= 1 } }
                    await self.serve(stream, isStream: true)
                }
            }
        }
        try? await connection.close()
    }
}
