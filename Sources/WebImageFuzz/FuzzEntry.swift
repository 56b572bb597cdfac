import Foundation

/// The libFuzzer entry point. `make fuzz` builds this target with
/// `-sanitize=fuzzer,address` and picks the target by `WEBIMAGE_FUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    FuzzEntry.target.run(data)
    return 0
}

enum FuzzEntry {
    /// The target named by `WEBIMAGE_FUZZ_TARGET` (default `sniff`).
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["WEBIMAGE_FUZZ_TARGET"] ?? "sniff"
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("unknown WEBIMAGE_FUZZ_TARGET \(name); one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()
}
