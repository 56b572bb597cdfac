import Foundation
import Hummingbird

/// One structured line per image request, at debug level: status, path and milliseconds.
/// Debug because a busy proxy answers thousands a second; below debug the clock is not
/// even read.
struct ImageRequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.logger.logLevel <= .debug else { return try await next(request, context) }
        let start = ContinuousClock.now
        let response = try await next(request, context)
        context.logger.debug("image request", metadata: [
            "status": "\(response.status.code)", "path": "\(request.uri.path.prefix(300))",
            "ms": "\(String(format: "%.1f", (ContinuousClock.now - start) / .milliseconds(1)))",
        ])
        return response
    }
}
