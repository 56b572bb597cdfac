import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import Synchronization

/// Routes requests to the proxy and the service's own pages; see ``ProxyServer``.
struct ProxyResponder: HTTPResponder {
    typealias Context = ProxyRequestContext

    let proxy: ImageProxy
    let metrics: PrometheusCollectorRegistry?
    let galleryPage: String

    init(proxy: ImageProxy, metrics: PrometheusCollectorRegistry?) {
        self.proxy = proxy
        self.metrics = metrics
        let pair = proxy.config.keys.first
        let size = proxy.config.signatureSize
        let prefix = proxy.config.language.pathPrefix
        // The playground only where URLs are not signed (see Gallery). Signatures are as
        // long as the server checks them (`--signature-size`), after the path prefix.
        galleryPage = Gallery.html(playground: pair == nil, pathPrefix: prefix) { path in
            guard let pair else { return prefix + "/unsafe" + path }
            return prefix + "/" + URLSigner.signature(of: path, with: pair, size: size) + path
        }
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            var answer = ProxyResponse.error(.methodNotAllowed)
            answer.headers.append(("Allow", "GET, HEAD"))
            return Self.response(answer)
        }
        let path = request.uri.path
        switch path {
        case "/health":
            return Self.response(ProxyResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Data(#"{"status":"ok"}"#.utf8)))
        case "/metrics":
            guard let metrics else { return Self.response(.error(.notFound)) }
            var text: [UInt8] = []
            metrics.emit(into: &text)
            return Self.response(ProxyResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: Data(text)))
        case "/gallery", "/gallery/":
            return Self.response(ProxyResponse(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(galleryPage.utf8)))
        case "/", "/favicon.ico":
            return Self.response(.error(.notFound))
        default:
            if path.hasPrefix("/examples/") {
                guard let example = proxy.examples.images[String(path.dropFirst("/examples/".count))] else {
                    return Self.response(.error(.notFound))
                }
                return Self.response(ProxyResponse(
                    status: 200, headers: [("Content-Type", example.format.mimeType), ("Cache-Control", "public, max-age=3600")],
                    body: example.data))
            }
            let start = ContinuousClock.now
            let headers = ImageProxy.RequestHeaders(
                accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch],
                dpr: Self.field(request, "Sec-CH-DPR") ?? Self.field(request, "DPR"),
                width: Self.field(request, "Sec-CH-Width") ?? Self.field(request, "Width"))
            let isInfo = proxy.isInfoPath(path)
            let answer = await Self.untilClosed(context.channel) {
                isInfo ? await proxy.respondInfo(path: path, headers: headers) : await proxy.respond(path: path, headers: headers)
            }
            // One structured line per image request (debug: a busy proxy answers thousands a second).
            context.logger.debug("image request", metadata: [
                "status": "\(answer.status)", "path": "\(path.prefix(300))",
                "ms": "\(String(format: "%.1f", (ContinuousClock.now - start) / .milliseconds(1)))",
            ])
            return Self.response(answer)
        }
    }

    /// Runs `work` until it ends or `channel` closes (the client went away), whichever is
    /// first; then the work's task is cancelled and the answer is
    /// ``ProxyError/clientClosedRequest``, which no one will read.
    static func untilClosed(_ channel: any Channel, _ work: @escaping @Sendable () async -> ProxyResponse) async -> ProxyResponse {
        await withTaskGroup(of: ProxyResponse?.self) { group in
            group.addTask { await work() }
            group.addTask { await closed(channel) ? .error(.clientClosedRequest) : nil }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .error(.clientClosedRequest)
        }
    }

    /// The value of header `name`, if the request has it.
    private static func field(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// Waits until the client on `channel` went away (`true`, see
    /// ``ClientClosureHandler``) or the task is cancelled (`false`). A future's `get()`
    /// alone would ignore the cancellation and hold the request open as long as the
    /// keep-alive connection lives.
    private static func closed(_ channel: any Channel) async -> Bool {
        let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.withLock { $0 = continuation }
                if Task.isCancelled { waiter.withLock { $0.take() }?.resume(returning: false) }
                ClientClosureHandler.clientGone(on: channel).whenComplete { _ in
                    waiter.withLock { $0.take() }?.resume(returning: true)
                }
            }
        } onCancel: {
            waiter.withLock { $0.take() }?.resume(returning: false)
        }
    }

    /// The Hummingbird form of a ``ProxyResponse``.
    static func response(_ answer: ProxyResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
