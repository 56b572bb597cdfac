import Foundation

/// Gives libavif 0.11 an alpha grid for a colour grid whose alpha planes belong to its
/// tiles, in the coder's private copy of the file.
///
/// A grid image (`grid` item, several AV1 tiles) carries alpha either as a second grid of
/// alpha tiles, auxiliary to the colour grid, or, as some encoders write it, as one alpha
/// item auxiliary to each colour tile (libavif issue 1203). libavif 1.0 and browsers read
/// both; Debian's libavif 0.11 only the first, and decodes the second opaque. When the
/// primary item is such a grid, this builds the missing item: a `grid` with the colour
/// grid's descriptor and size, the tiles' alpha items as its tiles in the colour tiles'
/// order, auxiliary (`auxl`) to the colour grid. The new `meta` box goes at the end of the
/// file and the old one becomes a `free` box, so no sample moves and every `iloc` offset
/// stays true.
///
/// Every length is bounds-checked; a file it does not fully understand is left as it is.
enum AVIFAlphaGrid {
    /// The replacement: the top-level box at `metaOffset` becomes `free`, `meta` is appended.
    struct Rewrite {
        let metaOffset: Int
        let meta: [UInt8]

        /// Writes the rewritten `data` into `bytes`, which holds `data.count + meta.count`.
        func write(_ data: Data, into bytes: UnsafeMutableRawBufferPointer) {
            data.copyBytes(to: bytes)
            ISOBMFFBox.hide(boxAt: metaOffset, in: bytes)
            UnsafeMutableRawBufferPointer(rebasing: bytes[data.count...]).copyBytes(from: meta)
        }
    }

    /// The rewrite that gives `p`'s primary grid an alpha grid, or `nil` when it needs none
    /// (no grid, alpha already there, tiles without alpha) or the file is not well formed.
    static func rewrite(_ p: UnsafeRawBufferPointer) -> Rewrite? {
        // Under 2 GB, so that every new box length fits its 32-bit field.
        guard p.count < Int(Int32.max), let top = boxes(p, in: 0..<p.count), top.allSatisfy({ !$0.extendsToEnd }),
              let meta = top.first(where: { $0.type == fourCC("meta") }),
              top.filter({ $0.type == fourCC("meta") }).count == 1,
              meta.body.count >= 4, let children = boxes(p, in: (meta.body.lowerBound + 4)..<meta.body.upperBound),
              let file = Meta(p, children: children),
              let newMeta = file.metaWithAlphaGrid(p, header: meta.body.lowerBound..<(meta.body.lowerBound + 4))
        else { return nil }
        return Rewrite(metaOffset: meta.range.lowerBound, meta: newMeta)
    }

    // MARK: - Reading

    private typealias Box = ISOBMFFBox

    /// The boxes filling `range` exactly, or `nil` when a length does not fit or there are
    /// more than a real file has (which bounds what a hostile one makes us allocate).
    private static func boxes(_ p: UnsafeRawBufferPointer, in range: Range<Int>) -> [Box]? {
        var list: [Box] = []
        var boxes = ISOBMFFBox.boxes(p, in: range)
        while let box = boxes.next() {
            guard list.count < 4096 else { return nil }
            list.append(box)
        }
        return boxes.stoppedEarly ? nil : list
    }

    /// A bounds-checked big-endian reader over one box body.
    private struct Reader {
        let p: UnsafeRawBufferPointer
        var offset: Int
        let end: Int

        init(_ p: UnsafeRawBufferPointer, _ range: Range<Int>) {
            self.p = p
            offset = range.lowerBound
            end = range.upperBound
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, count <= end - offset else { return false }
            offset += count
            return true
        }

        /// The next `bytes` (0 to 8) as an integer.
        mutating func read(_ bytes: Int) -> UInt64? {
            guard bytes >= 0, bytes <= 8, bytes <= end - offset else { return nil }
            var value: UInt64 = 0
            for i in 0..<bytes { value = value << 8 | UInt64(p[offset + i]) }
            offset += bytes
            return value
        }
    }

    /// The parts of a `meta` box the rewrite needs, each with its raw location.
    private struct Meta {
        let children: [Box]
        var primary: UInt32 = 0
        /// Item types from `iinf`, by item ID.
        var types: [UInt32: UInt32] = [:]
        var iinf: (box: Box, version: UInt8, count: UInt64, entries: Range<Int>)?
        /// References from `iref`: type, from, to.
        var references: [(type: UInt32, from: UInt32, to: [UInt32])] = []
        var iref: (box: Box, version: UInt8)?
        /// Property types and `auxC` types from `ipco`, by 1-based index.
        var properties: [UInt32] = []
        var auxiliaryTypes: [Int: String] = [:]
        var iprp: Box?
        var ipma: (box: Box, version: UInt8, flags: UInt32, count: UInt64)?
        /// Each item's associations: property index and the association's raw bytes.
        var associations: [UInt32: [(index: Int, raw: Range<Int>)]] = [:]
        var iloc: (box: Box, version: UInt8, countField: Range<Int>, count: UInt64)?
        /// Each item's `iloc` entry, raw, with the width of its item ID field.
        var locations: [UInt32: (raw: Range<Int>, idBytes: Int)] = [:]

        /// `nil` when the box is malformed or its primary item is not a grid; the rest of
        /// the box is read only for a grid, so other files (nearly all) cost two small reads.
        init?(_ p: UnsafeRawBufferPointer, children: [Box]) {
            self.children = children
            for box in children {
                switch box.type {
                case fourCC("pitm"):
                    var r = Reader(p, box.body)
                    guard let version = r.read(1), r.skip(3), let id = r.read(version == 0 ? 2 : 4) else { return nil }
                    primary = UInt32(id)
                case fourCC("iinf"):
                    guard iinf == nil, readItemInfo(p, box) else { return nil }
                default:
                    break
                }
            }
            guard types[primary] == fourCC("grid") else { return nil }
            for box in children {
                switch box.type {
                case fourCC("iref"):
                    guard iref == nil, readReferences(p, box) else { return nil }
                case fourCC("iprp"):
                    guard iprp == nil, readProperties(p, box) else { return nil }
                case fourCC("iloc"):
                    guard iloc == nil, readLocations(p, box) else { return nil }
                default:
                    break
                }
            }
            guard iinf != nil, iref != nil, ipma != nil, iloc != nil else { return nil }
        }

        private mutating func readItemInfo(_ p: UnsafeRawBufferPointer, _ box: Box) -> Bool {
            var r = Reader(p, box.body)
            guard let version = r.read(1), r.skip(3), let count = r.read(version == 0 ? 2 : 4),
                  let entries = boxes(p, in: r.offset..<box.body.upperBound)
            else { return false }
            for entry in entries where entry.type == fourCC("infe") {
                var e = Reader(p, entry.body)
                guard let infeVersion = e.read(1), e.skip(3) else { return false }
                guard infeVersion >= 2 else { continue }
                guard let id = e.read(infeVersion == 2 ? 2 : 4), e.skip(2), let type = e.read(4) else { return false }
                types[UInt32(id)] = UInt32(type)
            }
            iinf = (box, UInt8(version), count, r.offset..<box.body.upperBound)
            return true
        }

        private mutating func readReferences(_ p: UnsafeRawBufferPointer, _ box: Box) -> Bool {
            var r = Reader(p, box.body)
            guard let version = r.read(1), r.skip(3), let list = boxes(p, in: r.offset..<box.body.upperBound) else { return false }
            let idBytes = version == 0 ? 2 : 4
            for reference in list {
                var e = Reader(p, reference.body)
                guard let from = e.read(idBytes), let count = e.read(2) else { return false }
                var to: [UInt32] = []
                for _ in 0..<count {
                    guard let id = e.read(idBytes) else { return false }
                    to.append(UInt32(id))
                }
                references.append((reference.type, UInt32(from), to))
            }
            iref = (box, UInt8(version))
            return true
        }

        private mutating func readProperties(_ p: UnsafeRawBufferPointer, _ box: Box) -> Bool {
            guard let list = boxes(p, in: box.body) else { return false }
            for child in list {
                if child.type == fourCC("ipco") {
                    guard properties.isEmpty, let items = boxes(p, in: child.body) else { return false }
                    for item in items {
                        properties.append(item.type)
                        if item.type == fourCC("auxC"), item.body.count > 4 {
                            let urn = UnsafeRawBufferPointer(rebasing: p[(item.body.lowerBound + 4)..<item.body.upperBound])
                            auxiliaryTypes[properties.count] = String(decoding: urn.prefix { $0 != 0 }, as: UTF8.self)
                        }
                    }
                } else if child.type == fourCC("ipma") {
                    guard ipma == nil, readAssociations(p, child) else { return false }
                }
            }
            iprp = box
            return ipma != nil
        }

        private mutating func readAssociations(_ p: UnsafeRawBufferPointer, _ box: Box) -> Bool {
            var r = Reader(p, box.body)
            guard let version = r.read(1), let flags = r.read(3), let count = r.read(4) else { return false }
            let wide = flags & 1 != 0
            for _ in 0..<count {
                guard let id = r.read(version == 0 ? 2 : 4), let n = r.read(1) else { return false }
                var list: [(Int, Range<Int>)] = []
                for _ in 0..<n {
                    let start = r.offset
                    guard let value = r.read(wide ? 2 : 1) else { return false }
                    list.append((Int(value & (wide ? 0x7FFF : 0x7F)), start..<r.offset))
                }
                associations[UInt32(id)] = list
            }
            ipma = (box, UInt8(version), UInt32(flags), count)
            return true
        }

        private mutating func readLocations(_ p: UnsafeRawBufferPointer, _ box: Box) -> Bool {
            var r = Reader(p, box.body)
            guard let version = r.read(1), version <= 2, r.skip(3), let sizes = r.read(1), let more = r.read(1)
            else { return false }
            let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
            let indexSize = version == 0 ? 0 : Int(more & 15)
            guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else { return false }
            let idBytes = version < 2 ? 2 : 4
            let countStart = r.offset
            guard let count = r.read(idBytes) else { return false }
            let countField = countStart..<r.offset
            for _ in 0..<count {
                let start = r.offset
                guard let id = r.read(idBytes), version == 0 || r.skip(2), r.skip(2), r.read(baseSize) != nil,
                      let extents = r.read(2)
                else { return false }
                for _ in 0..<extents {
                    guard r.read(indexSize) != nil, r.read(offsetSize) != nil, r.read(lengthSize) != nil else { return false }
                }
                locations[UInt32(id)] = (start..<r.offset, idBytes)
            }
            iloc = (box, UInt8(version), countField, count)
            return true
        }

        // MARK: - Writing

        /// The `meta` box with the alpha grid added, or `nil` when the grid needs none.
        func metaWithAlphaGrid(_ p: UnsafeRawBufferPointer, header: Range<Int>) -> [UInt8]? {
            guard let iinf, let iref, let iprp, let ipma, let iloc,
                  let gridLocation = locations[primary]
            else { return nil }
            let isAlpha = { (item: UInt32) -> Bool in
                (associations[item] ?? []).contains { Self.alphaURNs.contains(auxiliaryTypes[$0.index] ?? "") }
            }
            let auxiliary = references.filter { $0.type == fourCC("auxl") }
            // An alpha item for the grid itself: libavif reads it, nothing to do.
            guard !auxiliary.contains(where: { $0.to.contains(primary) && isAlpha($0.from) }) else { return nil }
            guard let tiles = references.first(where: { $0.type == fourCC("dimg") && $0.from == primary })?.to,
                  !tiles.isEmpty
            else { return nil }
            var alphaTiles: [UInt32] = []
            for tile in tiles {
                guard let alpha = auxiliary.first(where: { $0.to.contains(tile) && isAlpha($0.from) })?.from,
                      types[alpha] == fourCC("av01")
                else { return nil }
                alphaTiles.append(alpha)
            }
            // The alpha grid has the colour grid's size (ispe) and an alpha auxC.
            guard let size = associations[primary]?.first(where: { property($0.index) == fourCC("ispe") }),
                  let alphaType = associations[alphaTiles[0]]?.first(where: {
                      property($0.index) == fourCC("auxC") && Self.alphaURNs.contains(auxiliaryTypes[$0.index] ?? "")
                  }),
                  let largest = [types.keys.max(), locations.keys.max(), associations.keys.max()].compactMap({ $0 }).max(),
                  largest < 0xFFFF
            else { return nil }
            let id = largest + 1
            guard iinf.count < (iinf.version == 0 ? 0xFFFF : UInt64(UInt32.max)) else { return nil }

            var infe = fullBoxHeader(version: 2)
            infe += be(id, 2) + be(0, 2) + be(fourCC("grid"), 4) + [0]
            let newIinf = box("iinf", Array(p[iinf.box.body.lowerBound..<(iinf.box.body.lowerBound + 4)])
                + be(UInt32(iinf.count + 1), iinf.version == 0 ? 2 : 4)
                + Array(p[iinf.entries]) + box("infe", infe))

            let refBytes = iref.version == 0 ? 2 : 4
            let newIref = box("iref", Array(p[iref.box.body])
                + box("dimg", be(id, refBytes) + be(UInt32(alphaTiles.count), 2) + alphaTiles.flatMap { be($0, refBytes) })
                + box("auxl", be(id, refBytes) + be(1, 2) + be(primary, refBytes)))

            guard ipma.count < UInt32.max else { return nil }
            var ipmaBody = [ipma.version] + be(ipma.flags, 3) + be(UInt32(ipma.count + 1), 4)
            ipmaBody += Array(p[(ipma.box.body.lowerBound + 8)..<ipma.box.body.upperBound])
            ipmaBody += be(id, ipma.version == 0 ? 2 : 4) + [2] + Array(p[size.raw]) + Array(p[alphaType.raw])
            var iprpBody: [UInt8] = []
            guard let iprpChildren = boxes(p, in: iprp.body) else { return nil }
            for child in iprpChildren {
                iprpBody += child.type == fourCC("ipma") ? box("ipma", ipmaBody) : Array(p[child.range])
            }
            let newIprp = box("iprp", iprpBody)

            guard iloc.count < 0xFFFF else { return nil }
            var entry = Array(p[gridLocation.raw])
            entry.replaceSubrange(0..<gridLocation.idBytes, with: be(id, gridLocation.idBytes))
            let newIloc = box("iloc", Array(p[iloc.box.body.lowerBound..<iloc.countField.lowerBound])
                + be(UInt32(iloc.count + 1), iloc.countField.count)
                + Array(p[iloc.countField.upperBound..<iloc.box.body.upperBound]) + entry)

            var body = Array(p[header])
            for child in children {
                switch child.range {
                case iinf.box.range: body += newIinf
                case iref.box.range: body += newIref
                case iprp.range: body += newIprp
                case iloc.box.range: body += newIloc
                default: body += Array(p[child.range])
                }
            }
            return box("meta", body)
        }

        private func property(_ index: Int) -> UInt32? {
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }

        /// The auxiliary types that mean alpha (MIAF's and HEVC's).
        private static let alphaURNs: Set<String> = ["urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "urn:mpeg:hevc:2015:auxid:1"]
    }

    // MARK: - Bytes

    private static func box(_ type: StaticString, _ body: [UInt8]) -> [UInt8] {
        be(UInt32(8 + body.count), 4) + be(fourCC(type), 4) + body
    }

    private static func fullBoxHeader(version: UInt8) -> [UInt8] { [version, 0, 0, 0] }

    /// `value`'s low `bytes` bytes, big-endian.
    private static func be(_ value: UInt32, _ bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func fourCC(_ s: StaticString) -> UInt32 { ISOBMFFBox.fourCC(s) }
}
