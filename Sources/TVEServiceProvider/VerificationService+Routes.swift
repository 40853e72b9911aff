import HTTPTypes
import Hummingbird
import TVEVerification

extension VerificationService {
    /// Mounts the service on a Hummingbird router: `POST /verify`, `GET /health`, `GET /metrics`, the same answers as
    /// `TVEVerificationServer`'s lean transport. `tvekit serve` uses it next to the local service provider.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("verify") { request, _ -> Response in
            guard let body = try? await request.body.collect(upTo: Self.maximumBodyBytes) else {
                return Self.response(self.answerBodyTooLarge())
            }
            if self.answersSynchronously {
                return Self.response(body.withUnsafeReadableBytes { self.verify($0) })
            }
            return Self.response(await self.verify(Array(body.readableBytesView)))
        }
        router.get("health") { _, _ -> Response in Self.response(self.answer(.health)) }
        router.get("metrics") { _, _ -> Response in Self.response(self.answer(.metrics)) }
    }

    /// A router with the routes and, when `log` is given, one log line per request (method, path, status, time;
    /// never bodies).
    public func router(log: RequestLog? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        if let log { router.middlewares.add(RequestLogMiddleware(log: log)) }
        addRoutes(to: router)
        return router
    }

    static func response(_ answer: VerificationAnswer) -> Response {
        Response(
            status: HTTPResponse.Status(code: answer.status), headers: [.contentType: answer.contentType],
            body: .init(byteBuffer: ByteBuffer(string: answer.body)))
    }
}
