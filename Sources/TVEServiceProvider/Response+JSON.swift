import Hummingbird
import TVEPassAPI

extension Response {
    /// A JSON answer of the REST contract, encoded by ``PassAPI/encode(_:)``. Never cached: answers carry client
    /// secrets, access tokens, registration codes, media tokens and user metadata.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: PassAPI.encode(value))))
    }
}
