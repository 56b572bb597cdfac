/// One value of an img2dataset command line, read the way Python Fire reads it
/// (`fire.parser.DefaultParseValue`): the text is taken as a Python literal in which a bare
/// word stands for its own text, and anything that is not such a literal is the text itself.
///
/// So `256` is an integer, `0.5` and `1e3` are floats, `True`/`False`/`None` are what they
/// say, `'["a","b"]'` and `a,b` are both a list of two strings, `TEXT` is the string
/// `TEXT`, and `/data/urls.txt` (no literal) is that path as a string.
enum FireValue: Sendable, Equatable {
    /// Python's `None`.
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// A Python list or tuple (Fire gives `a,b` as a tuple).
    case list([FireValue])

    /// Parses `text` as Fire does; never fails (the fallback is the text).
    init(parsing text: String) {
        var parser = FireLiteralParser(Array(text.utf8))
        if let value = parser.parseTop() {
            self = value
        } else {
            self = .string(text)
        }
    }

    /// How the value reads back in a message: Python's `repr`.
    var pythonText: String {
        switch self {
        case .null: "None"
        case .bool(let b): b ? "True" : "False"
        case .int(let i): String(i)
        case .double(let d): JSONValue.pythonFloat(d)
        case .string(let s): "'\(s)'"
        case .list(let items): "[" + items.map(\.pythonText).joined(separator: ", ") + "]"
        }
    }
}
