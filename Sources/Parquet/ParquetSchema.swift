/// One leaf column of a parquet file's schema, as the reader sees it.
public struct ParquetColumnDescriptor: Sendable, Equatable {
    /// The column's name (for a flat schema, its only path element).
    public var name: String
    /// The path from the root, one element per group level; `[name]` in a flat schema.
    public var path: [String]
    public var physicalType: ParquetPhysicalType
    /// True when the column may hold nulls (OPTIONAL).
    public var isOptional: Bool
    /// True when the file marks the bytes as UTF-8 text (STRING logical type or UTF8 converted type).
    public var isString: Bool
    /// The definition and repetition levels' maxima, from the path's repetition types.
    var maxDefinitionLevel: Int
    var maxRepetitionLevel: Int
    /// The column's position among the leaves: its chunk's index in each row group.
    var leafIndex: Int
}

/// A parquet schema flattened to its leaves.
struct ParquetSchemaTree {
    var leaves: [ParquetColumnDescriptor] = []

    /// Walks the depth-first list of schema elements; the first is the root.
    init(_ elements: [ParquetSchemaElement]) throws(ParquetError) {
        guard let root = elements.first else { throw .invalidMetadata("empty schema") }
        var index = 1
        try walk(elements, &index, children: root.numChildren ?? 0, path: [], definition: 0, repetition: 0, depth: 0)
        guard index == elements.count else {
            throw .invalidMetadata("schema lists \(elements.count) elements, its tree holds \(index)")
        }
    }

    private mutating func walk(
        _ elements: [ParquetSchemaElement], _ index: inout Int, children: Int32,
        path: [String], definition: Int, repetition: Int, depth: Int
    ) throws(ParquetError) {
        guard depth < 32 else { throw .invalidMetadata("schema nested deeper than 32") }
        guard children >= 0 else { throw .invalidMetadata("negative child count \(children)") }
        for _ in 0..<children {
            guard index < elements.count else {
                throw .invalidMetadata("schema declares more children than its \(elements.count) elements")
            }
            let element = elements[index]
            index += 1
            let repetitionType = element.repetitionType ?? 0
            let definition = definition + (repetitionType == 0 ? 0 : 1)
            let repetition = repetition + (repetitionType == 2 ? 1 : 0)
            let path = path + [element.name]
            if let count = element.numChildren, count > 0 {
                try walk(elements, &index, children: count, path: path, definition: definition,
                         repetition: repetition, depth: depth + 1)
            } else {
                guard let raw = element.type, let type = ParquetPhysicalType(rawValue: raw) else {
                    throw .invalidMetadata("leaf \(path.joined(separator: ".")) has no valid physical type")
                }
                leaves.append(ParquetColumnDescriptor(
                    name: path.joined(separator: "."), path: path, physicalType: type,
                    isOptional: repetitionType == 1, isString: element.isString,
                    maxDefinitionLevel: definition, maxRepetitionLevel: repetition, leafIndex: leaves.count))
            }
        }
    }
}
