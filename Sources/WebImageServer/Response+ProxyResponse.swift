import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// The Hummingbird form of a ``ProxyResponse``; `Content-Length` is the body's.
    init(_ answer: ProxyResponse) {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        self.init(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
