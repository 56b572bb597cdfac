import Foundation
import WebImageCodecs

/// img2dataset's `exif` column: what `exifread.process_file(stream, details=False)` finds in
/// the downloaded bytes, as `json.dumps({name: str(value).strip()})`. An image without
/// EXIF gives `{}`, as there.
///
/// Names are exifread-nocycle 3.0's (img2dataset's pin), `<IFD> <tag>`: `Image Make`,
/// `EXIF ExposureTime`, `GPS GPSLatitude`, with its own names where they differ from EXIF's
/// (`EXIF ExifImageWidth` for `PixelXDimension`, `EXIF SubSecTime`, `GPS GPSDate`). Values are
/// written as it prints them: text as stored (stripped); one number as itself; a rational in
/// lowest terms (`1/100`, and `72` for `72/1`); several components as a Python list
/// (`[2, 3, 0, 0]`, `[51, 30, 617/50]`); the enumerations of ``enumerations`` by their names
/// (`Orientation`: `Rotated 90 CW`); `ExifVersion` and `FlashPixVersion` empty, as it prints them.
///
/// **Where it differs from exifread.** The tags are those ``EXIFTags`` reads (IFD0, the EXIF
/// and GPS IFDs, the tags cameras and editors write); exifread also lists the IFD pointers
/// (`Image ExifOffset`), the thumbnail's IFD1 (`Thumbnail …`), the interoperability IFD,
/// `EXIF MakerNote` and unknown tags (`Tag 0x…`). Undefined-type values that are not
/// printable text (`ComponentsConfiguration`) are left out, and keys follow file order by IFD
/// (exifread lists an IFD's sub-IFD before its pointer). Where exifread raises on a file
/// (img2dataset then writes null), this still writes what it reads.
enum EXIFColumn {
    /// The column's JSON text for an image's bytes.
    static func json(for data: Data) -> String {
        let entries = ImageMetadata(reading: data).exifEntries
        var out = "{"
        for (i, entry) in entries.enumerated() {
            if i > 0 { out += ", " }
            JSONValue.quote(key(entry), into: &out)
            out += ": "
            JSONValue.quote(value(entry).trimmingCharacters(in: .whitespaces), into: &out)
        }
        return out + "}"
    }

    static func key(_ entry: EXIFTags.Entry) -> String {
        let prefix = switch entry.ifd {
        case 0: "Image"
        case 3: "GPS"
        default: "EXIF"
        }
        // exifread-nocycle 3.0's names where they are not EXIF's; a tag it has no name for
        // is `Tag 0x…`.
        let name = switch entry.name {
        case "PixelXDimension": "ExifImageWidth"
        case "PixelYDimension": "ExifImageLength"
        case "FlashpixVersion": "FlashPixVersion"
        case "SubsecTime": "SubSecTime"
        case "GPSDateStamp": "GPSDate"
        case "CompositeImage": "Tag 0xA460"
        default: entry.name
        }
        return "\(prefix) \(name)"
    }

    /// The tags whose values are text (ASCII or printable undefined), left as read.
    static let textTags: Set<String> = [
        "ImageDescription", "Make", "Model", "Software", "DateTime", "Artist", "Copyright", "ExifVersion",
        "DateTimeOriginal", "DateTimeDigitized", "OffsetTime", "OffsetTimeOriginal", "OffsetTimeDigitized",
        "UserComment", "SubsecTime", "SubSecTimeOriginal", "SubSecTimeDigitized", "FlashpixVersion", "FileSource",
        "SceneType", "ImageUniqueID", "CameraOwnerName", "BodySerialNumber", "LensMake", "LensModel",
        "LensSerialNumber", "GPSLatitudeRef", "GPSLongitudeRef", "GPSSpeedRef", "GPSImgDirectionRef", "GPSMapDatum",
        "GPSProcessingMethod", "GPSDateStamp",
    ]

    /// exifread's names for the values of the common enumerated tags.
    static let enumerations: [String: [Int: String]] = [
        "Orientation": [1: "Horizontal (normal)", 2: "Mirrored horizontal", 3: "Rotated 180", 4: "Mirrored vertical",
                        5: "Mirrored horizontal then rotated 90 CCW", 6: "Rotated 90 CW",
                        7: "Mirrored horizontal then rotated 90 CW", 8: "Rotated 90 CCW"],
        "ResolutionUnit": [1: "Not Absolute", 2: "Pixels/Inch", 3: "Pixels/Centimeter"],
        "YCbCrPositioning": [1: "Centered", 2: "Co-sited"],
        "ExposureProgram": [0: "Unidentified", 1: "Manual", 2: "Program Normal", 3: "Aperture Priority",
                            4: "Shutter Priority", 5: "Program Creative", 6: "Program Action", 7: "Portrait Mode",
                            8: "Landscape Mode"],
        "MeteringMode": [0: "Unidentified", 1: "Average", 2: "CenterWeightedAverage", 3: "Spot", 4: "MultiSpot",
                         5: "Pattern", 6: "Partial", 255: "other"],
        "ColorSpace": [1: "sRGB", 2: "Adobe RGB", 65535: "Uncalibrated"],
        "ExposureMode": [0: "Auto Exposure", 1: "Manual Exposure", 2: "Auto Bracket"],
        "WhiteBalance": [0: "Auto", 1: "Manual"],
        "SceneCaptureType": [0: "Standard", 1: "Landscape", 2: "Portrait", 3: "Night"],
        "Contrast": [0: "Normal", 1: "Soft", 2: "Hard"],
        "Saturation": [0: "Normal", 1: "Soft", 2: "Hard"],
        "Sharpness": [0: "Normal", 1: "Soft", 2: "Hard"],
        "CustomRendered": [0: "Normal", 1: "Custom"],
        "GainControl": [0: "None", 1: "Low gain up", 2: "High gain up", 3: "Low gain down", 4: "High gain down"],
        "SensingMethod": [1: "Not defined", 2: "One-chip color area", 3: "Two-chip color area",
                          4: "Three-chip color area", 5: "Color sequential area", 7: "Trilinear",
                          8: "Color sequential linear"],
        "SensitivityType": [0: "Unknown", 1: "Standard Output Sensitivity", 2: "Recommended Exposure Index",
                            3: "ISO Speed", 4: "Standard Output Sensitivity and Recommended Exposure Index",
                            5: "Standard Output Sensitivity and ISO Speed", 6: "Recommended Exposure Index and ISO Speed",
                            7: "Standard Output Sensitivity, Recommended Exposure Index and ISO Speed"],
        "LightSource": [0: "Unknown", 1: "Daylight", 2: "Fluorescent", 3: "Tungsten (incandescent light)", 4: "Flash",
                        9: "Fine weather", 10: "Cloudy weather", 11: "Shade",
                        12: "Daylight fluorescent (D 5700 - 7100K)", 13: "Day white fluorescent (N 4600 - 5400K)",
                        14: "Cool white fluorescent (W 3900 - 4500K)", 15: "White fluorescent (WW 3200 - 3700K)",
                        17: "Standard light A", 18: "Standard light B", 19: "Standard light C", 20: "D55", 21: "D65",
                        22: "D75", 23: "D50", 24: "ISO studio tungsten", 255: "other light source"],
        // The EXIF 2.32 flash states (bit 0 fired, bits 1–2 return light, 3–4 mode, 5 no
        // flash, 6 red-eye) in exifread's words.
        "Flash": [0: "Flash did not fire", 1: "Flash fired", 5: "Strobe return light not detected",
                  7: "Strobe return light detected", 9: "Flash fired, compulsory flash mode",
                  13: "Flash fired, compulsory flash mode, return light not detected",
                  15: "Flash fired, compulsory flash mode, return light detected",
                  16: "Flash did not fire, compulsory flash mode", 24: "Flash did not fire, auto mode",
                  25: "Flash fired, auto mode", 29: "Flash fired, auto mode, return light not detected",
                  31: "Flash fired, auto mode, return light detected", 32: "No flash function",
                  65: "Flash fired, red-eye reduction mode",
                  69: "Flash fired, red-eye reduction mode, return light not detected",
                  71: "Flash fired, red-eye reduction mode, return light detected",
                  73: "Flash fired, compulsory flash mode, red-eye reduction mode",
                  77: "Flash fired, compulsory flash mode, red-eye reduction mode, return light not detected",
                  79: "Flash fired, compulsory flash mode, red-eye reduction mode, return light detected",
                  89: "Flash fired, auto mode, red-eye reduction mode",
                  93: "Flash fired, auto mode, return light not detected, red-eye reduction mode",
                  95: "Flash fired, auto mode, return light detected, red-eye reduction mode"],
    ]

    /// ``EXIFTags``' value text (components separated by spaces, rationals `n/d`) as exifread prints it.
    static func value(_ entry: EXIFTags.Entry) -> String {
        // exifread-nocycle 3.0 (img2dataset's pin) prints these version tags empty.
        if entry.name == "ExifVersion" || entry.name == "FlashpixVersion" { return "" }
        if textTags.contains(entry.name) { return entry.value }
        let parts = entry.value.split(separator: " ").map(String.init)
        if let table = enumerations[entry.name] {
            // exifread joins a mapped value's components without a separator.
            return parts.map { Int($0).flatMap { table[$0] } ?? $0 }.joined()
        }
        let printed = parts.map(reducedRatio)
        return printed.count == 1 ? printed[0] : "[" + printed.joined(separator: ", ") + "]"
    }

    /// `n/d` in lowest terms, `n` when the denominator is then 1 (Python's `Fraction`).
    static func reducedRatio(_ text: String) -> String {
        let halves = text.split(separator: "/")
        guard halves.count == 2, let n = Int(halves[0]), let d = Int(halves[1]), d != 0 else { return text }
        var a = abs(n), b = abs(d)
        while b != 0 { (a, b) = (b, a % b) }
        let sign = (n < 0) != (d < 0) ? -1 : 1
        let (num, den) = (sign * abs(n) / a, abs(d) / a)
        return den == 1 ? String(num) : "\(num)/\(den)"
    }
}
