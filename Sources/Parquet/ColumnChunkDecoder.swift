/// Decodes the pages of one column chunk (already in memory) into a ``ParquetColumn``.
///
/// Dictionary values come first in the value buffers, so dictionary indices are value
/// indices; plain pages (a writer's fallback when the dictionary grew too big) append after them.
struct ColumnChunkDecoder {
    let descriptor: ParquetColumnDescriptor
    let codec: ParquetCompression
    let expectedRows: Int
    let limits: ParquetFileReader.Limits

    /// The chunk as read from the file.
    private let chunk: ByteHeap
    /// Where pages are decompressed to and byte-array values point into: the chunk itself
    /// when the chunk is stored uncompressed.
    private let heap: ByteHeap
    private var slots: [Int32] = []
    private var starts: [Int] = []
    private var lengths: [UInt32] = []
    private var int32s: [Int32] = []
    private var int64s: [Int64] = []
    private var floats: [Float] = []
    private var doubles: [Double] = []
    private var booleans: [Bool] = []
    private var valueCount = 0
    private var dictionarySize: Int?

    /// `chunk` holds the chunk's bytes; `uncompressedSize` is the metadata's total uncompressed
    /// size (a hint, capped by the caller), the decompression buffer's first capacity.
    init(
        descriptor: ParquetColumnDescriptor, codec: ParquetCompression, chunk: ByteHeap,
        uncompressedSize: Int, expectedRows: Int, limits: ParquetFileReader.Limits
    ) {
        self.descriptor = descriptor
        self.codec = codec
        self.chunk = chunk
        // Byte arrays keep every page (their values point into them); other columns reuse the
        // room of one page, so they start small.
        let isBytes = descriptor.physicalType == .byteArray
        heap = codec == .uncompressed ? chunk : ByteHeap(capacity: isBytes ? uncompressedSize : min(uncompressedSize, 1 << 20))
        self.expectedRows = expectedRows
        self.limits = limits
        // What the chunk's size allows at most (a byte holds eight null levels, RLE far more,
        // so this is a first guess that grows): never the declared row count unchecked.
        slots.reserveCapacity(min(expectedRows, chunk.count * 8 + 1024))
    }

    private var name: String { descriptor.name }
    private func fail(_ reason: String) -> ParquetError { .corruptPage(column: name, reason: reason) }

    /// Decodes every page of `chunk` and returns the column.
    consuming func decode() throws(ParquetError) -> ParquetColumn {
        // The chunk's own length: DELTA_BYTE_ARRAY values are appended to the heap, which
        // is the chunk itself when it is stored uncompressed (so its bytes are fetched anew per page).
        let chunkLength = chunk.count
        var position = 0
        while slots.count < expectedRows {
            let chunk = UnsafeRawBufferPointer(rebasing: self.chunk.bytes[0..<chunkLength])
            guard position < chunk.count else {
                throw fail("chunk ends after \(slots.count) of the row group's \(expectedRows) values")
            }
            let (header, headerLength) = try ParquetPageHeader.decode(chunk, at: position)
            let bodyStart = position + headerLength
            let bodyLength = Int(header.compressedSize)
            guard bodyLength <= chunk.count - bodyStart else {
                throw .pagePastChunk(column: name, offset: bodyStart, length: bodyLength, chunkLength: chunk.count)
            }
            guard Int(header.uncompressedSize) <= limits.maxPageSize else {
                throw .sizeLimit(what: "column \(name): page", size: Int(header.uncompressedSize), limit: limits.maxPageSize)
            }
            let body = bodyStart..<bodyStart + bodyLength
            position = bodyStart + bodyLength
            switch ParquetPageType(rawValue: header.type) {
            case .dictionaryPage: try dictionaryPage(header, body)
            case .dataPage: try dataPageV1(header, body)
            case .dataPageV2: try dataPageV2(header, body)
            case .indexPage, nil: continue  // Not data: skipped, as the format allows.
            }
        }
        let values: ParquetColumn.Values = switch descriptor.physicalType {
        case .byteArray: .bytes
        case .int32: .int32(int32s)
        case .int64: .int64(int64s)
        case .float: .float(floats)
        case .double: .double(doubles)
        case .boolean: .boolean(booleans)
        case .int96, .fixedLenByteArray: .bytes
        }
        // Only byte-array values live in the heap: other columns let it go with the decoder.
        let kept = descriptor.physicalType == .byteArray ? heap : ByteHeap(capacity: 0)
        return ParquetColumn(descriptor: descriptor, slots: slots, heap: kept, starts: starts, lengths: lengths, values: values)
    }

    /// The page (`range` of the chunk) decompressed, and where it starts in the heap. Byte-array
    /// columns keep the page in the heap (their values point into it); other columns give the
    /// room back (``release(_:)``) once their values are copied out.
    ///
    /// Not a closure-taking helper on purpose: a non-mutating call holding `self` while a
    /// closure mutates it would copy the value buffers on every page.
    private func page(
        _ range: Range<Int>, codec: ParquetCompression, uncompressedSize: Int
    ) throws(ParquetError) -> (page: UnsafeRawBufferPointer, base: Int) {
        guard uncompressedSize >= 0 else { throw fail("negative uncompressed page size") }
        if codec == .uncompressed && heap === chunk {
            guard range.count == uncompressedSize else {
                throw .decompressedSizeMismatch(codec: "\(codec)", expected: uncompressedSize, actual: range.count)
            }
            return (UnsafeRawBufferPointer(rebasing: chunk.bytes[range]), range.lowerBound)
        }
        let mark = heap.count
        heap.reserve(uncompressedSize)
        let target = UnsafeMutableRawBufferPointer(rebasing: heap.tail[0..<uncompressedSize])
        try PageCodec.decompress(UnsafeRawBufferPointer(rebasing: chunk.bytes[range]), codec: codec, into: target)
        heap.count += uncompressedSize
        return (UnsafeRawBufferPointer(target), mark)
    }

    /// Gives a decompressed page's room back when no value points into it.
    private func release(_ base: Int) {
        if heap !== chunk && descriptor.physicalType != .byteArray { heap.count = base }
    }

    private mutating func dictionaryPage(_ header: ParquetPageHeader, _ body: Range<Int>) throws(ParquetError) {
        guard header.sawKindHeader, header.numValues >= 0 else { throw fail("dictionary page without its header") }
        guard dictionarySize == nil, valueCount == 0 else { throw fail("dictionary page after data pages") }
        guard header.encoding == ParquetEncoding.plain.rawValue || header.encoding == ParquetEncoding.plainDictionary.rawValue
        else { throw .unsupported("column \(name): dictionary page encoding \(header.encoding)") }
        let count = Int(header.numValues)
        let (page, base) = try page(body, codec: codec, uncompressedSize: Int(header.uncompressedSize))
        defer { release(base) }
        try appendPlain(page, from: 0, count: count, heapBase: base)
        dictionarySize = count
    }

    private mutating func dataPageV1(_ header: ParquetPageHeader, _ body: Range<Int>) throws(ParquetError) {
        let count = try pageValueCount(header)
        let (page, base) = try page(body, codec: codec, uncompressedSize: Int(header.uncompressedSize))
        defer { release(base) }
        var position = 0
        var levels: [UInt32]?
        if descriptor.maxDefinitionLevel > 0 {
            guard header.definitionLevelEncoding == ParquetEncoding.rle.rawValue else {
                throw .unsupported("column \(name): definition level encoding \(header.definitionLevelEncoding)")
            }
            guard page.count >= 4 else { throw fail("definition levels' length truncated") }
            let length = Int(UInt32(littleEndian: page.loadUnaligned(as: UInt32.self)))
            guard length <= page.count - 4 else { throw fail("definition levels of \(length) bytes past the page") }
            levels = try decodeLevels(page, 4..<4 + length, count: count)
            position = 4 + length
        }
        try appendValues(page, from: position, encoding: header.encoding, count: count, levels: levels, heapBase: base)
    }

    private mutating func dataPageV2(_ header: ParquetPageHeader, _ body: Range<Int>) throws(ParquetError) {
        let count = try pageValueCount(header)
        let repetitionLength = Int(header.repetitionLevelsLength)
        let definitionLength = Int(header.definitionLevelsLength)
        guard repetitionLength >= 0, definitionLength >= 0, repetitionLength + definitionLength <= body.count,
              repetitionLength + definitionLength <= Int(header.uncompressedSize)
        else { throw fail("v2 level lengths \(repetitionLength)+\(definitionLength) past the page") }
        var levels: [UInt32]?
        if descriptor.maxDefinitionLevel > 0 {
            let levelStart = body.lowerBound + repetitionLength
            levels = try decodeLevels(chunk.bytes, levelStart..<levelStart + definitionLength, count: count)
        }
        let valuesStart = repetitionLength + definitionLength
        let values = body.lowerBound + valuesStart..<body.upperBound
        let valuesCodec = header.isCompressed ? codec : .uncompressed
        let (page, base) = try page(values, codec: valuesCodec, uncompressedSize: Int(header.uncompressedSize) - valuesStart)
        defer { release(base) }
        try appendValues(page, from: 0, encoding: header.encoding, count: count, levels: levels, heapBase: base)
    }

    private func pageValueCount(_ header: ParquetPageHeader) throws(ParquetError) -> Int {
        guard header.sawKindHeader, header.numValues >= 0 else { throw fail("data page without its header") }
        let count = Int(header.numValues)
        guard count <= expectedRows - slots.count else {
            throw fail("pages hold more than the row group's \(expectedRows) values")
        }
        return count
    }

    private func decodeLevels(_ page: UnsafeRawBufferPointer, _ range: Range<Int>, count: Int) throws(ParquetError) -> [UInt32] {
        let width = Int.bitWidth - descriptor.maxDefinitionLevel.leadingZeroBitCount
        var decoder = try RLEHybridDecoder(page, range: range, bitWidth: width, column: name)
        // None to read; and for a capacity of 0 the uninitialized-capacity initialiser
        // writes the standard library's shared empty-array storage, a data race between threads.
        guard count > 0 else { return [] }
        var failure: ParquetError?
        let levels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ParquetError) {
                try decoder.decode(into: buffer)
                initialized = count
            } catch {
                failure = error
                buffer.initialize(repeating: 0)
                initialized = count
            }
        }
        if let failure { throw failure }
        return levels
    }

    /// Appends `count` rows' values: the non-null ones decoded by `encoding`, the rest as nulls.
    private mutating func appendValues(
        _ page: UnsafeRawBufferPointer, from start: Int, encoding: Int32, count: Int, levels: [UInt32]?, heapBase: Int
    ) throws(ParquetError) {
        let maxLevel = UInt32(descriptor.maxDefinitionLevel)
        var present = count
        if let levels {
            present = 0
            for level in levels {
                if level == maxLevel { present += 1 } else if level > maxLevel {
                    throw fail("definition level \(level) over the column's \(maxLevel)")
                }
            }
        }
        guard valueCount + present <= Int(Int32.max) else {
            throw .sizeLimit(what: "column \(name): values", size: valueCount + present, limit: Int(Int32.max))
        }
        switch ParquetEncoding(rawValue: encoding) {
        case .plain:
            let base = valueCount
            try appendPlain(page, from: start, count: present, heapBase: heapBase)
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        case .plainDictionary, .rleDictionary:
            guard let dictionarySize else { throw fail("dictionary-encoded page without a dictionary page") }
            var indices = [UInt32](repeating: 0, count: present)
            if present > 0 {
                guard start < page.count else { throw fail("dictionary indices' bit width missing") }
                var decoder = try RLEHybridDecoder(page, range: start + 1..<page.count, bitWidth: Int(page[start]), column: name)
                try indices.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt32>) throws(ParquetError) in
                    try decoder.decode(into: buffer)
                }
            }
            for index in indices where index >= dictionarySize {
                throw .dictionaryIndexOutOfRange(column: name, index: Int(index), dictionarySize: dictionarySize)
            }
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(truncatingIfNeeded: indices[$0]) }
        case .rle where descriptor.physicalType == .boolean:
            guard page.count - start >= 4 else { throw fail("RLE booleans' length truncated") }
            let length = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
            guard length <= page.count - start - 4 else { throw fail("RLE booleans of \(length) bytes past the page") }
            var bits = [UInt32](repeating: 0, count: present)
            var decoder = try RLEHybridDecoder(page, range: start + 4..<start + 4 + length, bitWidth: 1, column: name)
            try bits.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt32>) throws(ParquetError) in
                try decoder.decode(into: buffer)
            }
            let base = valueCount
            booleans.append(contentsOf: bits.lazy.map { $0 != 0 })
            valueCount += present
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        case .deltaBinaryPacked where descriptor.physicalType == .int32 || descriptor.physicalType == .int64:
            let (values, _) = try DeltaBinaryPackedDecoder.decode(page, from: start, count: present, column: name)
            let base = valueCount
            if descriptor.physicalType == .int32 {
                int32s.append(contentsOf: values.lazy.map { Int32(truncatingIfNeeded: $0) })
            } else {
                int64s.append(contentsOf: values)
            }
            valueCount += present
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        case .byteStreamSplit where descriptor.physicalType != .byteArray && descriptor.physicalType != .boolean:
            let base = valueCount
            try appendByteStreamSplit(page, from: start, count: present)
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        case .deltaLengthByteArray where descriptor.physicalType == .byteArray:
            // The lengths, then every value's bytes one after the other: slices of the page.
            let (sizes, end) = try DeltaBinaryPackedDecoder.decode(page, from: start, count: present, column: name)
            var position = end
            starts.grow(by: present)
            lengths.grow(by: present)
            for size in sizes {
                guard size >= 0, size <= Int64(page.count - position), size <= Int64(UInt32.max) else {
                    throw fail("DELTA_LENGTH_BYTE_ARRAY value of \(size) bytes past the page")
                }
                starts.append(heapBase + position)
                lengths.append(UInt32(size))
                position += Int(size)
            }
            let base = valueCount
            valueCount += present
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        case .deltaByteArray where descriptor.physicalType == .byteArray:
            try appendDeltaByteArray(page, from: start, present: present)
            let base = valueCount - present
            appendSlots(levels: levels, count: count, maxLevel: maxLevel) { Int32(base + $0) }
        default:
            throw .unsupported("column \(name): value encoding \(encoding)")
        }
    }

    /// BYTE_STREAM_SPLIT: the values' first bytes, then their second bytes, and so on.
    private mutating func appendByteStreamSplit(_ page: UnsafeRawBufferPointer, from start: Int, count: Int) throws(ParquetError) {
        let width = descriptor.physicalType == .float || descriptor.physicalType == .int32 ? 4 : 8
        guard page.count - start >= count * width else {
            throw fail("BYTE_STREAM_SPLIT needs \(count * width) bytes, the page has \(page.count - start)")
        }
        for i in 0..<count {
            var raw: UInt64 = 0
            for k in 0..<width { raw |= UInt64(page[start + k * count + i]) << UInt64(8 * k) }
            switch descriptor.physicalType {
            case .float: floats.append(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))
            case .double: doubles.append(Double(bitPattern: raw))
            case .int32: int32s.append(Int32(bitPattern: UInt32(truncatingIfNeeded: raw)))
            default: int64s.append(Int64(bitPattern: raw))
            }
        }
        valueCount += count
    }

    /// DELTA_BYTE_ARRAY: prefix lengths, suffix lengths, suffixes; each value is the previous
    /// one's prefix and its suffix. The values are built apart, then appended to the heap (after
    /// the page, which is not read again: the heap may move).
    private mutating func appendDeltaByteArray(_ page: UnsafeRawBufferPointer, from start: Int, present: Int) throws(ParquetError) {
        let (prefixes, prefixEnd) = try DeltaBinaryPackedDecoder.decode(page, from: start, count: present, column: name)
        let (suffixes, suffixEnd) = try DeltaBinaryPackedDecoder.decode(page, from: prefixEnd, count: present, column: name)
        var built: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(present)
        var position = suffixEnd
        var previous = 0..<0
        for (prefix, suffix) in zip(prefixes, suffixes) {
            guard prefix >= 0, prefix <= Int64(previous.count) else {
                throw fail("DELTA_BYTE_ARRAY prefix of \(prefix) bytes, the previous value has \(previous.count)")
            }
            guard suffix >= 0, suffix <= Int64(page.count - position) else {
                throw fail("DELTA_BYTE_ARRAY suffix of \(suffix) bytes past the page")
            }
            let length = Int(prefix) + Int(suffix)
            // Shared prefixes make the values larger than the page: capped like a page.
            guard built.count + length <= limits.maxPageSize else {
                throw .sizeLimit(what: "column \(name): DELTA_BYTE_ARRAY values", size: built.count + length, limit: limits.maxPageSize)
            }
            let begin = built.count
            for k in 0..<Int(prefix) { built.append(built[previous.lowerBound + k]) }
            built.append(contentsOf: UnsafeRawBufferPointer(rebasing: page[position..<position + Int(suffix)]))
            position += Int(suffix)
            previous = begin..<built.count
            ends.append(built.count)
        }
        let heapStart = heap.count
        built.withUnsafeBytes { heap.append($0) }
        starts.grow(by: present)
        lengths.grow(by: present)
        var begin = 0
        for end in ends {
            starts.append(heapStart + begin)
            lengths.append(UInt32(end - begin))
            begin = end
        }
        valueCount += present
    }

    /// One slot per row: the `k`-th present value's slot by `slot(k)`, -1 for nulls.
    private mutating func appendSlots(levels: [UInt32]?, count: Int, maxLevel: UInt32, _ slot: (Int) -> Int32) {
        guard let levels else {
            for k in 0..<count { slots.append(slot(k)) }
            return
        }
        var k = 0
        for level in levels {
            if level == maxLevel {
                slots.append(slot(k))
                k += 1
            } else {
                slots.append(-1)
            }
        }
    }

    /// Appends `count` PLAIN-encoded values from `page[start...]` to the value buffers (byte
    /// arrays as places in the heap, where the page starts at `heapBase`).
    private mutating func appendPlain(
        _ page: UnsafeRawBufferPointer, from start: Int, count: Int, heapBase: Int
    ) throws(ParquetError) {
        guard valueCount + count <= Int(Int32.max) else { throw .sizeLimit(what: "column \(name): values", size: valueCount + count, limit: Int(Int32.max)) }
        let available = page.count - start
        func need(_ bytes: Int) throws(ParquetError) {
            guard bytes <= available else { throw fail("\(count) plain values need \(bytes) bytes, the page has \(available)") }
        }
        switch descriptor.physicalType {
        case .byteArray:
            // Each value is a 4-byte length and its bytes: at least 4 bytes, checked before reserving.
            try need(count * 4)
            starts.grow(by: count)
            lengths.grow(by: count)
            var position = start
            for _ in 0..<count {
                guard page.count - position >= 4 else { throw fail("byte array length truncated") }
                let length = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: position, as: UInt32.self))
                position += 4
                guard Int(length) <= page.count - position else { throw fail("byte array of \(length) bytes past the page") }
                starts.append(heapBase + position)
                lengths.append(length)
                position += Int(length)
            }
        case .int32:
            try need(count * 4)
            int32s.grow(by: count)
            for i in 0..<count { int32s.append(Int32(littleEndian: page.loadUnaligned(fromByteOffset: start + 4 * i, as: Int32.self))) }
        case .int64:
            try need(count * 8)
            int64s.grow(by: count)
            for i in 0..<count { int64s.append(Int64(littleEndian: page.loadUnaligned(fromByteOffset: start + 8 * i, as: Int64.self))) }
        case .float:
            try need(count * 4)
            floats.grow(by: count)
            for i in 0..<count {
                floats.append(Float(bitPattern: UInt32(littleEndian: page.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self))))
            }
        case .double:
            try need(count * 8)
            doubles.grow(by: count)
            for i in 0..<count {
                doubles.append(Double(bitPattern: UInt64(littleEndian: page.loadUnaligned(fromByteOffset: start + 8 * i, as: UInt64.self))))
            }
        case .boolean:
            try need((count + 7) / 8)
            booleans.grow(by: count)
            for i in 0..<count { booleans.append(page[start + i >> 3] >> UInt8(i & 7) & 1 != 0) }
        case .int96, .fixedLenByteArray:
            throw .unsupported("column \(name): physical type \(descriptor.physicalType)")
        }
        valueCount += count
    }
}

extension Array {
    /// Reserves room for `count` more elements, growing geometrically: reserving the exact
    /// size page after page would copy the whole buffer each time.
    mutating func grow(by count: Int) {
        let needed = self.count + count
        if needed > capacity { reserveCapacity(Swift.max(needed, capacity * 2)) }
    }
}
