import NIOCore

/// A task executor that runs every job on one NIO event loop, so that a connection's
/// task and the nonisolated async code it calls stay on the thread that reads and writes
/// its socket (SE-0417 task executor preference).
///
/// A cached answer then needs no thread switch at all: the request is read, looked up and
/// written on the loop. Work that should not run there already leaves it on its own:
/// decoding and encoding on `DecodeQueue`, disk reads on the blocking-I/O pool, sources on
/// AsyncHTTPClient's loops; nothing in the request path blocks (the project's rule).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
