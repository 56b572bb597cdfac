/// Finds the elements of one top-level JSON array in a stream of bytes without parsing
/// them: it tracks only strings (with their escapes) and bracket depth, so each element's
/// bytes can go to a real JSON parser alone and a list of any length costs one element
/// of memory. Malformed JSON is left for that parser to reject; the splitter only needs
/// to stay bounded: an element longer than ``maxElementBytes`` or nested deeper than
/// ``maxDepth`` is an error.
///
/// **Threads.** Blocking, like the file under it: the row reader's queue only.
struct JSONArraySplitter {
    static let maxElementBytes = 16 * 1024 * 1024
    static let maxDepth = 512

    private let file: GzipFile
    private var buffer: [UInt8] = []
    private var position = 0
    private var isAtEnd = false
    private var state = State.beforeArray
    /// Elements returned so far.
    private(set) var count = 0

    private enum State { case beforeArray, inArray, done }

    /// `prefix`: bytes already read from `file` (to tell an array from an object).
    init(file: GzipFile, prefix: [UInt8] = []) {
        self.file = file
        buffer = prefix
    }

    /// The next element's bytes, or `nil` after the closing bracket.
    mutating func next() throws(DatasetInputError) -> [UInt8]? {
        if state == .beforeArray {
            guard let first = try nextSignificantByte() else {
                throw DatasetInputError("\(file.path) is empty: a JSON array is needed")
            }
            guard first == UInt8(ascii: "[") else { throw DatasetInputError("\(file.path) is not a JSON array") }
            position += 1
            state = .inArray
            if try nextSignificantByte() == UInt8(ascii: "]") {
                position += 1
                state = .done
            }
        }
        guard state == .inArray else { return nil }
        if count > 0 {
            guard let separator = try nextSignificantByte() else { throw truncated() }
            if separator == UInt8(ascii: "]") {
                position += 1
                state = .done
                return nil
            }
            guard separator == UInt8(ascii: ",") else {
                throw DatasetInputError("\(file.path): expected , or ] after element \(count)")
            }
            position += 1
        }
        guard try nextSignificantByte() != nil else { throw truncated() }
        let element = try takeElement()
        count += 1
        return element
    }

    private func truncated() -> DatasetInputError {
        DatasetInputError("\(file.path) ends inside the JSON array (after element \(count))")
    }

    /// Skips whitespace; the byte at `position` after it, or `nil` at the end of the file.
    private mutating func nextSignificantByte() throws(DatasetInputError) -> UInt8? {
        while true {
            while position < buffer.count {
                switch buffer[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return buffer[position]
                }
            }
            guard try fill() else { return nil }
        }
    }

    /// The bytes of the value starting at `position`, up to the `,` or `]` that ends it
    /// (which stays at `position`).
    private mutating func takeElement() throws(DatasetInputError) -> [UInt8] {
        var start = position
        var depth = 0
        var inString = false
        var escaped = false
        var i = start
        while true {
            if i >= buffer.count {
                if i - start > Self.maxElementBytes {
                    throw DatasetInputError("element \(count + 1) of \(file.path) is longer than \(Self.maxElementBytes) bytes")
                }
                // Keep the element's bytes, moved to the buffer's start, and read on.
                if start > 0 {
                    buffer.removeSubrange(0..<start)
                    i -= start
                    start = 0
                    position = 0
                }
                guard try fill() else { throw truncated() }
                continue
            }
            let byte = buffer[i]
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else {
                switch byte {
                case 0x22: inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > Self.maxDepth {
                        throw DatasetInputError("element \(count + 1) of \(file.path) is nested too deeply")
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","):
                    if depth == 0 {
                        position = i
                        return Array(buffer[start..<i])
                    }
                    if byte != UInt8(ascii: ",") { depth -= 1 }
                default: break
                }
            }
            i += 1
        }
    }

    /// Reads one more chunk; `false` at the end of the file.
    private mutating func fill() throws(DatasetInputError) -> Bool {
        guard !isAtEnd else { return false }
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        }
        let chunk = try file.read()
        if chunk.isEmpty {
            isAtEnd = true
            return false
        }
        buffer += chunk
        return true
    }
}
