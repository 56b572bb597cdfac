import Foundation

/// The libFuzzer entry point. `make fuzz` builds this target with
/// `-sanitize=fuzzer,address` and picks the target by `WEBIMAGE_FUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    FuzzEntry.target.run(data)
    return 0
}

#if WEBIMAGE_LIBFUZZER
/// libFuzzer's driver, called with the entry point (instead of libFuzzer's own `main`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links every executable with `main` renamed to `<module>_main`, so under
/// `-sanitize=fuzzer` the program starts here and hands over to libFuzzer's driver.
@_cdecl("WebImageFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzTestOneInput)
}
#endif

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
