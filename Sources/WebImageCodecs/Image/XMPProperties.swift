import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The simple properties of an XMP packet, grouped by namespace prefix as imgproxy Pro's
/// `/info` shows them: `{"dc": {"creator": ["…"], "format": "image/jpeg"}, "aux": {…}}`.
///
/// A property is an attribute or a child element of a top-level `rdf:Description`; its
/// value is its text, the items of an `rdf:Bag` or `rdf:Seq` as a list, or the first
/// item of an `rdf:Alt` (the `x-default` language). Structures (nested descriptions,
/// `rdf:parseType="Resource"`) are left out. A packet with a DTD is refused (XMP has
/// none; entity definitions are how XML bombs work), as is one over 4 MiB. Runs on the
/// caller's thread.
public enum XMPProperties {
    /// A property's value.
    public enum Value: Sendable, Hashable {
        case text(String)
        case list([String])
    }

    /// The largest packet parsed.
    public static let maxBytes = 4 << 20

    /// Prefix → property name → value; empty for a packet that is not XML.
    public static func parse(_ packet: [UInt8]) -> [String: [String: Value]] {
        let trimmed = packet.reversed().drop { $0 == 0 || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }.reversed()
        guard !trimmed.isEmpty, trimmed.count <= maxBytes else { return [:] }
        let data = Data(trimmed)
        guard data.range(of: Data("<!DOCTYPE".utf8)) == nil, data.range(of: Data("<!ENTITY".utf8)) == nil else { return [:] }
        let collector = Collector()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = collector
        _ = parser.parse()
        return collector.result
    }

    /// The SAX callbacks: a small state machine over the element stack.
    private final class Collector: NSObject, XMLParserDelegate {
        var result: [String: [String: Value]] = [:]
        private var depth = 0
        /// Depth of the `rdf:Description` whose children are properties.
        private var descriptionDepth: Int?
        private struct Property {
            var prefix: String
            var name: String
            var depth: Int
            var text = ""
            var items: [String] = []
            var isList = false
            var isAlt = false
            var isStructure = false
            var itemText: String?
        }
        private var property: Property?

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            depth += 1
            if var current = property {
                switch element {
                case "rdf:Bag", "rdf:Seq": current.isList = true
                case "rdf:Alt": current.isAlt = true
                case "rdf:li": current.itemText = ""
                default: current.isStructure = true
                }
                property = current
                return
            }
            if element == "rdf:Description", descriptionDepth == nil {
                descriptionDepth = depth
                for (name, value) in attributes {
                    guard let (prefix, local) = Self.split(name), prefix != "rdf", prefix != "xmlns", prefix != "xml" else { continue }
                    result[prefix, default: [:]][local] = .text(value)
                }
                return
            }
            if let descriptionDepth, depth == descriptionDepth + 1, let (prefix, local) = Self.split(element) {
                var started = Property(prefix: prefix, name: local, depth: depth)
                if attributes["rdf:parseType"] == "Resource" { started.isStructure = true }
                property = started
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard var current = property else { return }
            if current.itemText != nil { current.itemText? += string } else { current.text += string }
            property = current
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if var current = property {
                if element == "rdf:li", let item = current.itemText {
                    current.items.append(item.trimmingCharacters(in: .whitespacesAndNewlines))
                    current.itemText = nil
                    property = current
                } else if depth == current.depth {
                    property = nil
                    guard !current.isStructure else { return }
                    let value: Value
                    if current.isList {
                        value = .list(current.items)
                    } else if current.isAlt {
                        guard let first = current.items.first else { return }
                        value = .text(first)
                    } else {
                        value = .text(current.text.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                    result[current.prefix, default: [:]][current.name] = value
                }
                return
            }
            if depth == descriptionDepth { descriptionDepth = nil }
        }

        /// `prefix:local`, or `nil` without a prefix.
        private static func split(_ name: String) -> (String, String)? {
            guard let colon = name.firstIndex(of: ":") else { return nil }
            let prefix = String(name[..<colon]), local = String(name[name.index(after: colon)...])
            return prefix.isEmpty || local.isEmpty ? nil : (prefix, local)
        }
    }
}
