/// Whether decoders convert colours to sRGB.
///
/// A file can say how its samples are meant to be shown: an embedded ICC profile (JPEG
/// `APP2`, PNG `iCCP`, WebP `ICCP`, AVIF/HEIC `colr`), PNG `gAMA`/`cHRM`, or coding-independent
/// code points (PNG `cICP`, AVIF/HEIC `nclx`). Browsers convert such pixels to the display's
/// colour space; WebImage converts them to sRGB so that decoded pixels match what a browser
/// shows on an sRGB screen.
public enum ColorManagement: Sendable, Hashable {
    /// Convert tagged pixels to sRGB (the default). Untagged and sRGB-tagged files cost
    /// nothing extra: their samples already are sRGB.
    case convertToSRGB
    /// Return the samples as stored in the file, whatever colour space they are in.
    case keepStoredSamples
}
