import HTTPTypes
import Hummingbird

/// Only GET and HEAD reach a route: any other method answers 405 with `Allow: GET, HEAD`
/// (``ProxyError/methodNotAllowed``), on every path, known or not. A path no route
/// matches answers the proxy's JSON 404 (``ProxyError/notFound``) in place of
/// Hummingbird's plain one, so every error a client sees has the same shape.
struct ProxyRoutingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw ProxyError.methodNotAllowed.http }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            throw ProxyError.notFound.http
        }
    }
}
