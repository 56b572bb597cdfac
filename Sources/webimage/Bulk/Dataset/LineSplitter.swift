/// Cuts a ``GzipFile``'s bytes into lines (`\n` or `\r\n`), holding one chunk and one
/// line at most. A line longer than ``maxLineBytes`` is an error, not a silent cut.
///
/// **Threads.** Blocking, like the file under it: the row reader's queue only.
struct LineSplitter {
    /// The longest line accepted: 16 MiB, far past any real row.
    static let maxLineBytes = 16 * 1024 * 1024

    private let file: GzipFile
    private var buffer: [UInt8] = []
    private var start = 0
    private var isAtEnd = false
    /// 1-based number of the last line returned, for messages.
    private(set) var lineNumber = 0

    init(file: GzipFile) {
        self.file = file
    }

    /// The next line without its line end, or `nil` at the end of the file.
    mutating func next() throws(DatasetInputError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                var end = newline
                if end > start, buffer[end - 1] == 13 { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                lineNumber += 1
                return line
            }
            if buffer.count - start > Self.maxLineBytes {
                throw DatasetInputError("line \(lineNumber + 1) of \(file.path) is longer than \(Self.maxLineBytes) bytes")
            }
            if isAtEnd {
                guard start < buffer.count else { return nil }
                buffer.append(10)
                continue
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            let chunk = try file.read()
            if chunk.isEmpty { isAtEnd = true } else { buffer += chunk }
        }
    }
}
