import Foundation

/// What a person would check on an image page, done in the browser: every `<img>` loaded,
/// at the pixel size it should have, showing more than one colour.
///
/// ``script`` runs in the page (as a WebDriver asynchronous script): it makes lazy images
/// eager, waits until every image has loaded or failed, then decodes each loaded one again
/// at its pixel size, draws it on a canvas of that size and counts its distinct colours and
/// visible pixels.
/// ``problems(_:expected:)`` turns that report into failures, one line each.
enum GalleryCheck {
    /// One `<img>` as the page saw it.
    struct Report: Decodable, Sendable {
        /// `currentSrc`: the candidate the browser picked from `srcset` for its pixel ratio.
        var src: String
        /// Loaded, with a size.
        var complete: Bool
        /// The size in pixels of what the server sent (not divided by the srcset density,
        /// as the `<img>`'s own `naturalWidth` is).
        var naturalWidth: Int
        var naturalHeight: Int
        /// Distinct RGBA values (counting stops at 64).
        var colors: Int
        /// Pixels with alpha > 0.
        var visible: Int
        /// Why the pixels could not be read back (a tainted canvas), if so.
        var error: String?
    }

    static let script = """
        const done = arguments[arguments.length - 1];
        (async () => {
          const images = Array.from(document.images);
          for (const image of images) { if (image.loading === "lazy") image.loading = "eager"; }
          await Promise.all(images.map(image => image.complete ? null : new Promise(resolve => {
            image.addEventListener("load", resolve, { once: true });
            image.addEventListener("error", resolve, { once: true });
          })));
          const reports = [];
          for (const image of images) {
            const report = { src: image.currentSrc || image.src, complete: image.complete && image.naturalWidth > 0,
                             naturalWidth: 0, naturalHeight: 0, colors: 0, visible: 0 };
            reports.push(report);
            if (!report.complete) continue;
            // The <img> reports its size divided by the srcset density it picked; a copy
            // without srcset has the pixel size the server sent.
            const copy = new Image();
            copy.src = report.src;
            try {
              await copy.decode();
              report.naturalWidth = copy.naturalWidth;
              report.naturalHeight = copy.naturalHeight;
              const canvas = document.createElement("canvas");
              canvas.width = copy.naturalWidth;
              canvas.height = copy.naturalHeight;
              const context = canvas.getContext("2d");
              context.drawImage(copy, 0, 0);
              const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
              const seen = new Set();
              for (let i = 0; i < pixels.length; i += 4) {
                if (pixels[i + 3] > 0) report.visible += 1;
                if (seen.size < 64) seen.add(((pixels[i] << 24) | (pixels[i + 1] << 16) | (pixels[i + 2] << 8) | pixels[i + 3]) >>> 0);
              }
              report.colors = seen.size;
            } catch (error) {
              report.error = String(error);
            }
          }
          done(JSON.stringify(reports));
        })().catch(error => done(JSON.stringify([{ src: "script", complete: false, naturalWidth: 0,
                                                   naturalHeight: 0, colors: 0, visible: 0, error: String(error) }])));
        """

    /// Runs ``script`` in the session's current page.
    static func run(in session: BrowserSession) async throws -> [Report] {
        guard let text = try await session.executeAsync(script) as? String else {
            throw DeployTestError("the check script returned no text")
        }
        return try JSONDecoder().decode([Report].self, from: Data(text.utf8))
    }

    /// One line per image that failed to load, has another size than `expected(src)` (±1
    /// pixel per side, for rounding; `nil` expects none in particular), or is blank.
    static func problems(_ reports: [Report], expected: (String) -> (width: Int, height: Int)?) -> [String] {
        var problems: [String] = []
        for report in reports {
            let name = report.src
            guard report.complete, report.naturalWidth > 0, report.naturalHeight > 0 else {
                problems.append("\(name): not loaded")
                continue
            }
            if let error = report.error {
                problems.append("\(name): pixels unreadable: \(error)")
                continue
            }
            if let size = expected(report.src),
               abs(size.width - report.naturalWidth) > 1 || abs(size.height - report.naturalHeight) > 1 {
                problems.append("\(name): \(report.naturalWidth)×\(report.naturalHeight), expected \(size.width)×\(size.height)")
            }
            if report.colors < 2 || report.visible == 0 {
                problems.append("\(name): blank (\(report.colors) colour(s), \(report.visible) visible pixels)")
            }
        }
        return problems
    }
}
