import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The demo's image server: HTTP/1.1 on 127.0.0.1 at a port the system picks, inside
/// this process, so the demo needs no network.
///
/// Serves the gallery's assets (some in timed pieces), answers 404 for anything else,
/// and counts requests per path, which is how the demo proves that 50 concurrent loads
/// of one URL reached the origin once. Call ``shutdown()`` when done.
final class DemoOrigin: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var bytesSent = 0
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    private let assets: [String: DemoAsset]
    private let state = Mutex(State())
    private let serverChannel: any Channel
    private let serverTask = Mutex<Task<Void, Never>?>(nil)

    /// The port the server listens on.
    let port: Int

    /// Starts serving `assets` on 127.0.0.1.
    static func start(serving assets: [DemoAsset]) async throws -> DemoOrigin {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: child)
                }
            }
        let origin = DemoOrigin(assets: assets, channel: server.channel, port: server.channel.localAddress?.port ?? 0)
        let task = Task {
            _ = try? await server.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { await origin.serve(connection) }
                    }
                }
            }
        }
        origin.serverTask.withLock { $0 = task }
        return origin
    }

    private init(assets: [DemoAsset], channel: any Channel, port: Int) {
        self.assets = Dictionary(assets.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        serverChannel = channel
        self.port = port
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: path)
    }

    /// Requests received for `path` so far.
    func requestCount(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Requests received for all paths so far.
    var totalRequests: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    /// Body bytes sent so far.
    var bytesSent: Int { state.withLock { $0.bytesSent } }

    /// Stops listening, closes connections and waits for the server task to end.
    func shutdown() async {
        try? await serverChannel.close()
        // Clients keep idle connections open; closing them ends their handlers.
        for connection in state.withLock({ Array($0.connections.values) }) { try? await connection.close() }
        let task = serverTask.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    // MARK: Serving

    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        let id = ObjectIdentifier(connection.channel)
        state.withLock { $0.connections[id] = connection.channel }
        defer { state.withLock { _ = $0.connections.removeValue(forKey: id) } }
        try? await connection.executeThenClose { inbound, outbound in
            for try await part in inbound {
                guard case .head(let head) = part else { continue }
                // The request has no body worth reading; answer on the head, then wait for the next.
                let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "/")
                state.withLock { $0.counts[path, default: 0] += 1 }
                try await respond(path: path, isHead: head.method == .HEAD, outbound)
                if !head.isKeepAlive { return }
            }
        }
    }

    private func respond(path: String, isHead: Bool,
                         _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        guard let asset = assets[path] else {
            let body = Array("no image at \(path)\n".utf8)
            var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "\(body.count)")])
            headers.add(name: "Cache-Control", value: "no-store")
            try await out.write(.head(HTTPResponseHead(version: .http1_1, status: .notFound, headers: headers)))
            if !isHead { try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await out.write(.end(nil))
            return
        }
        if asset.delay > .zero { try await Task.sleep(for: asset.delay) }
        var headers = HTTPHeaders([("Content-Type", asset.contentType)])
        // One piece goes with a Content-Length; several use the chunked encoding.
        if asset.pieces <= 1 { headers.add(name: "Content-Length", value: "\(asset.body.count)") }
        try await out.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        if !isHead {
            let size = max(1, (asset.body.count + asset.pieces - 1) / max(1, asset.pieces))
            var offset = 0
            while offset < asset.body.count {
                let end = min(asset.body.count, offset + size)
                try await out.write(.body(.byteBuffer(ByteBuffer(bytes: asset.body[offset..<end]))))
                state.withLock { $0.bytesSent += end - offset }
                offset = end
                if offset < asset.body.count && asset.pause > .zero { try await Task.sleep(for: asset.pause) }
            }
        }
        try await out.write(.end(nil))
    }
}
