import CAVIF
import CHEIF
import Foundation

/// AVIF and HEIC metadata, read by the libraries that parse those containers (item
/// properties and item data, without decoding an image).
extension ImageMetadata {
    /// libavif parses the container only (`avifDecoderParse`); EXIF, XMP and ICC come from
    /// its primary image.
    mutating func readAVIF(_ data: Data) {
        guard let decoder = avifDecoderCreate() else { return }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = 1
        decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        let bytes = [UInt8](data)
        bytes.withUnsafeBufferPointer { p in
            guard avifDecoderSetIOMemory(decoder, p.baseAddress, p.count) == AVIF_RESULT_OK,
                  avifDecoderParse(decoder) == AVIF_RESULT_OK, let image = decoder.pointee.image else { return }
            func copy(_ block: avifRWData) -> [UInt8]? {
                guard block.size > 0, let start = block.data else { return nil }
                return Array(UnsafeBufferPointer(start: start, count: block.size))
            }
            exif = copy(image.pointee.exif)
            xmp = copy(image.pointee.xmp)
            iccProfile = copy(image.pointee.icc)
        }
    }

    /// libheif's metadata blocks of the primary image (`Exif`, and `mime` blocks of
    /// type `application/rdf+xml` for XMP) and its raw colour profile.
    mutating func readHEIF(_ p: UnsafeRawBufferPointer) {
        guard let context = heif_context_alloc() else { return }
        defer { heif_context_free(context) }
        guard heif_context_read_from_memory_without_copy(context, p.baseAddress, p.count, nil).code == heif_error_Ok else { return }
        var primary: OpaquePointer?
        guard heif_context_get_primary_image_handle(context, &primary).code == heif_error_Ok, let handle = primary else { return }
        defer { heif_image_handle_release(handle) }
        func blocks(_ type: String) -> [heif_item_id] {
            let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
            guard count > 0 else { return [] }
            var ids = [heif_item_id](repeating: 0, count: count)
            let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
            return Array(ids.prefix(max(0, listed)))
        }
        func read(_ id: heif_item_id) -> [UInt8]? {
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size <= 16 << 20 else { return nil }
            var block = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { return nil }
            return block
        }
        // HEIF's Exif item starts with a 4-byte offset to the TIFF header, which
        // EXIFTags finds on its own.
        exif = blocks("Exif").first.flatMap(read)
        for id in blocks("mime") where xmp == nil {
            if let type = heif_image_handle_get_metadata_content_type(handle, id),
               String(cString: type) == "application/rdf+xml" {
                xmp = read(id)
            }
        }
        let iccSize = heif_image_handle_get_raw_color_profile_size(handle)
        if iccSize > 0, iccSize <= 16 << 20 {
            var profile = [UInt8](repeating: 0, count: iccSize)
            if heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok { iccProfile = profile }
        }
    }
}

extension ImageMetadata {
    /// The primary image's size after libheif applied the file's transforms; `nil` when
    /// libheif cannot parse the file.
    static func heifDisplaySize(_ p: UnsafeRawBufferPointer) -> PixelSize? {
        guard let context = heif_context_alloc() else { return nil }
        defer { heif_context_free(context) }
        guard heif_context_read_from_memory_without_copy(context, p.baseAddress, p.count, nil).code == heif_error_Ok else { return nil }
        var primary: OpaquePointer?
        guard heif_context_get_primary_image_handle(context, &primary).code == heif_error_Ok, let handle = primary else { return nil }
        defer { heif_image_handle_release(handle) }
        let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        return size.width > 0 && size.height > 0 ? size : nil
    }
}
