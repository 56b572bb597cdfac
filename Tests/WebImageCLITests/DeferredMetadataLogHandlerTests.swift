import Logging
import Testing
@testable import webimage

/// The handler in front of the stderr stream: metadata is handed over when a line is
/// written, never when it is set.
@Suite("DeferredMetadataLogHandler")
struct DeferredMetadataLogHandlerTests {
    /// Counts metadata writes and records each line with the metadata it was written with.
    struct Recorder: LogHandler {
        let writes: Locked<Int>
        let lines: Locked<[Line]>
        var metadata: Logger.Metadata = [:] {
            didSet { writes.withLock { $0 += 1 } }
        }
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.withLock { $0.append(Line(message: event.message.description, metadata: metadata)) }
        }
    }

    struct Line: Sendable {
        var message: String
        var metadata: Logger.Metadata
    }

    @Test("a key set per request costs the base nothing until a line is written, which carries it")
    func deferred() {
        let writes = Locked(0), lines = Locked<[Line]>([])
        var logger = Logger(label: "test") { _ in
            DeferredMetadataLogHandler(base: Recorder(writes: writes, lines: lines))
        }
        for id in 0..<100 { logger[metadataKey: "hb.request.id"] = "\(id)" }
        #expect(writes.withLock { $0 } == 0)
        logger.debug("below the level")
        #expect(lines.withLock { $0.isEmpty })
        logger.info("written")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written.first?.message == "written")
        #expect(written.first?.metadata["hb.request.id"] == "99")
        #expect(logger[metadataKey: "hb.request.id"] == "99")
        #expect(logger.logLevel == .info)
    }
}
