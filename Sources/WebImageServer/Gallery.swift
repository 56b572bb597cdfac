import Foundation

/// `GET /gallery`: a plain HTML page with a grid of the built-in examples through the
/// proxy, each with a `srcset` for 1× and 2×, and — on a server without a key (URLs
/// unsigned, `--unsigned` or no `IMGPROXY_KEY`) — a playground above it.
///
/// Each grid `<img>` carries `data-width`/`data-height`, the size the proxy must deliver
/// at 1×, so a browser test can compare them with `naturalWidth`/`naturalHeight`.
///
/// The playground (``Playground``) is a form over the URL language: a source (typed, or
/// an example picked), size, resizing type, gravity, crop, format, quality and effects,
/// plus free options; every change builds the URL, fetches it and shows the image, its
/// bytes and type, the URL, and the `/info` JSON of the source, or the server's JSON error.
/// A key and salt typed into it sign the URLs in the browser (WebCrypto HMAC-SHA256), so
/// the URL shown is ready for a deployment with that key; this server, having none,
/// accepts them as it accepts any. It is never served by a server with a key: a page that
/// signs URLs there would sign anyone's.
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

    /// base64url without padding, as sources are written.
    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The page; `sign` turns a path after the signature into the full proxy path, and
    /// `playground` adds the playground (servers without a key only), whose URLs start
    /// with `pathPrefix` as the server's do.
    static func html(playground: Bool = false, pathPrefix: String = "", sign: (String) -> String) -> String {
        var cells = ""
        for tile in tiles {
            let source = base64URL("\(ExampleImages.scheme)://\(tile.name)")
            let one = sign("/\(tile.options)/\(source)")
            let two = sign("/\(tile.options)/dpr:2/\(source)")
            cells += """
                <figure><img src="\(one)" srcset="\(one) 1x, \(two) 2x" data-width="\(tile.width)" \
                data-height="\(tile.height)" alt="\(tile.caption)"><figcaption>\(tile.caption)</figcaption></figure>

                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>webimage serve: \(playground ? "playground" : "gallery")</title>
            <style>
            body { font-family: sans-serif; margin: 24px; background: #f4f4f6; }
            main { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 16px; }
            figure { margin: 0; padding: 10px; background: #fff; border-radius: 6px; }
            figcaption { font-size: 13px; color: #444; margin-top: 6px; }
            \(playground ? Playground.style : "")
            </style></head>
            <body><h1>webimage serve</h1>
            \(playground ? Playground.html(initial: sign("/\(Playground.initialOptions)/\(base64URL(Playground.initialSource))")) : "")
            <main>
            \(cells)</main>\(playground ? "<script>\nconst pathPrefix = \(Playground.jsString(pathPrefix));\n\(Playground.script)</script>" : "")</body></html>
            """
    }
}
