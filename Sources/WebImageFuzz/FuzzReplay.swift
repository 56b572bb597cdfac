#if !WEBIMAGE_LIBFUZZER
import Foundation

/// Without libFuzzer (a plain `swift build`), the target replays inputs instead:
/// `WebImageFuzz TARGET FILE...` runs each file through TARGET once (`all` runs every
/// target). The tests replay the saved crashing inputs this way.
@main
struct FuzzReplay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first,
              let targets = name == "all" ? FuzzTarget.allCases : FuzzTarget(rawValue: name).map({ [$0] })
        else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: WebImageFuzz all|\(names) FILE...\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(1)
            }
            for target in targets { target.run(data) }
        }
    }
}
#endif
