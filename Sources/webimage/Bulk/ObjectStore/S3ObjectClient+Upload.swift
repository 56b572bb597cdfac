import Foundation
import NIOCore

extension S3ObjectClient {
    /// Parts uploaded at once in a multipart upload: with 8 MiB parts, 16 MiB of the file in
    /// memory at most, whatever its size.
    static let partsInFlight = 2

    /// Uploads the spooled file at `file` (`size` bytes) as `key`, so that the object appears
    /// whole or not at all: one `PUT` up to ``S3Destination/partSize`` bytes (the file read
    /// in one piece), else a multipart upload (`CreateMultipartUpload`, `UploadPart` ×
    /// N streamed from the file, `CompleteMultipartUpload`) that is aborted
    /// (`AbortMultipartUpload`) on any failure, leaving no object and no stored parts.
    ///
    /// - Throws: ``S3ObjectError`` naming the object and what S3 said.
    func upload(file: String, size: Int, key: String) async throws(S3ObjectError) {
        let partSize = Self.partSize(for: size, preferred: destination.partSize)
        guard size > destination.partSize else {
            try await put(key: key, body: try await SpoolFile.read(file, offset: 0, count: size))
            return
        }
        let name = "s3://\(destination.bucket)/\(key)"
        let created = try await send(.POST, key: key, query: [("uploads", "")], what: "starting the upload of \(name)")
        guard created.status == 200, let uploadID = S3XMLFields(created.body, names: ["UploadId"]).first("UploadId") else {
            throw S3ObjectError("cannot start the multipart upload of \(name): \(created.summary)")
        }
        do throws(S3ObjectError) {
            let etags = try await uploadParts(file: file, size: size, partSize: partSize, key: key, uploadID: uploadID)
            let body = "<CompleteMultipartUpload>" + etags.enumerated().map { i, etag in
                "<Part><PartNumber>\(i + 1)</PartNumber><ETag>\(Self.escaped(etag))</ETag></Part>"
            }.joined() + "</CompleteMultipartUpload>"
            let done = try await send(.POST, key: key, query: [("uploadId", uploadID)], body: ByteBuffer(string: body),
                                      what: "completing the upload of \(name)")
            // S3 may answer 200 and still fail, with an <Error> body.
            guard done.status == 200, S3XMLFields(done.body, names: ["Code"]).first("Code") == nil else {
                throw S3ObjectError("cannot complete the multipart upload of \(name): \(done.summary)")
            }
        } catch {
            await abort(key: key, uploadID: uploadID)
            throw error
        }
    }

    /// The part size for a `size`-byte file: `preferred`, or larger when that would take
    /// more than S3's 10,000 parts.
    static func partSize(for size: Int, preferred: Int) -> Int {
        max(preferred, (size + S3Destination.maximumParts - 1) / S3Destination.maximumParts)
    }

    /// Uploads every part, at most ``partsInFlight`` at once, and returns their ETags in order.
    private func uploadParts(file: String, size: Int, partSize: Int, key: String,
                             uploadID: String) async throws(S3ObjectError) -> [String] {
        let count = (size + partSize - 1) / partSize
        let results = await withTaskGroup(of: (Int, Result<String, S3ObjectError>).self) { group in
            var etags = [String?](repeating: nil, count: count)
            var failure: S3ObjectError?
            var next = 0
            func start() {
                let number = next
                next += 1
                group.addTask {
                    do throws(S3ObjectError) {
                        let offset = number * partSize
                        return (number, .success(try await self.uploadPart(file: file, offset: offset,
                                                                           count: min(partSize, size - offset), number: number + 1,
                                                                           key: key, uploadID: uploadID)))
                    } catch {
                        return (number, .failure(error))
                    }
                }
            }
            while next < min(count, Self.partsInFlight) { start() }
            for await (number, result) in group {
                switch result {
                case .success(let etag): etags[number] = etag
                case .failure(let error):
                    failure = failure ?? error
                    group.cancelAll()
                }
                if failure == nil && next < count { start() }
            }
            return failure.map { Result<[String], S3ObjectError>.failure($0) } ?? .success(etags.compactMap { $0 })
        }
        return try results.get()
    }

    /// Reads part `number` from the spool and uploads it; its ETag.
    private func uploadPart(file: String, offset: Int, count: Int, number: Int, key: String,
                            uploadID: String) async throws(S3ObjectError) -> String {
        let body = try await SpoolFile.read(file, offset: offset, count: count)
        let name = "s3://\(destination.bucket)/\(key)"
        let answer = try await send(.PUT, key: key, query: [("partNumber", "\(number)"), ("uploadId", uploadID)], body: body,
                                    what: "uploading part \(number) of \(name)")
        guard answer.status == 200, let etag = answer.headers.first(name: "ETag") else {
            throw S3ObjectError("cannot upload part \(number) of \(name): \(answer.summary)")
        }
        return etag
    }

    /// Abandons an upload so that S3 keeps none of its parts; a failure to abort is only
    /// said (S3's lifecycle rules can clear such uploads), the upload's own error wins.
    private func abort(key: String, uploadID: String) async {
        let answer = try? await send(.DELETE, key: key, query: [("uploadId", uploadID)], what: "aborting the upload of \(key)")
        if let answer, answer.status != 204, answer.status != 200 {
            Terminal.writeError("webimage: could not abort the multipart upload of s3://\(destination.bucket)/\(key) "
                + "(\(answer.summary)); its parts stay stored until aborted\n")
        }
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
