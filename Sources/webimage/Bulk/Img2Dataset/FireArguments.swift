/// Translates an img2dataset command line (Python Fire's rules, fire 0.4–0.7, as
/// `fire.Fire(download)` applies them) into named values, before any typing.
///
/// Fire's rules, which this follows:
/// - `--name=value` and `--name value` set a parameter; dashes in a name read as
///   underscores (`--url-list` is `--url_list`); one or two leading dashes.
/// - `--name` followed by nothing or by another flag is `True`; `--noname` so placed is
///   `False` (Fire's boolean spelling, for any parameter).
/// - `-x` is a shortcut for the one parameter starting with `x`, if only one does.
/// - Words that are not flags fill the parameters in their order, skipping those already
///   named (`img2dataset urls.txt` sets `url_list`).
/// - A parameter given twice keeps its last value.
///
/// Values are read by ``FireValue``. An unknown name or one word too many is an error
/// naming it (Fire's own message is only a usage screen).
struct FireArguments: Sendable {
    /// What was given, by parameter name.
    private(set) var values: [String: FireValue] = [:]
    /// The spelling each parameter was given with, for messages.
    private(set) var spellings: [String: String] = [:]

    struct UsageError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// `parameters` in the function's order (for positional words).
    init(_ arguments: [String], parameters: [String]) throws(UsageError) {
        let known = Set(parameters)
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard Self.isFlag(argument) else {
                positional.append(argument)
                continue
            }
            let stripped = argument.drop { $0 == "-" }
            let hasEquals = stripped.contains("=")
            var key = String(hasEquals ? stripped.prefix { $0 != "=" } : stripped).replacingOccurrences(of: "-", with: "_")
            let isBoolSyntax = !hasEquals && (index == arguments.count || Self.isFlag(arguments[index]))
            var value: String
            if hasEquals {
                value = String(stripped.drop { $0 != "=" }.dropFirst())
            } else if isBoolSyntax {
                value = "True"
            } else {
                value = arguments[index]
                index += 1
            }
            if !known.contains(key) {
                if isBoolSyntax, key.hasPrefix("no"), known.contains(String(key.dropFirst(2))) {
                    key = String(key.dropFirst(2))
                    value = "False"
                } else if key.count == 1 {
                    let matches = parameters.filter { $0.hasPrefix(key) }
                    if matches.count > 1 {
                        throw UsageError(description: "The argument '\(argument)' is ambiguous as it could refer to any of "
                            + "the following arguments: \(matches.joined(separator: ", "))")
                    }
                    guard let only = matches.first else { throw Self.unknown(argument, key) }
                    key = only
                } else {
                    throw Self.unknown(argument, key)
                }
            }
            values[key] = FireValue(parsing: value)
            spellings[key] = argument
        }
        var free = parameters.filter { values[$0] == nil }.makeIterator()
        for word in positional {
            guard let name = free.next() else {
                throw UsageError(description: "unexpected argument '\(word)': every parameter of img2dataset's download() "
                    + "is already given")
            }
            values[name] = FireValue(parsing: word)
            spellings[name] = word
        }
    }

    /// Fire's test: a leading `--`, or `-` and a letter (`-1` is a number, not a flag).
    static func isFlag(_ argument: String) -> Bool {
        if argument.hasPrefix("--") { return true }
        guard argument.hasPrefix("-"), let second = argument.dropFirst().first else { return false }
        return second.isASCII && second.isLetter
    }

    private static func unknown(_ argument: String, _ key: String) -> UsageError {
        UsageError(description: "unknown option '\(argument)': img2dataset 1.47's download() has no parameter '\(key)' "
            + "(see webimage img2dataset --help)")
    }
}
