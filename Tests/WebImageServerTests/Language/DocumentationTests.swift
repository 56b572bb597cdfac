import Foundation
import Testing
@testable import WebImageServer

/// The documentation (README.md and the DocC article `ImageProxy.md`) and openapi.yaml
/// describe the whole language and the environment: every option of imgproxy's
/// processing.mdx (listed here from that document) is named in both, and every variable
/// `serve` reads (taken from its source) in the documentation.
@Suite("The language is documented", .timeLimit(.minutes(1)))
struct DocumentationTests {
    static let options = [
        "resize", "rs", "size", "s", "resizing_type", "rt", "width", "w", "height", "h", "min-width", "mw", "min-height", "mh",
        "zoom", "z", "dpr", "enlarge", "el", "extend", "ex", "extend_aspect_ratio", "extend_ar", "exar", "gravity", "g",
        "crop", "c", "trim", "t", "padding", "pd", "auto_rotate", "ar", "rotate", "rot", "flip", "fl", "background", "bg",
        "blur", "bl", "sharpen", "sh", "pixelate", "pix", "watermark", "wm", "quality", "q", "format_quality", "fq",
        "max_bytes", "mb", "format", "f", "ext", "strip_metadata", "sm", "keep_copyright", "kcr", "strip_color_profile", "scp",
        "skip_processing", "skp", "raw", "cachebuster", "cb", "expires", "exp", "filename", "fn", "return_attachment", "att",
        "preset", "pr", "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
        "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd", "preserve_hdr", "ph", "enforce_thumbnail", "eth",
    ]

    @Test("every option, long and short, is in the documentation and openapi.yaml")
    func options() {
        let documentation = ErrorTableTests.documentation, openapi = ErrorTableTests.openapi
        #expect(Self.options.filter { !documentation.contains("`\($0)`") } == [])
        #expect(Self.options.filter { !openapi.contains("`\($0)`") && !openapi.contains("`\($0)/") && !openapi.contains("/\($0)`") } == [])
    }

    @Test("every IMGPROXY_ variable serve reads is in the documentation")
    func environment() throws {
        let source = try ["ProxyConfig+Environment.swift", "Telemetry/TelemetrySettings.swift"].map {
            try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Sources/WebImageServer/" + $0), encoding: .utf8)
        }.joined()
        let names = Set(source.matches(of: /"(IMGPROXY_[A-Z0-9_]+)"/).map { String($0.output.1) })
        #expect(names.count > 40)
        let documentation = ErrorTableTests.documentation
        let missing = names.filter { name in
            // Grouped rows write the shared stem once: IMGPROXY_WATERMARK_DATA, `_PATH`…
            !documentation.contains(name) && !documentation.contains("`_" + name.split(separator: "_").dropFirst(2).joined(separator: "_") + "`")
                && !documentation.contains("/_" + name.split(separator: "_").dropFirst(2).joined(separator: "_"))
        }
        #expect(missing.sorted() == [])
    }
}
