import Foundation

/// The playground of `/gallery` (see ``Gallery``): its form, its style and its script —
/// plain HTML and about a hundred lines of our own JavaScript, no framework, nothing
/// loaded from elsewhere.
///
/// The script rebuilds the URL from the form on every change (debounced), fetches it and
/// the source's `/info` (`bh:4:3/th:1/avg:1/dc:1/pn:1/a:1:1/icc:1`), and shows what came
/// back: the image, its size in bytes and type, or the server's JSON error. Each finished
/// update raises `document.body.dataset.updates`, which the browser test waits on.
enum Playground {
    static let initialSource = "\(ExampleImages.scheme)://sunset.jpg"
    static let initialOptions = "rs:fit:480:320"
    /// The info options the playground asks for.
    static let infoOptions = "bh:4:3/th:1/avg:1/dc:1/pn:1/a:1:1/icc:1"

    /// `text` as a JavaScript string literal: JSON's own encoding, with `<` escaped so the
    /// text cannot close the script element.
    static func jsString(_ text: String) -> String {
        let json = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return json.replacingOccurrences(of: "<", with: "\\u003c")
    }

    static func html(initial: String) -> String {
        let examples = ExampleImages.names.map { "<option value=\"\(ExampleImages.scheme)://\($0)\">\($0)</option>" }.joined()
        let gravities = ["", "ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "sm"]
            .map { "<option value=\"\($0)\">\($0.isEmpty ? "default" : $0)</option>" }.joined()
        return """
            <section id="playground">
            <form id="form" onsubmit="return false">
            <label>Source <input id="source" size="48" value="\(initialSource)"></label>
            <label>Example <select id="example"><option value="">…</option>\(examples)</select></label><br>
            <label>Width <input id="width" type="number" min="0" value="480"></label>
            <label>Height <input id="height" type="number" min="0" value="320"></label>
            <label>Type <select id="type"><option>fit</option><option>fill</option><option>fill-down</option>\
            <option>force</option><option>auto</option></select></label>
            <label>Gravity <select id="gravity">\(gravities)</select></label>
            <label>Crop <input id="cropWidth" type="number" min="0" placeholder="w">×<input id="cropHeight" type="number" min="0" placeholder="h"></label><br>
            <label>Format <select id="format"><option value="">auto</option><option>jpeg</option><option>png</option>\
            <option>webp</option><option>avif</option><option>gif</option></select></label>
            <label>Quality <input id="quality" type="number" min="1" max="100"></label>
            <label>Blur <input id="blur" type="number" min="0" step="0.5"></label>
            <label>Sharpen <input id="sharpen" type="number" min="0" step="0.5"></label>
            <label>Pixelate <input id="pixelate" type="number" min="0"></label>
            <label>Rotate <select id="rotate"><option>0</option><option>90</option><option>180</option><option>270</option></select></label><br>
            <label>More options <input id="extra" size="40" placeholder="e.g. bg:ff0000/pd:10"></label>
            <label>Key <input id="key" size="20" placeholder="hex (optional)"></label>
            <label>Salt <input id="salt" size="20" placeholder="hex"></label>
            </form>
            <p>URL: <a id="url" href="\(initial)">\(initial)</a></p>
            <div class="panes"><div><img id="result" src="\(initial)" alt="result"><p id="bytes"></p>
            <pre id="error" hidden></pre></div><pre id="info">{}</pre></div>
            </section>
            """
    }

    static let style = """
        #playground { background: #fff; padding: 12px; border-radius: 6px; margin-bottom: 16px; }
        #playground label { margin-right: 10px; font-size: 14px; line-height: 2; }
        #playground input[type=number] { width: 64px; }
        .panes { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
        #result { max-width: 100%; background: repeating-conic-gradient(#ddd 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
        #info, #error { font-size: 12px; background: #f8f8fa; padding: 8px; overflow: auto; max-height: 480px; }
        #error { color: #a00; }
        """

    static let script = """
        const $ = id => document.getElementById(id);
        const base64url = text => btoa(String.fromCharCode(...new TextEncoder().encode(text)))
          .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        const hexBytes = hex => new Uint8Array((hex.match(/../g) || []).map(h => parseInt(h, 16)));
        function options() {
          const o = [], w = +$("width").value || 0, h = +$("height").value || 0;
          if (w > 0 || h > 0) o.push(`rs:${$("type").value}:${w}:${h}`);
          if ($("gravity").value) o.push(`g:${$("gravity").value}`);
          const cw = +$("cropWidth").value || 0, ch = +$("cropHeight").value || 0;
          if (cw > 0 || ch > 0) o.push(`c:${cw}:${ch}`);
          if ($("format").value) o.push(`f:${$("format").value}`);
          if ($("quality").value) o.push(`q:${$("quality").value}`);
          for (const [id, name] of [["blur", "bl"], ["sharpen", "sh"], ["pixelate", "pix"]]) {
            if (+$(id).value > 0) o.push(`${name}:${$(id).value}`);
          }
          if ($("rotate").value !== "0") o.push(`rot:${$("rotate").value}`);
          for (const part of $("extra").value.split("/")) { if (part.trim()) o.push(part.trim()); }
          return o;
        }
        async function sign(path) {
          const key = $("key").value.trim(), salt = $("salt").value.trim();
          if (!key || !window.crypto || !crypto.subtle) return "unsafe";
          const hmac = await crypto.subtle.importKey("raw", hexBytes(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
          const message = new Uint8Array([...hexBytes(salt), ...new TextEncoder().encode(path)]);
          const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, message));
          return btoa(String.fromCharCode(...mac)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        }
        let sequence = 0, shown = null;
        async function update() {
          const mine = ++sequence;
          const source = base64url($("source").value.trim());
          const path = "/" + [...options(), source].join("/");
          const url = pathPrefix + "/" + await sign(path) + path;
          const infoPath = "/\(infoOptions)/" + source;
          const infoURL = pathPrefix + "/info/" + await sign(infoPath) + infoPath;
          $("url").textContent = location.origin + url;
          $("url").href = url;
          const [image, info] = await Promise.all([fetch(url), fetch(infoURL)]);
          const body = await image.blob(), infoText = await info.text();
          if (mine !== sequence) return;
          if (image.ok) {
            if (shown) URL.revokeObjectURL(shown);
            shown = URL.createObjectURL(body);
            $("result").src = shown;
            await $("result").decode().catch(() => {});
            $("result").hidden = false;
            $("error").hidden = true;
            $("bytes").textContent = `${body.size} bytes, ${image.headers.get("Content-Type")}, ` +
              `${$("result").naturalWidth}×${$("result").naturalHeight}`;
          } else {
            $("result").hidden = true;
            $("error").hidden = false;
            $("error").textContent = `HTTP ${image.status}\\n` + await body.text();
            $("bytes").textContent = "";
          }
          try { $("info").textContent = JSON.stringify(JSON.parse(infoText), null, 2); } catch { $("info").textContent = infoText; }
          document.body.dataset.updates = String((+document.body.dataset.updates || 0) + 1);
        }
        let timer = null;
        const later = () => { clearTimeout(timer); timer = setTimeout(update, 150); };
        for (const element of $("form").elements) { element.addEventListener("input", later); element.addEventListener("change", later); }
        $("example").addEventListener("change", () => { if ($("example").value) { $("source").value = $("example").value; later(); } });
        update();
        """
}
