import Foundation
import WebImage

/// `webimage-bench`: our side of `Benchmarks/compare`. Runs one mode on the given
/// inputs and prints one JSON line (see ``BenchReport``). Exit 0 when measured,
/// 1 when the work failed or cannot be measured in this build, 2 for bad usage.
@main
struct WebImageBench {
    static func main() {
        let arguments: BenchArguments
        do {
            arguments = try BenchArguments(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data((error.message + "\n").utf8))
            exit(2)
        }
        guard let mode = BenchMode(rawValue: arguments.mode) else {
            FileHandle.standardError.write(Data("unknown mode \(arguments.mode)\n\(BenchArguments.usage)\n".utf8))
            exit(2)
        }
        let report = run(mode, arguments)
        report.printJSON()
        exit(report.ok ? 0 : 1)
    }

    static func run(_ mode: BenchMode, _ a: BenchArguments) -> BenchReport {
        do {
            switch mode {
            case .dictionaryGet, .dictionarySet:
                return ReferenceWork.dictionary(set: mode == .dictionarySet, ops: a.ops, threads: a.threads,
                                                iterations: a.iterations, warmup: a.warmup)
            case .rawRead:
                guard let path = a.inputs.first else { throw UsageError("raw-read needs a file") }
                return try ReferenceWork.rawRead(path: path, ops: a.ops, threads: a.threads, iterations: a.iterations,
                                                 warmup: a.warmup)
            case .memoryCacheGet, .memoryCacheSet:
                return CacheWork.memory(set: mode == .memoryCacheSet, ops: a.ops, threads: a.threads,
                                        iterations: a.iterations, warmup: a.warmup)
            case .diskCacheGet:
                guard let path = a.inputs.first else { throw UsageError("disk-cache-get needs a file") }
                return try CacheWork.diskGet(path: path, ops: a.ops, readers: a.threads, iterations: a.iterations,
                                             warmup: a.warmup)
            case .managerMemoryHit:
                return try ManagerWork.memoryHit(ops: a.ops, iterations: a.iterations, warmup: a.warmup)
            case .download, .downloadData, .downloadKeep, .downloadKeepWrite:
                return try NetworkWork.download(mode, paths: a.inputs, concurrency: a.concurrency,
                                                iterations: a.iterations, warmup: a.warmup)
            case .bareClientData:
                return try BareClientWork.transfer(paths: a.inputs, concurrency: a.concurrency,
                                                   iterations: a.iterations, warmup: a.warmup)
            case .managerDownload, .managerDownloadMemory:
                return try ManagerWork.download(paths: a.inputs, concurrency: a.concurrency,
                                                memoryOnly: mode == .managerDownloadMemory,
                                                iterations: a.iterations, warmup: a.warmup)
            case .coalesce:
                guard let url = a.inputs.first else { throw UsageError("coalesce needs a URL") }
                return try NetworkWork.coalesce(url: url, count: a.count)
            case .animationPlay:
                return try AnimationWork.play(paths: a.inputs, iterations: a.iterations, warmup: a.warmup)
            case .animationFrames:
                return try AnimationWork.frames(paths: a.inputs, iterations: a.iterations, warmup: a.warmup)
            case .animationPNG:
                return try AnimationWork.framesAsPNG(paths: a.inputs, iterations: a.iterations, warmup: a.warmup)
            case .animationFirstFrame, .stillFirstFrame:
                return try AnimationWork.firstFrame(paths: a.inputs, still: mode == .stillFirstFrame,
                                                    iterations: a.iterations, warmup: a.warmup)
            default:
                let work = try DecodeWork(mode: mode, paths: a.inputs, size: a.size)
                return try work.run(iterations: a.iterations, warmup: a.warmup)
            }
        } catch let error as WebImageError {
            var report = BenchReport(mode: mode.rawValue, ok: false, notMeasured: "\(error.code.name): \(error.message)")
            report.error = .init(code: error.code.rawValue, name: error.code.name, message: error.message)
            return report
        } catch let error as UsageError {
            return BenchReport(mode: mode.rawValue, ok: false, notMeasured: error.message)
        } catch {
            return BenchReport(mode: mode.rawValue, ok: false, notMeasured: "\(error)")
        }
    }
}
