/// The EXIF tags of an image as name/value text: the tags of IFD0, the EXIF IFD and the
/// GPS IFD listed in `known`, under their canonical EXIF names (`DateTimeOriginal`) or
/// the titles libexif gives them (`Date and Time (Original)`), which is how libvips, and
/// so imgproxy, name them.
///
/// Values are written as libvips writes a field's stored value: text for ASCII, decimal
/// numbers for integers and `numerator/denominator` for rationals, several components
/// separated by spaces; an undefined-type value is its text when it is printable ASCII
/// (`0232` for `ExifVersion`) and is left out when it is binary (a maker note). Tags not
/// in the table, the thumbnail's IFD1 and the interoperability IFD are left out.
///
/// Parsing is bounded: offsets are checked against the block, each IFD is read once, at
/// most 512 entries per IFD. Runs on the caller's thread.
public enum EXIFTags {
    /// One tag: where it lives, its names and its value.
    public struct Entry: Sendable, Hashable {
        /// 0 for IFD0, 2 for the EXIF IFD, 3 for GPS (libexif's numbering, as in libvips'
        /// `exif-ifd2-FNumber` field names).
        public var ifd: Int
        public var tag: UInt16
        /// The EXIF name, e.g. `FNumber`.
        public var name: String
        /// libexif's title, e.g. `F-Number`.
        public var title: String
        public var value: String
    }

    /// The entries of an EXIF block (a TIFF structure, optionally after `Exif\0\0`), in
    /// file order; empty when it cannot be read.
    public static func entries(_ block: [UInt8]) -> [Entry] {
        guard let reader = TIFFReader(block) else { return [] }
        var entries: [Entry] = []
        var visited = Set<Int>()
        var queue: [(ifd: Int, offset: Int)] = [(0, reader.firstIFD)]
        while !queue.isEmpty {
            let (ifd, offset) = queue.removeFirst()
            guard visited.insert(offset).inserted else { continue }
            for field in reader.fields(at: offset) {
                if ifd == 0, field.tag == 0x8769, let pointer = field.firstInteger { queue.append((2, pointer)) }
                if ifd == 0, field.tag == 0x8825, let pointer = field.firstInteger { queue.append((3, pointer)) }
                guard let names = known[Key(ifd: ifd, tag: field.tag)], let value = field.text else { continue }
                entries.append(Entry(ifd: ifd, tag: field.tag, name: names.name, title: names.title, value: value))
            }
        }
        return entries
    }

    struct Key: Hashable {
        var ifd: Int
        var tag: UInt16
    }

    /// The tags named: the ones cameras and editors write (EXIF 2.32), with libexif's titles.
    static let known: [Key: (name: String, title: String)] = {
        let rows: [(Int, UInt16, String, String)] = [
            (0, 0x0100, "ImageWidth", "Image Width"), (0, 0x0101, "ImageLength", "Image Length"),
            (0, 0x0102, "BitsPerSample", "Bits per Sample"), (0, 0x0103, "Compression", "Compression"),
            (0, 0x0106, "PhotometricInterpretation", "Photometric Interpretation"),
            (0, 0x010E, "ImageDescription", "Image Description"), (0, 0x010F, "Make", "Manufacturer"),
            (0, 0x0110, "Model", "Model"), (0, 0x0112, "Orientation", "Orientation"),
            (0, 0x0115, "SamplesPerPixel", "Samples per Pixel"), (0, 0x011A, "XResolution", "X-Resolution"),
            (0, 0x011B, "YResolution", "Y-Resolution"), (0, 0x0128, "ResolutionUnit", "Resolution Unit"),
            (0, 0x0131, "Software", "Software"), (0, 0x0132, "DateTime", "Date and Time"), (0, 0x013B, "Artist", "Artist"),
            (0, 0x0213, "YCbCrPositioning", "YCbCr Positioning"), (0, 0x8298, "Copyright", "Copyright"),
            (2, 0x829A, "ExposureTime", "Exposure Time"), (2, 0x829D, "FNumber", "F-Number"),
            (2, 0x8822, "ExposureProgram", "Exposure Program"), (2, 0x8827, "ISOSpeedRatings", "ISO Speed Ratings"),
            (2, 0x8830, "SensitivityType", "Sensitivity Type"),
            (2, 0x8832, "RecommendedExposureIndex", "Recommended Exposure Index"),
            (2, 0x9000, "ExifVersion", "Exif Version"), (2, 0x9003, "DateTimeOriginal", "Date and Time (Original)"),
            (2, 0x9004, "DateTimeDigitized", "Date and Time (Digitized)"), (2, 0x9010, "OffsetTime", "Offset Time For DateTime"),
            (2, 0x9011, "OffsetTimeOriginal", "Offset Time For DateTimeOriginal"),
            (2, 0x9012, "OffsetTimeDigitized", "Offset Time For DateTimeDigitized"),
            (2, 0x9101, "ComponentsConfiguration", "Components Configuration"),
            (2, 0x9102, "CompressedBitsPerPixel", "Compressed Bits per Pixel"),
            (2, 0x9201, "ShutterSpeedValue", "Shutter Speed"), (2, 0x9202, "ApertureValue", "Aperture"),
            (2, 0x9203, "BrightnessValue", "Brightness"), (2, 0x9204, "ExposureBiasValue", "Exposure Bias"),
            (2, 0x9205, "MaxApertureValue", "Maximum Aperture Value"), (2, 0x9206, "SubjectDistance", "Subject Distance"),
            (2, 0x9207, "MeteringMode", "Metering Mode"), (2, 0x9208, "LightSource", "Light Source"),
            (2, 0x9209, "Flash", "Flash"), (2, 0x920A, "FocalLength", "Focal Length"),
            (2, 0x9286, "UserComment", "User Comment"), (2, 0x9290, "SubsecTime", "Sub-second Time"),
            (2, 0x9291, "SubSecTimeOriginal", "Sub-second Time (Original)"),
            (2, 0x9292, "SubSecTimeDigitized", "Sub-second Time (Digitized)"),
            (2, 0xA000, "FlashpixVersion", "FlashPixVersion"), (2, 0xA001, "ColorSpace", "Color Space"),
            (2, 0xA002, "PixelXDimension", "Pixel X Dimension"), (2, 0xA003, "PixelYDimension", "Pixel Y Dimension"),
            (2, 0xA20E, "FocalPlaneXResolution", "Focal Plane X-Resolution"),
            (2, 0xA20F, "FocalPlaneYResolution", "Focal Plane Y-Resolution"),
            (2, 0xA210, "FocalPlaneResolutionUnit", "Focal Plane Resolution Unit"),
            (2, 0xA217, "SensingMethod", "Sensing Method"), (2, 0xA300, "FileSource", "File Source"),
            (2, 0xA301, "SceneType", "Scene Type"), (2, 0xA401, "CustomRendered", "Custom Rendered"),
            (2, 0xA402, "ExposureMode", "Exposure Mode"), (2, 0xA403, "WhiteBalance", "White Balance"),
            (2, 0xA404, "DigitalZoomRatio", "Digital Zoom Ratio"),
            (2, 0xA405, "FocalLengthIn35mmFilm", "Focal Length in 35mm Film"),
            (2, 0xA406, "SceneCaptureType", "Scene Capture Type"), (2, 0xA407, "GainControl", "Gain Control"),
            (2, 0xA408, "Contrast", "Contrast"), (2, 0xA409, "Saturation", "Saturation"),
            (2, 0xA40A, "Sharpness", "Sharpness"), (2, 0xA40C, "SubjectDistanceRange", "Subject Distance Range"),
            (2, 0xA420, "ImageUniqueID", "Image Unique ID"), (2, 0xA430, "CameraOwnerName", "Camera Owner Name"),
            (2, 0xA431, "BodySerialNumber", "Body Serial Number"), (2, 0xA432, "LensSpecification", "Lens Specification"),
            (2, 0xA433, "LensMake", "Lens Make"), (2, 0xA434, "LensModel", "Lens Model"),
            (2, 0xA435, "LensSerialNumber", "Lens Serial Number"), (2, 0xA460, "CompositeImage", "Composite Image"),
            (3, 0x0000, "GPSVersionID", "GPS Tag Version"), (3, 0x0001, "GPSLatitudeRef", "North or South Latitude"),
            (3, 0x0002, "GPSLatitude", "Latitude"), (3, 0x0003, "GPSLongitudeRef", "East or West Longitude"),
            (3, 0x0004, "GPSLongitude", "Longitude"), (3, 0x0005, "GPSAltitudeRef", "Altitude Reference"),
            (3, 0x0006, "GPSAltitude", "Altitude"), (3, 0x0007, "GPSTimeStamp", "GPS Time (Atomic Clock)"),
            (3, 0x000C, "GPSSpeedRef", "Speed Unit"), (3, 0x000D, "GPSSpeed", "Speed of GPS Receiver"),
            (3, 0x0010, "GPSImgDirectionRef", "GPS Image Direction Reference"),
            (3, 0x0011, "GPSImgDirection", "GPS Image Direction"), (3, 0x0012, "GPSMapDatum", "Geodetic Survey Data Used"),
            (3, 0x001B, "GPSProcessingMethod", "Name of GPS Processing Method"), (3, 0x001D, "GPSDateStamp", "GPS Date"),
        ]
        var table: [Key: (name: String, title: String)] = [:]
        for (ifd, tag, name, title) in rows { table[Key(ifd: ifd, tag: tag)] = (name, title) }
        return table
    }()
}
