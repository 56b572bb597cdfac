import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel, with the connection's work cancelled when its client
/// goes away.
///
/// Hummingbird 2 answers a connection's requests one after another on one task per
/// connection, and goes on running a handler after its client left. This wraps that task
/// in a task group: the connection's task waits for ``ClientClosureHandler`` to see the
/// client go (or the connection end), then cancels the child that serves the requests.
/// A render nobody waits for then stops, its transform slot and memory are freed, and no
/// request pays for a task of its own to watch the socket: one child task per connection,
/// none per request.
struct ProxyHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withDiscardingTaskGroup { group in
            // Requests run on the connection's event loop (see EventLoopTaskExecutor).
            group.addTask(executorPreference: EventLoopTaskExecutor(value.channel.eventLoop)) {
                await base.handle(value: value, logger: logger)
            }
            // Completes when the client went away or the connection ended, whichever is
            // first; it cannot fail (see clientGone(on:)).
            try? await ClientClosureHandler.clientGone(on: value.channel).get()
            group.cancelAll()
        }
    }
}
