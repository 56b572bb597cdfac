import Foundation
import WebImage

/// `fetch --file LIST` and the other bulk flags: a URL list, read as the job goes,
/// turned into files, manifest lines and `--json` lines.
///
/// **Bounds.** At most ``Settings/inFlight`` URLs load at once (each holds at most its
/// body and one decoded image, since bulk loads store nothing in the memory cache:
/// ``WebImageOptions/avoidMemoryCache``). With `--json` in input order a URL starts only
/// when it is fewer than ``reorderWindow`` URLs after the oldest unfinished one, so at
/// most that many finished records (small values, no pixels) wait for an earlier one;
/// `--unordered` prints each as it finishes. A repeated URL is loaded once and reported
/// on each of its lines (`duplicateOf`), as long as its first line is among the last
/// ``duplicateMemory`` distinct URLs.
struct BulkJob: Sendable {
    /// In input order, a URL starts only within this many URLs of the oldest unfinished one.
    static let reorderWindow = 4096
    /// Distinct URLs remembered for duplicate detection (oldest forgotten first).
    static let duplicateMemory = 65_536

    struct Settings: Sendable {
        var options: WebImageOptions
        var context: WebImageContext
        var inFlight: Int
        var json: Bool
        var unordered: Bool
        var shard: (index: Int, count: Int)?
        var isThumbnail: Bool
        /// `--log-failures`: each failure on its own stderr line, not only counted.
        var logsFailures = false
    }

    let settings: Settings
    let pipeline: CommandPipeline
    let loader: BulkLoader
    let writer: OutputWriter?
    let manifest: ManifestWriter?
    let resume: ManifestIndex?
    let progress: BulkProgress

    /// Runs the job to the end of `list`; returns whether every URL it loaded succeeded.
    func run(_ list: URLListReader) async -> Bool {
        let context = { var context = settings.context; context.imageLoader = loader; return context }()
        var firstLoads: [String: Task<BulkRecord, Never>] = [:]
        var firstOrder: [String] = []
        var firstOrderStart = 0
        var output = OrderedOutput(json: settings.json, unordered: settings.unordered)

        func handle(_ record: BulkRecord) async {
            await manifest?.append(record.jsonLine.text)
            progress.record(record, logFailure: settings.logsFailures)
            output.finished(record)
        }

        await withTaskGroup(of: BulkRecord.self) { group in
            var running = 0
            while let entry = await list.next() {
                progress.listRead(list.count, isComplete: false)
                if let shard = settings.shard, entry.index % shard.count != shard.index { continue }
                if let resume, resume.contains(entry.text.redactedURLForLog) {
                    progress.skip()
                    continue
                }
                while running >= settings.inFlight
                        || (!settings.unordered && settings.json && output.waitingCount >= Self.reorderWindow) {
                    guard let record = await group.next() else { break }
                    running -= 1
                    await handle(record)
                }
                output.started(entry.index)
                running += 1
                if let first = firstLoads[entry.text] {
                    group.addTask { await self.duplicate(of: first.value, entry) }
                    continue
                }
                let load = Task { await self.load(entry, context: context) }
                firstLoads[entry.text] = load
                firstOrder.append(entry.text)
                if firstOrder.count - firstOrderStart > Self.duplicateMemory {
                    firstLoads[firstOrder[firstOrderStart]] = nil
                    firstOrderStart += 1
                    if firstOrderStart > Self.duplicateMemory {
                        firstOrder.removeFirst(firstOrderStart)
                        firstOrderStart = 0
                    }
                }
                group.addTask { await load.value }
            }
            progress.listRead(list.count, isComplete: true)
            for await record in group { await handle(record) }
        }
        await manifest?.flush()
        return progress.failedCount == 0
    }

    /// A repeated URL's outcome: its first line's load, and a file under its own index
    /// (files are named after the line's index, repeated or not). Never throws.
    private func duplicate(of first: BulkRecord, _ entry: BulkEntry) async -> BulkRecord {
        var record = first.duplicate(index: entry.index, text: entry.text)
        guard let writer, let file = first.file else { return record }
        do {
            let written = try await writer.copy(file, index: entry.index)
            record.file = written.path
            record.fileBytes = written.bytes
        } catch {
            record.error = CommandError.webImageError(error)
            record.file = nil
        }
        return record
    }

    /// Loads one URL, writes its file, and says how it went. Never throws.
    private func load(_ entry: BulkEntry, context: WebImageContext) async -> BulkRecord {
        let start = ContinuousClock.now
        var record = BulkRecord(index: entry.index, url: entry.text)
        guard !entry.text.isEmpty, let url = URL(string: entry.text), url.scheme != nil else {
            record.error = WebImageError(.invalidURL, entry.text.isEmpty
                ? "The line is longer than \(URLListReader.maxLineBytes) bytes" : "Not a URL: \(entry.text)")
            return record
        }
        do {
            let response = try await pipeline.manager.loadImage(with: url, options: settings.options, context: context)
            record.status = response.http?.statusCode
            record.cacheType = response.cacheType
            record.format = response.image.format
            record.width = response.image.width
            record.height = response.image.height
            record.bytes = loader.takeBytes(for: url) ?? response.data?.count ?? 0
            if let writer {
                let written = try await writer.write(response, index: entry.index, isThumbnail: settings.isThumbnail)
                record.file = written.path
                record.fileBytes = written.bytes
            }
        } catch {
            _ = loader.takeBytes(for: url)
            record.error = CommandError.webImageError(error)
        }
        record.milliseconds = start.duration(to: .now).milliseconds
        return record
    }
}

/// `--json` lines in input order (held until every earlier started URL finished) or,
/// with `--unordered`, as they finish. Holds finished records only, never images.
struct OrderedOutput {
    let json: Bool
    let unordered: Bool
    private var started: [Int] = []
    private var head = 0
    private var held: [Int: BulkRecord] = [:]

    init(json: Bool, unordered: Bool) {
        self.json = json
        self.unordered = unordered
    }

    /// How many started URLs are not printed yet.
    var waitingCount: Int { started.count - head }

    mutating func started(_ index: Int) {
        if json && !unordered { started.append(index) }
    }

    mutating func finished(_ record: BulkRecord) {
        guard json else { return }
        if unordered {
            print(record.jsonLine.text)
            return
        }
        held[record.index] = record
        while head < started.count, let next = held.removeValue(forKey: started[head]) {
            print(next.jsonLine.text)
            head += 1
        }
        if head > 4096 {
            started.removeFirst(head)
            head = 0
        }
    }
}
