#if canImport(Glibc)
import CXattr
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Extended data: a small blob per entry, kept in a `user.` extended attribute of the
/// entry file so it goes wherever the file goes, or in a hidden sidecar file
/// (`.<entry name>.extended`) where the file system refuses extended attributes.
extension DiskCache {
    /// The extended attribute holding an entry's extended data.
    public static let extendedAttributeName = "user.webimage.extended"

    func sidecarPath(forName name: String) -> String {
        path + "/" + Self.sidecarName(forName: name)
    }

    static func sidecarName(forName name: String) -> String { "." + name + ".extended" }

    static func entryName(forSidecar name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(".extended"), name.count > 10 else { return nil }
        return String(name.dropFirst().dropLast(9))
    }

    func extendedDataSync(forKey key: String) -> Data? {
        let name = CacheKey.fileName(for: key)
        for directory in [path] + config.additionalCachePaths {
            let file = directory + "/" + name
            guard access(file, F_OK) == 0 else { continue }
            if config.usesExtendedAttributes, let data = Self.getAttribute(file) { return data }
            return Self.readSidecar(in: directory, forName: name)
        }
        return nil
    }

    /// The sidecar of entry `name` in `directory`, or `nil` when it has none.
    static func readSidecar(in directory: String, forName name: String) -> Data? {
        guard case .data(let data, _) = readFile(atPath: directory + "/" + sidecarName(forName: name)) else { return nil }
        return data
    }

    func setExtendedDataSync(_ data: Data?, forKey key: String) throws(WebImageError) {
        let name = CacheKey.fileName(for: key)
        let file = path + "/" + name
        guard access(file, F_OK) == 0 else {
            throw WebImageError(.cacheIOFailed, "No cache entry for the key \(key.redactedURLForLog) to attach extended data to")
        }
        let sidecar = sidecarPath(forName: name)
        guard let data else {
            Self.removeAttribute(file)
            unlink(sidecar)
            return
        }
        if config.usesExtendedAttributes {
            let status = data.withUnsafeBytes { Self.setAttribute(file, $0) }
            if status == 0 {
                unlink(sidecar)
                return
            }
            let code = errno
            // No xattr support, or a value too large for this file system: use the sidecar.
            guard code == ENOTSUP || code == EOPNOTSUPP || code == E2BIG || code == ENOSPC || code == ERANGE else {
                throw Self.ioError("set extended data on \(file)", code: code)
            }
        }
        try writeFileAtomically(data, toPath: sidecar)
        Self.removeAttribute(file)
    }

    // MARK: Platform calls

    static func getAttribute(_ file: String, name: String = extendedAttributeName) -> Data? {
        readAttribute { buffer, size in platformGetAttribute(file, name, buffer, size) }
    }

    /// The extended data of an open file, or `nil` when it has none.
    static func getAttribute(descriptor fd: Int32) -> Data? {
        readAttribute { buffer, size in
            #if canImport(Darwin)
            fgetxattr(fd, extendedAttributeName, buffer, size, 0, 0)
            #else
            fgetxattr(fd, extendedAttributeName, buffer, size)
            #endif
        }
    }

    /// An attribute's value through `get` (a `getxattr` call: a size query with no buffer,
    /// then the read).
    private static func readAttribute(_ get: (UnsafeMutableRawPointer?, Int) -> Int) -> Data? {
        for _ in 0..<3 {  // retry if the value grows between the size query and the read
            let size = get(nil, 0)
            guard size >= 0 else { return nil }
            if size == 0 { return Data() }
            var data = Data(count: size)
            let read = data.withUnsafeMutableBytes { get($0.baseAddress, size) }
            if read >= 0 {
                data.count = read
                return data
            }
            if errno != ERANGE { return nil }
        }
        return nil
    }

    private static func platformGetAttribute(
        _ file: String, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int
    ) -> Int {
        #if canImport(Darwin)
        getxattr(file, name, buffer, size, 0, 0)
        #else
        getxattr(file, name, buffer, size)
        #endif
    }

    static func setAttribute(_ file: String, _ bytes: UnsafeRawBufferPointer, name: String = extendedAttributeName) -> Int32 {
        #if canImport(Darwin)
        setxattr(file, name, bytes.baseAddress, bytes.count, 0, 0)
        #else
        setxattr(file, name, bytes.baseAddress, bytes.count, 0)
        #endif
    }

    /// Sets the extended data on an open file (a new entry before it is linked in).
    static func setAttribute(descriptor fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        #if canImport(Darwin)
        fsetxattr(fd, extendedAttributeName, bytes.baseAddress, bytes.count, 0, 0)
        #else
        fsetxattr(fd, extendedAttributeName, bytes.baseAddress, bytes.count, 0)
        #endif
    }

    static func removeAttribute(_ file: String) {
        #if canImport(Darwin)
        _ = removexattr(file, extendedAttributeName, 0)
        #else
        _ = removexattr(file, extendedAttributeName)
        #endif
    }
}
