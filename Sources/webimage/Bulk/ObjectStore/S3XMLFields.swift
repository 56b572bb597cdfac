import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The text of chosen elements of an S3 XML answer (`ListObjectsV2`'s `Key`s,
/// `CreateMultipartUpload`'s `UploadId`, an error's `Code` and `Message`), at any depth,
/// in document order, read with Foundation's `XMLParser` (libxml2), as the codecs read XMP.
///
/// S3's answers are flat enough that element names alone say what a value is; no DTD or
/// entity is ever resolved. Pure computation on the caller's thread.
struct S3XMLFields {
    private(set) var values: [String: [String]] = [:]

    /// The fields named in `names` found in `data`; empty for a body that is not XML.
    init(_ data: Data, names: Set<String>) {
        guard data.range(of: Data("<!DOCTYPE".utf8)) == nil else { return }
        let collector = Collector(names: names)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = collector
        _ = parser.parse()
        values = collector.values
    }

    /// The first value of `name`.
    func first(_ name: String) -> String? { values[name]?.first }

    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The SAX callbacks: text is gathered while inside a wanted element (libxml2 may hand
    /// it over in pieces).
    private final class Collector: NSObject, XMLParserDelegate {
        let names: Set<String>
        var values: [String: [String]] = [:]
        private var current: (name: String, text: String)?

        init(names: Set<String>) { self.names = names }

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            if names.contains(element) { current = (element, "") }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            current?.text += string
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            guard let open = current, open.name == element else { return }
            values[element, default: []].append(open.text)
            current = nil
        }
    }
}
