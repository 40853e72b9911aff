import Foundation
import TVECrypto
import TVEMetadata

/// The body of the user-metadata fuzzer (`Fuzz/FuzzMetadata`), shared with the test suite, which replays the
/// regression inputs and the seed corpus through it. This target is not a product: the fixture key below never ships
/// in a library.
///
/// Each input is read three ways: as JSON, as a metadata document (decrypted with a fixed test key when it
/// parses), and as one encrypted value. Besides "never crash", it checks invariants and traps when one breaks, so
/// that libFuzzer reports it: JSON and documents survive serialization and re-parsing; every failure is a
/// ``MetadataError``; a decrypted document has exactly the document's keys, its plain values unchanged.
public enum MetadataFuzzing {
    /// The committed throw-away fixture key `TestVectors/fixtures/leaf.pkcs8.pem`, so that the seed corpus (made
    /// from the vectors, which are encrypted to it) reaches the decryption paths. Never use it for anything else.
    static let fixtureKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQC33uTp5Wp6xgOA
brh7lGy2BXMWi04mIDIOl0m9xEM6RNteJ22DAMOsy5hJwZP6au944kxusIskDaps
1vOEYnMIr0nA2uaDVIQ6j9yfIMgP2qORLXaMxVSKbMDnafptRQZXc9c6NEU6u7o9
xilWwjtxSU+5qs4yWoo1cKW/vDi77BmzU/3Ei1yKkTD+RKjPU1jShoIBRkc1go8z
cjE93iCwD9DucPMAv04fDmrIqwim8EEAO6IVzDTsSs2YIE8ZFlmLHZK4b4iSYlRB
Cn2WBWNsJTGs1oD/52lyCXa65UyySajbghVd9H5+83Hzeg05wyEItdB1rzi6U7Fy
1DGAlEO1AgMBAAECggEAILBSk6eq7sFR4Y0tpKDOU+zzmUQyZFJQe+oXHNLt3cfc
lShezo29+/QlMqWk3H4S7XOUAZDG5+W7EQcE+5nyGA7rxorUNPB7Yprtbufp0XG+
JyMFQsEZRtPPVsTvVepR1o3ca3dcAHVcBrv6YPd+kGUndJuCdY7Fp/sLKKN6laP2
K2BOvJhEEH6HaPoeRgevSeTNxyC8UBeOlVvXboULRm9NI0W1jLBR4n9MuNkXXkuV
Q22V/GVhzJ5I0aiXYCJquMnhcRFHSE3H1Cs0teY0cC03QyOq+xOX7gzhpMhy6fD+
Gp3PfSmBEvA+peKrwrOkUav9EQPR1O4M6UdvR8s8qQKBgQDvBDL3W6d/4IXbRCwk
+G5AIlKYHUlb8aCI93ph+GOzo8WbZibf65mobyflJGx9iZn4aqjuWPpgQfsREOs1
uFAoTR59ArmsDg2Zp7J9gX/tIVErAd8+4V3/Jly1QY0ubtONPYyOpC40jWllbh0t
fZYoMawxw+z88n/RLkhbWv04HQKBgQDE75K0gvtNb0t9SYWr3QxGu/HZ85OkWWQI
nru6BEK8usLxbGNvG86yhGiXP7GtRyO/NGwSaMvqfo13xLQGRiSw7WPqDBwqcwx3
RzqBdZbqtR0mXCd6e5jbFzRg5JesTwgX96DVU0Jlum0/UpWQUKGCr0tudHtLjnCM
0+e89kdWeQKBgHab9Na/Su2wc3yN5gIqrjtxTN9jmSXhUDLn7Hl1k7Rvjv5AwQXZ
mpT1JC0X2CasBBY8h7xPt1/RHlAnvzEXV9/H9Vs/4Pe6uZEIoRCbFOqN4AOhmDFS
ER0u4k6oSvFB2gV7B6c5XhyCGE1XSW9rpPopPDQt8ArOJBOgDhQXoRUZAoGAWwUn
Vwrav1VbHJLolyBZVi/zffqYGHPASkOjHDxv4+6lvxOLeYTuqY+ND6q+ogmpOewu
ruuEo+LN27csRWIR/zwY28mxEuWNs2tWXRNOJziCOoKJNJD/evNkoAvHFjqI0RsA
WNhcbcwWRhgTTFoX6+C9ClYHzkoNNumRx8JEAnECgYBslA0ulcCNFa1Zv5EnzpN/
s13C/KTyiV7VrDPoFK1sH7cGOQl/xEeAcfZqKLKQSG7HNPCb4v+OJoPgkl4uKoq5
xApTsaMEg2AnJ/ROITcSoN4ZiHO2wr6huB+QUQf7McVdkTa/hm9G9wVLTh2YHw/Y
pRaebIGgjkrQeIatT8SM4A==
-----END PRIVATE KEY-----
"""

    /// The fixture certificate of the same key (`TestVectors/fixtures/leaf.cert.pem`).
    static let fixtureCertificatePEM = """
-----BEGIN CERTIFICATE-----
MIIC9jCCAd4CBAoLDA0wDQYJKoZIhvcNAQELBQAwPjELMAkGA1UEBhMCVVMxFDAS
BgNVBAoMC1RWRUtpdCBUZXN0MRkwFwYDVQQDDBBUVkVLaXQgVGVzdCBSb290MCAX
DTI2MTEyMjAxNDYyMVoYDzIxMjYxMDI5MDE0NjIxWjA/MQswCQYDVQQGEwJVUzEU
MBIGA1UECgwLVFZFS2l0IFRlc3QxGjAYBgNVBAMMEXJlcXVlc3Rvci5leGFtcGxl
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAt97k6eVqesYDgG64e5Rs
tgVzFotOJiAyDpdJvcRDOkTbXidtgwDDrMuYScGT+mrveOJMbrCLJA2qbNbzhGJz
CK9JwNrmg1SEOo/cnyDID9qjkS12jMVUimzA52n6bUUGV3PXOjRFOru6PcYpVsI7
cUlPuarOMlqKNXClv7w4u+wZs1P9xItcipEw/kSoz1NY0oaCAUZHNYKPM3IxPd4g
sA/Q7nDzAL9OHw5qyKsIpvBBADuiFcw07ErNmCBPGRZZix2SuG+IkmJUQQp9lgVj
bCUxrNaA/+dpcgl2uuVMskmo24IVXfR+fvNx83oNOcMhCLXQda84ulOxctQxgJRD
tQIDAQABMA0GCSqGSIb3DQEBCwUAA4IBAQA9ED7Jx/B5pnC/wDl0nYLLPot0AMjs
cUU8KShDt/AEa2XPf/OlyNe9uEL2icL28fVgADJv6avTKSOLwSFjbnYVpcgkdcDh
rmJMY0OXjMo6OGhMflXwpGS8WhqaNHrt9Jxw2mY+AkZAx8TGwPSHLVDFHyiJfJMw
CPy8nvf9cFXdoggpagesljsgoITYb/HuW5JlM2SP0tmCz5loBIk/7qQ8Me0lbZXI
8AwAzh3yj47Z40KnmOtw5HS4TCoiXeN1agt0xCt7wKgG0mA9xCpEsV/C2qLjbMxM
0cgqhfWwD/NzRvJ6YALBacJxNYq3QXfO5LG1ESRF1I+3TzT+Gof3wN9u
-----END CERTIFICATE-----
"""

    /// The decryptor the fuzzer uses (RSA1_5 allowed, to reach every path).
    public static let decryptor: MetadataDecryptor? = {
        guard let key = try? RSAPrivateKey(pemRepresentation: fixtureKeyPEM) else { return nil }
        return MetadataDecryptor(privateKey: key, options: .init(allowsRSA1_5: true))
    }()

    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ data: UnsafeRawBufferPointer) {
        if let value = try? JSONValue.parse(data) {
            check(JSONValue(jsonText: Array(value.jsonText.utf8)) == value, "JSON does not survive a round trip")
        }
        let document: UserMetadataDocument
        do {
            document = try UserMetadataDocument(jsonText: data)
        } catch {
            check(error is MetadataError, "a document error that is not a MetadataError")
            runValue(data)
            return
        }
        if document.shape == .restV1 {
            let again = try? UserMetadataDocument(jsonText: Array(document.jsonText.utf8))
            check(again == document, "a REST v1 document does not survive a round trip")
        }
        guard let decryptor else { return }
        do {
            let metadata = try decryptor.decrypt(document)
            check(Set(metadata.values.keys) == Set(document.entries.keys), "decryption changed the set of keys")
            check(metadata.decryptedKeys == document.encryptedKeys, "decryptedKeys differs from the encrypted keys")
            for (key, entry) in document.entries {
                if case .plain(let value) = entry { check(metadata.values[key] == value, "a plain value changed") }
            }
        } catch let error as MetadataError {
            check(error.key != nil, "a value error without its key")
        } catch {
            check(false, "a decryption error that is not a MetadataError")
        }
    }

    private static func runValue(_ data: UnsafeRawBufferPointer) {
        guard data.count <= UserMetadataDocument.maximumCiphertextBytes, let text = String(validating: data, as: UTF8.self),
              let decryptor
        else { return }
        do {
            _ = try decryptor.decryptValue(text)
        } catch let error as MetadataError {
            if error.code == .decryptionFailed { check(error.reason == MetadataError.decryptionFailed().reason, "decryptionFailed varies") }
        } catch {
            check(false, "a value error that is not a MetadataError")
        }
    }

    @inline(__always)
    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            // Reached only when TVEMetadata itself is wrong; the fuzzer needs a crash to report it.
            preconditionFailure("MetadataFuzzing invariant broken: \(message())")
        }
    }
}
