import Foundation
import WebImage

/// `webimage fetch --file LIST` with img2dataset's flags: rows in, shards out.
///
/// Rows are numbered into shards of N (`--number-sample-per-shard`; every input file
/// starts a new shard, as in img2dataset). With `--shard I/N` the job takes the shards
/// whose number mod N is I, so N jobs write disjoint shards into one folder; with
/// `--resume` it skips shards that have their `_stats.json`.
///
/// **Flow.** Samples start in row order; each is downloaded (``SampleFetcher``: host
/// gate, retries, checks), then made (``SampleProcessor``, on ``DecodeQueue``), then handed
/// to ``ShardOutput`` in row order, so every shard lists its samples by key and equal
/// inputs give equal shards on any number of machines.
///
/// **Bounds.** At most ``Settings/inFlight`` samples download or decode at once; a sample
/// starts only within ``Settings/window`` rows of the oldest one not yet written (what
/// waits is encoded output, no pixels), and while the encoded bytes waiting for the writer
/// stay under ``Settings/byteBudget``. The list is read as the job goes.
///
/// **Threads.** The loop runs on the calling task and only awaits; downloads on the
/// downloader's event loops, images on ``DecodeQueue``, files on ``ShardOutput``'s queue.
struct DatasetJob: Sendable {
    struct Settings: Sendable {
        var naming: ShardNaming
        var encodeFormat: EncodeFormat
        var shardSelection: (index: Int, count: Int)?
        var inFlight = 64
        var window = 2048
        var byteBudget = 128 << 20
    }

    /// What the job did, for its summary line.
    struct Summary: Sendable {
        var samples = 0
        var successes = 0
        var failedToDownload = 0
        var failedToResize = 0
        var shardsWritten = 0
        var shardsSkipped = 0
    }

    let settings: Settings
    let reader: DatasetRowReader
    let fetcher: SampleFetcher
    let processor: SampleProcessor
    let output: ShardOutput
    /// Shards to leave alone (`--resume`: those with a stats file).
    let doneShards: Set<Int>

    func run() async throws(DatasetInputError) -> Summary {
        var summary = Summary()
        var stats: [Int: ShardStats] = [:]
        var unwritten: [Int: Int] = [:]
        var closed: Set<Int> = []
        var held: [Int: DatasetSample] = [:]
        var heldBytes = 0
        var nextWrite = 0
        var nextSequence = 0
        var readError: DatasetInputError?

        func finishIfDone(_ shard: Int) {
            guard closed.contains(shard), unwritten[shard] == 0, let shardStats = stats.removeValue(forKey: shard) else { return }
            unwritten[shard] = nil
            closed.remove(shard)
            summary.shardsWritten += 1
            output.finish(shard: shard) {
                var finished = shardStats
                finished.endTime = Date().timeIntervalSince1970
                return finished
            }
        }

        func finished(_ sample: DatasetSample) {
            held[sample.sequence] = sample
            heldBytes += sample.byteCount
            while let next = held.removeValue(forKey: nextWrite) {
                nextWrite += 1
                heldBytes -= next.byteCount
                stats[next.shard]?.record(next.failure)
                summary.samples += 1
                switch next.failure {
                case nil: summary.successes += 1
                case .download?: summary.failedToDownload += 1
                case .resize?: summary.failedToResize += 1
                }
                output.add(shard: next.shard, key: next.key, members: next.members(format: settings.encodeFormat),
                           record: next.record)
                unwritten[next.shard, default: 0] -= 1
                finishIfDone(next.shard)
            }
        }

        await withTaskGroup(of: DatasetSample.self) { group in
            var running = 0
            var shard = 0
            var index = 0
            var isSelected = isWanted(0, &summary)

            func close() {
                if isSelected {
                    closed.insert(shard)
                    finishIfDone(shard)
                }
                shard += 1
                index = 0
                isSelected = isWanted(shard, &summary)
            }

            reading: while true {
                let item: DatasetRowReader.Item?
                do throws(DatasetInputError) {
                    item = try await reader.next()
                } catch {
                    readError = error
                    break reading
                }
                guard let item else { break }
                guard case .row(let row) = item else {
                    if index > 0 { close() }
                    continue
                }
                if isSelected {
                    if index == 0 {
                        var fresh = ShardStats()
                        fresh.startTime = Date().timeIntervalSince1970
                        stats[shard] = fresh
                        unwritten[shard] = 0
                    }
                    while running >= settings.inFlight || nextSequence - nextWrite >= settings.window
                            || heldBytes + output.pendingBytes > settings.byteBudget {
                        if running > 0, let sample = await group.next() {
                            running -= 1
                            finished(sample)
                        } else {
                            await output.drain()
                            if heldBytes + output.pendingBytes > settings.byteBudget { break }
                        }
                    }
                    let sample = DatasetSample(sequence: nextSequence, shard: shard,
                                               key: settings.naming.key(shard: shard, index: index), row: row,
                                               result: .failure(.download("")))
                    group.addTask { await make(sample) }
                    running += 1
                    nextSequence += 1
                    unwritten[shard, default: 0] += 1
                }
                index += 1
                if index == settings.naming.samplesPerShard { close() }
            }
            if index > 0 && readError == nil { close() }
            for await sample in group { finished(sample) }
        }
        await output.drain()
        await output.abandonUnfinished()
        if let readError { throw readError }
        return summary
    }

    /// Whether the job writes `shard` (its `--shard` slice, not done before); counts a skip.
    private func isWanted(_ shard: Int, _ summary: inout Summary) -> Bool {
        if let selection = settings.shardSelection, shard % selection.count != selection.index { return false }
        if doneShards.contains(shard) {
            summary.shardsSkipped += 1
            return false
        }
        return true
    }

    /// Downloads and makes one sample.
    private func make(_ sample: DatasetSample) async -> DatasetSample {
        var sample = sample
        let urlText: String? = switch sample.row.url {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): JSONValue.pythonFloat(d)
        default: nil
        }
        switch await fetcher.fetch(urlText) {
        case .failure(let failure):
            sample.result = .failure(failure)
        case .success(let body):
            let processor = processor
            do {
                sample.result = try await DecodeQueue.shared.run { processor.process(body.data) }
            } catch {
                sample.result = .failure(.resize("\(error)"))
            }
        }
        return sample
    }
}
