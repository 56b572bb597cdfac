import Foundation

/// `GET /gallery`: a plain HTML page (no framework, no script) with a grid of the
/// built-in examples through the proxy, each with a `srcset` for 1× and 2×.
///
/// Each `<img>` carries `data-width`/`data-height`, the size the proxy must deliver at
/// 1×, so a browser test can compare them with `naturalWidth`/`naturalHeight`.
enum Gallery {
    /// One tile: which example, and the options in front of its source.
    struct Tile {
        var name: String
        var options: String
        var width: Int
        var height: Int
        var caption: String
    }

    static let tiles: [Tile] = [
        Tile(name: "sunset.jpg", options: "rs:fill:320:240", width: 320, height: 240, caption: "JPEG, fill 320×240"),
        Tile(name: "sunset.jpg", options: "rs:fill:240:240/g:we/bl:3", width: 240, height: 240, caption: "JPEG, fill west, blur 3"),
        Tile(name: "tiles.png", options: "rs:fill:240:240/f:png", width: 240, height: 240, caption: "PNG with alpha"),
        Tile(name: "waves.webp", options: "rs:fill:300:200", width: 300, height: 200, caption: "WebP source"),
        Tile(name: "spinner.gif", options: "rs:fill:120:120/f:gif", width: 120, height: 120, caption: "Animated GIF"),
        Tile(name: "tiles.png", options: "rs:fill-down:200:120/g:no/q:60/f:jpeg", width: 200, height: 120, caption: "JPEG q60, north"),
    ]

    /// The page; `sign` turns a path after the signature into the full proxy path.
    static func html(sign: (String) -> String) -> String {
        var cells = ""
        for tile in tiles {
            let source = Data("\(ExampleImages.scheme)://\(tile.name)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let one = sign("/\(tile.options)/\(source)")
            let two = sign("/\(tile.options)/dpr:2/\(source)")
            cells += """
                <figure><img src="\(one)" srcset="\(one) 1x, \(two) 2x" data-width="\(tile.width)" \
                data-height="\(tile.height)" alt="\(tile.caption)"><figcaption>\(tile.caption)</figcaption></figure>

                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>webimage serve: gallery</title>
            <style>
            body { font-family: sans-serif; margin: 24px; background: #f4f4f6; }
            main { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 16px; }
            figure { margin: 0; padding: 10px; background: #fff; border-radius: 6px; }
            figcaption { font-size: 13px; color: #444; margin-top: 6px; }
            </style></head>
            <body><h1>webimage serve</h1><main>
            \(cells)</main></body></html>
            """
    }
}
