import NIOCore
import NIOHTTPTypes

/// Notices a client that went away while its request is being answered.
///
/// Hummingbird 2 serves HTTP/1 with remote half-closure allowed and reads the next
/// request only after the current one is answered, so neither the closing of the
/// connection nor the handler's task says that the client is gone. This handler sits in
/// the pipeline and completes ``closed`` on the first sign of it: the input closing
/// (the client's FIN, as `ChannelEvent.inputClosed`) or the channel going inactive. Like
/// nginx (499), the proxy takes a client that stopped sending as a client that left.
/// ``ProxyHTTP1Channel`` then cancels the connection's task. Lives on the channel's event
/// loop, as every handler does.
final class ClientClosureHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private var promise: EventLoopPromise<Void>?

    init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        promise = context.eventLoop.makePromise(of: Void.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.succeed()
    }

    /// Completes when the client went away; call on the event loop.
    var closed: EventLoopFuture<Void>? { promise?.futureResult }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { promise?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed()
        context.fireChannelInactive()
    }

    /// When the client on `channel` goes away: the handler's future, else the channel's close.
    static func clientGone(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: ClientClosureHandler.self)
            .flatMap { handler in handler.closed ?? channel.closeFuture }
            .flatMapError { _ in channel.closeFuture }
    }
}
