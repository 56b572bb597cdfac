import Foundation
import HTTPTypes
import Hummingbird
import Prometheus

/// The routes of ``ProxyServer`` on Hummingbird's `Router`.
///
/// ```
/// GET|HEAD /health · /metrics · /gallery(/) · /examples/{name}
///          /  and  /favicon.ico                      404 (never a proxy URL)
///          /** (everything else)                      ImageProxy: {prefix}/info/… → respondInfo,
///                                                     {prefix}/… → respond, other paths 404
/// other methods                                       405, Allow: GET, HEAD
/// ```
///
/// HEAD is GET without the body (the router's `autoGenerateHeadEndpoints`). The catch-all
/// sits at the root rather than under the path prefix so that the proxy alone decides what
/// a path outside the prefix answers, as it does for a path too long to parse. Handlers run
/// on the connection's task; errors are thrown as ``HTTPProxyError`` and become responses in
/// one place.
struct ProxyRoutes: Sendable {
    let proxy: ImageProxy
    let metrics: PrometheusCollectorRegistry?
    /// Hummingbird's `MetricsMiddleware` on every route (``ProxyServer/requestMetrics``).
    let requestMetrics: Bool
    /// The gallery's HTML, made once: the page is the same for every request.
    let galleryPage: Data

    init(proxy: ImageProxy, metrics: PrometheusCollectorRegistry?, requestMetrics: Bool = false) {
        self.proxy = proxy
        self.metrics = metrics
        self.requestMetrics = requestMetrics
        let pair = proxy.config.keys.first
        let size = proxy.config.signatureSize
        let prefix = proxy.config.language.pathPrefix
        // The playground only where URLs are not signed (see Gallery). Signatures are as
        // long as the server checks them (`--signature-size`), after the path prefix.
        galleryPage = Data(Gallery.html(playground: pair == nil, pathPrefix: prefix) { path in
            guard let pair else { return prefix + "/unsafe" + path }
            return prefix + "/" + URLSigner.signature(of: path, with: pair, size: size) + path
        }.utf8)
    }

    /// The router; the middleware comes first because a route takes the middleware added
    /// before it.
    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        // The request's span first, so that it covers everything else (ProxyTracing).
        if proxy.tracing { router.add(middleware: TracingMiddleware()) }
        if requestMetrics { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: ProxyRoutingMiddleware())
        router.get("/health") { _, _ in
            Response(ProxyResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Data(#"{"status":"ok"}"#.utf8)))
        }
        router.get("/metrics") { _, _ in try metricsPage() }
        router.get("/gallery") { _, _ in
            Response(ProxyResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: galleryPage))
        }
        router.get("/examples/:name") { _, context in try example(context.parameters.get("name")) }
        router.get("/") { _, _ -> Response in throw ProxyError.notFound.http }
        router.get("/favicon.ico") { _, _ -> Response in throw ProxyError.notFound.http }
        router.group().add(middleware: ImageRequestLogMiddleware()).get("**") { request, _ in
            await image(request)
        }
        return router
    }

    private func metricsPage() throws(HTTPProxyError) -> Response {
        guard let metrics else { throw ProxyError.notFound.http }
        var text: [UInt8] = []
        metrics.emit(into: &text)
        text += Array(CodecMetrics.prometheusText.utf8)
        return Response(ProxyResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: Data(text)))
    }

    private func example(_ name: String?) throws(HTTPProxyError) -> Response {
        guard let name, let example = proxy.examples.images[name] else { throw ProxyError.notFound.http }
        return Response(ProxyResponse(
            status: 200, headers: [("Content-Type", example.format.mimeType), ("Cache-Control", "public, max-age=3600")],
            body: example.data))
    }

    /// An image or `/info` answer. When the client goes away the connection's task is
    /// cancelled (``ProxyHTTP1Channel``), and the proxy answers
    /// ``ProxyError/clientClosedRequest``, which no one reads.
    private func image(_ request: Request) async -> Response {
        let path = request.uri.path
        let headers = ImageProxy.RequestHeaders(
            accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch],
            dpr: Self.field(request, "Sec-CH-DPR") ?? Self.field(request, "DPR"),
            width: Self.field(request, "Sec-CH-Width") ?? Self.field(request, "Width"))
        let answer = proxy.isInfoPath(path)
            ? await proxy.respondInfo(path: path, headers: headers) : await proxy.respond(path: path, headers: headers)
        return Response(answer)
    }

    /// The value of header `name`, if the request has it.
    private static func field(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }
}
