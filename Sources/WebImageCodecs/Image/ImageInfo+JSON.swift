import Foundation

extension ImageInfo {
    /// The JSON object of imgproxy Pro's `/info` (docs/usage/getting_info.mdx): a key for
    /// each enabled option, with imgproxy's names and types — `size`; `format` and
    /// `mime_type`; `width`, `height` and `orientation`; `exif`, `iptc` (and `photoshop`
    /// when the file has a resolution record), `xmp` (objects, `{}` when the file has
    /// none); `pages_number`; `alpha` (and `transparent`); `palette` and `average`
    /// (`{"R","G","B","A"}`); `dominant_colors` (`{"R","G","B"}` per found swatch);
    /// `blurhash`; `thumb_hash` (upper-case hex). `icc_profile` (a Boolean) is ours.
    ///
    /// An APNG reports `png`, as imgproxy (libvips) does.
    public func jsonObject() -> [String: Any] {
        var object: [String: Any] = [:]
        if options.size { object["size"] = byteCount }
        if options.format {
            let shown = format == .apng ? ImageFormat.png : format
            object["format"] = shown.rawValue
            object["mime_type"] = shown.mimeType
        }
        if options.dimensions {
            object["width"] = width
            object["height"] = height
            object["orientation"] = orientation.rawValue
        }
        if options.exif {
            var exif: [String: String] = [:]
            for entry in metadata.exifEntries {
                let key = options.exifCanonicalNames ? entry.name : entry.title
                if exif[key] == nil { exif[key] = entry.value }
            }
            object["exif"] = exif
        }
        if options.iptc {
            var iptc: [String: Any] = [:]
            for dataset in metadata.iptcDatasets {
                iptc[dataset.name] = dataset.isRepeatable ? dataset.values : dataset.values[0]
            }
            object["iptc"] = iptc
            if let resolution = metadata.photoshopResolution {
                object["photoshop"] = ["resolution": [
                    "XResolution": resolution.xResolution, "XResolutionUnit": resolution.xResolutionUnit,
                    "WidthUnit": resolution.widthUnit, "YResolution": resolution.yResolution,
                    "YResolutionUnit": resolution.yResolutionUnit, "HeightUnit": resolution.heightUnit,
                ]]
            }
        }
        if options.xmp {
            var xmp: [String: Any] = [:]
            for (prefix, properties) in metadata.xmpProperties {
                var group: [String: Any] = [:]
                for (name, value) in properties {
                    switch value {
                    case .text(let text): group[name] = text
                    case .list(let items): group[name] = items
                    }
                }
                xmp[prefix] = group
            }
            object["xmp"] = xmp
        }
        if options.pagesNumber { object["pages_number"] = frameCount }
        if options.alpha {
            object["alpha"] = hasAlphaChannel
            if let isTransparent { object["transparent"] = isTransparent }
        }
        if options.iccProfile { object["icc_profile"] = metadata.iccProfile != nil }
        if let palette { object["palette"] = palette.map { Self.color($0.color, alpha: true) } }
        if let averageColor { object["average"] = Self.color(averageColor, alpha: true) }
        if let dominantColors {
            var named: [String: Any] = [:]
            for (name, color) in dominantColors.named { named[name] = Self.color(color, alpha: false) }
            object["dominant_colors"] = named
        }
        if let blurHash { object["blurhash"] = blurHash }
        if let thumbHash { object["thumb_hash"] = ThumbHash.hex(thumbHash) }
        return object
    }

    /// ``jsonObject()`` with `extra` keys added, as UTF-8 JSON with sorted keys (so equal
    /// answers are equal bytes).
    public func jsonData(adding extra: [String: Any] = [:]) -> Data {
        let object = jsonObject().merging(extra) { $1 }
        // Strings, numbers, Booleans, arrays and objects of them always serialise.
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    private static func color(_ c: RGBA, alpha: Bool) -> [String: Int] {
        var object = ["R": Int(c.r), "G": Int(c.g), "B": Int(c.b)]
        if alpha { object["A"] = Int(c.a) }
        return object
    }
}
