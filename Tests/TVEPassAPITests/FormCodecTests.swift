import Foundation
import TVEPassAPI
import Testing

@Suite("Form codec")
struct FormCodecTests {
    @Test("encode then decode gives the pairs back, in order, whatever they hold")
    func roundTrip() {
        let fields = [
            ("a", "1"), ("space name", "x y"), ("amp&eq=", "a&b=c"), ("plus", "1+1"), ("unicode", "café ☕"), ("empty", ""), ("a", "2"),
        ]
        let decoded = FormCodec.decode(FormCodec.encode(fields))
        #expect(decoded.map(\.name) == fields.map(\.0))
        #expect(decoded.map(\.value) == fields.map(\.1))
    }

    @Test("only the unreserved characters stay; a space is %20, never +")
    func percentEncoding() {
        #expect(FormCodec.percentEncode("aZ09-._~") == "aZ09-._~")
        #expect(FormCodec.percentEncode("a b/c?d") == "a%20b%2Fc%3Fd")
        #expect(FormCodec.encode([("k", "a+b c")]) == "k=a%2Bb%20c")
    }

    @Test("rejectsMalformedEscapes: a pair with a bad escape is skipped, + decodes to a space, a bare name has the empty value")
    func rejectsMalformedEscapes() {
        let decoded = FormCodec.decode("good=1&bad=%ZZ&worse%=2&plus=a+b&bare")
        #expect(decoded.map(\.name) == ["good", "plus", "bare"])
        #expect(decoded.map(\.value) == ["1", "a b", ""])
    }
}

@Suite("HTML forms of the login pages")
struct HTMLFormTests {
    @Test("render then read gives the action and hidden fields back, escaped and unescaped")
    func roundTrip() throws {
        let fields = [HTMLForm.Field(name: "SAMLResponse", value: #"PD94"bG<>&'"#), .init(name: "RelayState", value: "r-1")]
        let html =
            "<html><body>" + HTMLForm.render(action: "/sp/saml/SAMLAssertionConsumer?x=1&y=2", hiddenFields: fields)
            + "</form></body></html>"
        let form = try #require(HTMLForm(firstPostFormIn: html))
        #expect(form.action == "/sp/saml/SAMLAssertionConsumer?x=1&y=2")
        #expect(form.hiddenFields == fields)
        #expect(!form.asksForPassword)
        #expect(!html.contains(#"value="PD94""#))
    }

    @Test("a login form asks for a password; a page without a form has none")
    func passwordAndNoForm() throws {
        let login = HTMLForm.render(action: "/idp/x/login", hiddenFields: []) + #"<input name="password" type="password">"#
        #expect(try #require(HTMLForm(firstPostFormIn: login)).asksForPassword)
        #expect(HTMLForm(firstPostFormIn: "<p>Signed in</p>") == nil)
    }
}

@Suite("REST contract bodies")
struct PassAPIBodyTests {
    @Test("expires is sent as a string and read from a string or a number")
    func timestamp() throws {
        let body = PassAPI.AuthorizationResponse(mvpd: "M", resource: "r", requestor: "q", expires: .init(milliseconds: 1_767_225_600_000))
        #expect(String(decoding: PassAPI.encode(body), as: UTF8.self).contains(#""expires":"1767225600000""#))
        let number = try #require(PassAPI.decode(PassAPI.AuthorizationResponse.self, from: Data(#"{"mvpd":"M","expires":42}"#.utf8)))
        #expect(number.expires.milliseconds == 42)
        #expect(PassAPI.decode(PassAPI.AuthorizationResponse.self, from: Data(#"{"mvpd":"M","expires":"soon"}"#.utf8)) == nil)
    }

    @Test("each body the service provider encodes decodes to the same value on the client side")
    func roundTrips() throws {
        let configuration = PassAPI.ConfigurationResponse(mvpds: [.init(id: "M", displayName: "MVPD", requiredMetadataFields: ["zip"])])
        #expect(PassAPI.decode(PassAPI.ConfigurationResponse.self, from: PassAPI.encode(configuration)) == configuration)
        let registration = PassAPI.ClientRegistrationResponse(
            clientID: "id", clientSecret: "secret", clientIDIssuedAt: 1, redirectURIs: [], grantTypes: ["client_credentials"], scopes: nil)
        #expect(PassAPI.decode(PassAPI.ClientRegistrationResponse.self, from: PassAPI.encode(registration)) == registration)
        #expect(String(decoding: PassAPI.encode(registration), as: UTF8.self).contains(#""client_id":"id""#))
        let preauthorization = PassAPI.PreauthorizationResponse(resources: [
            .init(id: "a", authorized: true), .init(id: "b", authorized: false, message: "no"),
        ])
        #expect(PassAPI.decode(PassAPI.PreauthorizationResponse.self, from: PassAPI.encode(preauthorization)) == preauthorization)
        let grant = PassAPI.AccessTokenRequest(clientID: "c", clientSecret: "s")
        #expect(PassAPI.AccessTokenRequest(formFields: FormCodec.decode(FormCodec.encode(grant.formFields))) == grant)
    }

    @Test("rejectsOversizedBody: a body over the JSON limit is not decoded")
    func rejectsOversizedBody() {
        let huge =
            Data(#"{"mvpd":"M","expires":1,"pad":""#.utf8) + Data(repeating: 0x41, count: PassAPI.maximumJSONBytes) + Data(#""}"#.utf8)
        #expect(PassAPI.decode(PassAPI.AuthorizationResponse.self, from: huge) == nil)
    }

    @Test("any error shape is read: enhanced, legacy, OAuth; an error field of another type is absent")
    func errorBodies() throws {
        let enhanced = try #require(PassAPI.decode(PassAPI.ErrorBody.self, from: Data(#"{"code":"c","message":"m","details":"d"}"#.utf8)))
        #expect(enhanced.code == "c" && enhanced.text == "d")
        let oauth = try #require(PassAPI.decode(PassAPI.ErrorBody.self, from: Data(#"{"error":"e","error_description":"why"}"#.utf8)))
        #expect(oauth.text == "why")
        let odd = try #require(PassAPI.decode(PassAPI.ErrorBody.self, from: Data(#"{"error":{"details":"x"},"message":"m"}"#.utf8)))
        #expect(odd.error == nil && odd.text == "m")
    }
}
