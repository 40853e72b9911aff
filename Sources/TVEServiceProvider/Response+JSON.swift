import Hummingbird
import TVEPassAPI

extension Response {
    /// A JSON answer of the REST contract, encoded by ``PassAPI/encode(_:)``.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: PassAPI.encode(value))))
    }
}
