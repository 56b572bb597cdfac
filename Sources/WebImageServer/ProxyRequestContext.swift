import Hummingbird
import NIOCore

/// The request context of ``ProxyResponder``: Hummingbird's basic context plus the
/// connection the request came on, so an image request can stop when its client goes
/// away (Hummingbird 2 goes on running a handler after its connection closed).
struct ProxyRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
