import Foundation
import WebImageCodecs

/// img2dataset's `exif` column: what `exifread.process_file(stream, details=False)` finds in
/// the downloaded bytes, as `json.dumps({name: str(value).strip()})`. An image without
/// EXIF gives `{}`, as there.
///
/// Names are exifread's, `<IFD> <tag>`: `Image Make`, `EXIF ExposureTime`, `GPS GPSLatitude`
/// (exifread's own names where they differ from EXIF's: `EXIF ExifImageWidth` for
/// `PixelXDimension`). Values are written as exifread prints them: text as stored (stripped);
/// one number as itself; a rational in lowest terms (`1/100`, and `72` for `72/1`); several
/// components as a Python list (`[2, 3, 0, 0]`, `[51, 30, 617/50]`); and the common
/// enumerations by their names (`Orientation`: `Rotated 90 CW`).
///
/// **Where it differs from exifread.** The tags are those ``EXIFTags`` reads (IFD0, the EXIF
/// and GPS IFDs, the tags cameras and editors write); exifread also lists the IFD pointers
/// (`Image ExifOffset`), the thumbnail's IFD1 (`Thumbnail …`), the interoperability IFD,
/// `EXIF MakerNote` and unknown tags (`Tag 0x…`). Enumerations other than those in
/// ``enumerations`` (e.g. `Flash`, `LightSource`) stay numbers, undefined-type values that
/// are not printable text (`ComponentsConfiguration`) are left out, and keys follow file
/// order by IFD (exifread lists an IFD's sub-IFD before its pointer).
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
        let name = switch entry.name {
        case "PixelXDimension": "ExifImageWidth"
        case "PixelYDimension": "ExifImageLength"
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
    ]

    /// ``EXIFTags``' value text (components separated by spaces, rationals `n/d`) as exifread prints it.
    static func value(_ entry: EXIFTags.Entry) -> String {
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
