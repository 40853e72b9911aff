import Foundation
import HTTPTypes
import Hummingbird
import TVECrypto
import TVEPassAPI

/// The service provider's and identity provider's small HTML pages: one script at most, a strict content security
/// policy.
enum HTMLPage {
    /// The one script of these pages: it submits the SAML form.
    static let autoSubmitScript = "document.forms[0].submit()"

    /// Only that script may run (by its hash); nothing may be framed, loaded or used as a base. There is no
    /// `form-action`: browsers apply it to the redirects after a form post, and the assertion consumer redirects to
    /// the app's own scheme.
    static let contentSecurityPolicy: String = {
        let digest = (try? HashFunction.sha256.hash(Array(autoSubmitScript.utf8))).map { Base64.encode($0) } ?? ""
        return "default-src 'none'; script-src 'sha256-\(digest)'; style-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    }()

    static func page(_ status: HTTPResponse.Status, title: String, body: String) -> Response {
        let html =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(HTMLForm.escape(title))</title></head><body>\n\(body)\n</body></html>\n"
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
        ]
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { headers[referrerPolicy] = "no-referrer" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
