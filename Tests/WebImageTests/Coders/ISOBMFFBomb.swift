import Foundation

/// Tiny ISO BMFF files that declare enormous images in their `ispe` property.
enum ISOBMFFBomb {
    static func avif(side: Int = 100_000) -> Data { file(brand: "avif", side: side) }
    static func heic(side: Int = 100_000) -> Data { file(brand: "heic", side: side) }

    private static func file(brand: String, side: Int) -> Data {
        let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1".utf8) + Array(brand.utf8))
        let ispe = box("ispe", [0, 0, 0, 0] + be32(side) + be32(side))
        let meta = box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe)))
        return Data(ftyp + meta)
    }

    private static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(body.count + 8) + Array(type.utf8) + body
    }

    private static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
