/// The application record (record 2) of IPTC-IIM data, as name/values pairs.
///
/// Names follow imgproxy Pro's `/info` documentation where it shows them (`Name` for
/// the object name 2:05, `Keywords` 2:25, `Copyright Notice` 2:116, `Caption` 2:120) and
/// the IIM 4.2 specification's dataset names otherwise. Datasets IIM marks repeatable
/// (keywords, categories, by-lines, contacts) are lists; others keep their first value.
/// Values are UTF-8 text (ISO 8859-1 where the bytes are not UTF-8). Unknown datasets are
/// left out. Runs on the caller's thread.
public enum IPTCDatasets {
    /// One dataset: its name, number, whether it repeats, and its values in file order.
    public struct Dataset: Sendable, Hashable {
        public var number: Int
        public var name: String
        public var isRepeatable: Bool
        public var values: [String]
    }

    /// The record-2 datasets of `block` (`0x1C`, record, dataset, 2-byte length, value…),
    /// in order of first appearance; parsing stops at the first malformed tag.
    public static func parse(_ block: [UInt8]) -> [Dataset] {
        var datasets: [Dataset] = []
        var index: [Int: Int] = [:]
        var i = 0
        while i + 5 <= block.count, block[i] == 0x1C {
            let record = Int(block[i + 1]), number = Int(block[i + 2])
            let length = Int(block[i + 3]) << 8 | Int(block[i + 4])
            // Extended lengths (high bit set) are for large binary datasets: none named here.
            guard length & 0x8000 == 0, i + 5 + length <= block.count else { break }
            let value = Array(block[(i + 5)..<(i + 5 + length)])
            i += 5 + length
            guard record == 2, let known = names[number] else { continue }
            let text = String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) })
            if let at = index[number] {
                if known.repeatable { datasets[at].values.append(text) }
            } else {
                index[number] = datasets.count
                datasets.append(Dataset(number: number, name: known.name, isRepeatable: known.repeatable, values: [text]))
            }
        }
        return datasets
    }

    /// Dataset number → name and whether it repeats.
    static let names: [Int: (name: String, repeatable: Bool)] = [
        5: ("Name", false), 7: ("Edit Status", false), 10: ("Urgency", false), 12: ("Subject Reference", true),
        15: ("Category", false), 20: ("Supplemental Category", true), 22: ("Fixture Identifier", false),
        25: ("Keywords", true), 26: ("Content Location Code", true), 27: ("Content Location Name", true),
        30: ("Release Date", false), 35: ("Release Time", false), 37: ("Expiration Date", false),
        38: ("Expiration Time", false), 40: ("Special Instructions", false), 55: ("Date Created", false),
        60: ("Time Created", false), 62: ("Digital Creation Date", false), 63: ("Digital Creation Time", false),
        65: ("Originating Program", false), 70: ("Program Version", false), 75: ("Object Cycle", false),
        80: ("By-line", true), 85: ("By-line Title", true), 90: ("City", false), 92: ("Sub-location", false),
        95: ("Province/State", false), 100: ("Country Code", false), 101: ("Country Name", false),
        103: ("Original Transmission Reference", false), 105: ("Headline", false), 110: ("Credit", false),
        115: ("Source", false), 116: ("Copyright Notice", false), 118: ("Contact", true), 120: ("Caption", false),
        122: ("Writer/Editor", true),
    ]
}
