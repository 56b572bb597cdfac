import Foundation
import Testing
import WebImageCodecs

/// Issue #50 item 2: `--downscale_interpolation` is the filter of the resize after any
/// shrink-on-load, for every source format. Each mode's output is compared with OpenCV's
/// `cv2.resize` with the same interpolation on OpenCV's own full decode, as img2dataset's
/// resizer calls it (`cv2.imdecode(…, IMREAD_UNCHANGED)`, then `cv2.resize(img, (w, h),
/// interpolation=…)`), computed in the test by `opencv-python-headless` (make test-venv).
@Suite("webimage img2dataset: each downscale interpolation against OpenCV's", .serialized, .timeLimit(.minutes(3)))
struct DatasetInterpolationTests {
    static let python = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin/python")

    /// Makes the three sources from one photo (JPEG as it is, opaque PNG and WebP of its
    /// pixels) and, given our outputs, prints each one's PSNR against every OpenCV mode and
    /// against a full-decode Lanczos reference (Pillow's LANCZOS).
    static let script = """
        import json, sys, math
        import numpy as np, cv2
        from PIL import Image
        cmd = sys.argv[1]
        if cmd == "make":
            src, folder = sys.argv[2], sys.argv[3]
            im = Image.open(src).convert("RGB")
            im.save(folder + "/photo.png")
            im.save(folder + "/photo.webp", quality=92)
            sys.exit(0)
        def psnr(a, b):
            mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
            return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)
        modes = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA,
                 "lanczos4": cv2.INTER_LANCZOS4}
        result = {}
        for pair in sys.argv[2:]:
            name, source, ours = pair.split("=")
            out = cv2.imread(ours, cv2.IMREAD_COLOR)
            h, w = out.shape[:2]
            full = cv2.imdecode(np.fromfile(source, dtype=np.uint8), cv2.IMREAD_UNCHANGED)[:, :, :3]
            scores = {m: psnr(out, cv2.resize(full, (w, h), interpolation=flag)) for m, flag in modes.items()}
            ref = np.asarray(Image.open(source).convert("RGB").resize((w, h), Image.LANCZOS))[:, :, ::-1]
            scores["reference"] = psnr(out, ref)
            result[name] = scores
        print(json.dumps(result))
        """

    @Test("nearest, linear and area each match OpenCV's own best; lanczos and no flag are the Lanczos3 path")
    func eachModeAgainstOpenCV() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        let work = try TemporaryDirectory()
        let scriptPath = try DatasetFixture.write(Self.script, "cv.py", in: work)
        let jpeg = work.url.appendingPathComponent("photo.jpg")
        try Corpus.data("jpeg/wuffs/harvesters.jpeg").write(to: jpeg)
        _ = try await Self.runPython([scriptPath, "make", jpeg.path, work.url.path])
        let sources = ["jpg", "webp", "png"].map { work.url.appendingPathComponent("photo.\($0)") }
        let list = try DatasetFixture.write(sources.map(\.absoluteString).joined(separator: "\n") + "\n", "urls.txt", in: work)

        // mode → the flag (nil: none given).
        let modes: [(String, String?)] = [("default", nil), ("nearest", "nearest"), ("linear", "linear"),
                                          ("area", "area"), ("lanczos", "lanczos")]
        var pairs: [String] = []
        var outputs: [String: Data] = [:]
        for (mode, flag) in modes {
            let out = work.url.appendingPathComponent("out-\(mode)")
            var arguments = ["img2dataset", "--url_list=\(list)", "--output_folder=\(out.path)", "--resize_mode=keep_ratio",
                             "--image_size=200", "--encode_format=png"]
            if let flag { arguments.append("--downscale_interpolation=\(flag)") }
            let run = try await WebImageTool.run(arguments)
            #expect(run.status == 0, "\(mode): \(run.err)")
            for (i, source) in sources.enumerated() {
                let file = out.appendingPathComponent("00000/00000000\(i).png")
                outputs["\(mode)/\(source.pathExtension)"] = try Data(contentsOf: file)
                pairs.append("\(mode)/\(source.pathExtension)=\(source.path)=\(file.path)")
            }
        }
        let text = try await Self.runPython([scriptPath, "score"] + pairs)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: Double]]
        let scores = try #require(parsed, "\(text)")

        for format in ["jpg", "webp", "png"] {
            func score(_ mode: String) throws -> [String: Double] { try #require(scores["\(mode)/\(format)"], "\(mode)/\(format)") }
            // Each sampling or averaging mode is closest to OpenCV's same mode, and close to it.
            for (mode, cv, floor) in [("nearest", "nearest", 40.0), ("linear", "linear", 40.0), ("area", "area", 40.0)] {
                let s = try score(mode)
                let best = s.filter { $0.key != "reference" }.max { $0.value < $1.value }?.key
                #expect(best == cv, "\(mode)/\(format): \(s)")
                #expect((s[cv] ?? 0) >= floor, "\(mode)/\(format): \(s)")
            }
            // The modes give different pictures (they were byte-identical before).
            let pictures = Set(["nearest", "linear", "area", "lanczos"].compactMap { outputs["\($0)/\(format)"] })
            #expect(pictures.count == 4, "\(format)")
            // lanczos is the default path; both stay closer to the full-decode Lanczos
            // reference than OpenCV's area is to it.
            #expect(outputs["lanczos/\(format)"] == outputs["default/\(format)"], "\(format)")
            let reference = try score("default")["reference"] ?? 0
            let areaReference = try score("area")["reference"] ?? 0
            #expect(reference >= 35 && reference >= areaReference, "\(format): \(reference) vs area \(areaReference)")
        }
    }

    static func runPython(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = await withCheckedContinuation { (c: CheckedContinuation<Data, Never>) in
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                c.resume(returning: data)
            }
        }
        let text = String(decoding: data, as: UTF8.self)
        try #require(process.terminationStatus == 0, "\(text)")
        return text
    }
}
