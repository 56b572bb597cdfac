import CHEIF
import Foundation

/// One image of a parsed HEIF file (libheif's `heif_image_handle`), released with it.
///
/// Lives inside ``HEIFCoder``'s access to the file's bytes, which libheif reads in place.
/// Not thread-safe; used on one thread.
final class HEIFImageHandle {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        heif_image_handle_release(handle)
    }

    /// The size after the file's transforms (rotation, mirroring, crop).
    var size: PixelSize {
        PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// The largest embedded thumbnail whose sides both reach `size`, or `nil`.
    func thumbnail(atLeast size: PixelSize) -> HEIFImageHandle? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        var best: HEIFImageHandle?
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else {
                continue
            }
            let candidate = HEIFImageHandle(thumbnail)
            let candidateSize = candidate.size
            guard candidateSize.width >= size.width, candidateSize.height >= size.height,
                  candidateSize.pixelCount < best.map({ $0.size.pixelCount }) ?? .max
            else { continue }
            best = candidate
        }
        return best
    }

    /// What the file says about the image's colours: the `colr` ICC profile, else its
    /// `nclx` code points unless they say sRGB; `nil` when nothing else is declared.
    var colorSource: ColorSource? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 {
            var profile = [UInt8](repeating: 0, count: size)
            if heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok {
                return .iccProfile(profile)
            }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let status = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif 1.15 can fail (on an out-of-range code point) after handing out the
        // profile, so it is freed whatever the status (found by `make fuzz` as a leak).
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard status.code == heif_error_Ok, let nclx else { return nil }
        let cicp = CICP(primaries: Int(nclx.pointee.color_primaries.rawValue),
                        transfer: Int(nclx.pointee.transfer_characteristics.rawValue),
                        matrix: Int(nclx.pointee.matrix_coefficients.rawValue),
                        isFullRange: nclx.pointee.full_range_flag != 0)
        return cicp.isSRGB ? nil : .cicp(cicp)
    }

    /// Decodes to 8-bit RGBA with the file's transforms applied (higher bit depths
    /// rounded; no alpha channel gives opaque), at ``size``.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when the picture is not the size the
    ///   header declares: libheif 1.15 returns the coded picture's size whatever the
    ///   container says, and scaling a 64x48 picture up to a declared 67136x48 is how 2 KB
    ///   took 10 s of resampling (make fuzz heif). Valid files always agree.
    func decodeRGBA() throws(WebImageError) -> PixelBuffer {
        guard let options = heif_decoding_options_alloc() else {
            throw .badImageData("libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        try HEIFCoder.check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options))
        guard let image else { throw .badImageData("libheif returned no image") }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * 4 else {
            throw .badImageData("libheif returned an image without RGBA pixels")
        }
        let declared = size
        guard width == declared.width, height == declared.height else {
            throw .badImageData("The HEIF image decodes to \(width)x\(height), but its header declares \(declared)")
        }
        return PixelBuffer(width: width, height: height) { out in
            guard let base = out.baseAddress else { return }
            for y in 0..<height {
                (base + y * width * 4).update(from: plane + y * Int(stride), count: width * 4)
            }
        }
    }
}
