import Foundation
import TVEPassAPIv2

/// The body of the REST API v2 fuzzer (`Fuzz/FuzzV2Requests`), shared with the test suite, which replays the seed corpus
/// and the regression inputs through it.
///
/// The first byte of an input picks what reads the rest (`selector % 6`):
/// - 0 to 3: the rest, as UTF-8 text, is one header value for ``PassAPIv2/DeviceIdentifier``,
///   ``PassAPIv2/DeviceInfo``, ``PassAPIv2/PartnerFrameworkStatus`` or ``PassAPIv2/TempPassIdentity``;
/// - 4: the rest goes through ``PassAPIv2/headerValue(_:)`` (the percent-decoding a server applies), then through
///   each of the four;
/// - 5: the rest is an HTTP request for the generated server stubs (``V2ServerFuzzing``).
///
/// Besides "never crash", it checks invariants and traps when one breaks, so that libFuzzer reports it: a header
/// value that decodes re-encodes to one that decodes to an equal value; a rejection carries the decoder's own code from
/// Adobe's list and never echoes a long header value in its reason.
public enum V2Fuzzing {
    /// Adobe's Enhanced Error codes for headers (REST API v2, `ErrorInformation.error`).
    static let headerErrorCodes: Set<String> = [
        "invalid_header_device_info", "invalid_header_device_identifier", "invalid_header_identity_for_temporary_access",
        "invalid_header_pfs_permission_access_not_present", "invalid_header_pfs_permission_access_not_determined",
        "invalid_header_pfs_permission_access_not_granted", "invalid_header_pfs_provider_id_not_determined",
        "invalid_header_pfs_provider_id_mismatch", "invalid_header_pfs_provider_info_expired",
    ]

    /// The headers, in selector order.
    enum Header: Int, CaseIterable {
        case deviceIdentifier, deviceInfo, partnerFrameworkStatus, tempPassIdentity

        /// The code each decoder throws.
        var code: String {
            switch self {
            case .deviceIdentifier: "invalid_header_device_identifier"
            case .deviceInfo: "invalid_header_device_info"
            case .partnerFrameworkStatus: "invalid_header_pfs_permission_access_not_present"
            case .tempPassIdentity: "invalid_header_identity_for_temporary_access"
            }
        }
    }

    /// The number of selectors.
    static let selectors: UInt8 = 6

    /// Runs one input. Returns normally unless an invariant is broken, in which case it traps.
    public static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let rest = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        let choice = Int(selector % selectors)
        if let header = Header(rawValue: choice) {
            runHeader(header, String(decoding: rest, as: UTF8.self))
        } else if choice == 4 {
            let text = String(decoding: rest, as: UTF8.self)
            let value = PassAPIv2.headerValue(text)
            check(text.contains("%") || value == text, "headerValue changed a value without a percent sign")
            check(value.utf8.count <= text.utf8.count, "headerValue made a value longer")
            for header in Header.allCases { runHeader(header, value) }
        } else {
            V2ServerFuzzing.run(rest)
        }
    }

    /// One header value through one decoder, with its invariants.
    static func runHeader(_ header: Header, _ text: String) {
        do {
            switch header {
            case .deviceIdentifier:
                let value = try PassAPIv2.DeviceIdentifier(header: text)
                check(value.header.hasPrefix("fingerprint "), "AP-Device-Identifier re-encodes without its scheme")
                let again = try? PassAPIv2.DeviceIdentifier(header: value.header)
                check(again?.fingerprint == value.fingerprint, "AP-Device-Identifier's fingerprint does not round-trip")
            case .deviceInfo:
                let value = try PassAPIv2.DeviceInfo(header: text)
                let again = try? PassAPIv2.DeviceInfo(header: value.header)
                check(again?.values == value.values, "X-Device-Info's values do not round-trip")
            case .partnerFrameworkStatus:
                let value = try PassAPIv2.PartnerFrameworkStatus(header: text)
                let again = try? PassAPIv2.PartnerFrameworkStatus(header: value.header)
                check(again == value, "AP-Partner-Framework-Status does not round-trip")
            case .tempPassIdentity:
                let value = try PassAPIv2.TempPassIdentity(header: text)
                let again = try? PassAPIv2.TempPassIdentity(header: value.header)
                check(again?.values == value.values, "AP-TempPass-Identity's values do not round-trip")
                check(again?.key == value.key, "AP-TempPass-Identity's key does not round-trip")
            }
        } catch {
            check(!error.code.rawValue.isEmpty, "a header error without a code")
            check(headerErrorCodes.contains(error.code.rawValue), "a header error code that is not Adobe's: \(error.code)")
            check(error.code.rawValue == header.code, "\(header) threw \(error.code)")
            check(!error.reason.isEmpty, "a header error without a reason")
            // A reason that contains a long value echoes it, unless the reason is one the decoders also give for the
            // fixed probes: then it does not depend on this value (a value can be a piece of a fixed reason, such as
            // the header's name; the first finding of this fuzzer, a harness bug kept as a regression).
            check(
                text.utf8.count <= 16 || !error.reason.contains(text) || fixedReasons.contains(error.reason),
                "a header error echoes the header value")
        }
    }

    /// The reasons the decoders give for short values, one for each way to fail: none can contain a fuzzed value
    /// longer than 16 bytes because of that value.
    static let fixedReasons: Set<String> = {
        func base64(_ json: String) -> String { Data(json.utf8).base64EncodedString() }
        let complete = #"{"primaryHardwareType":"a","model":"a","vendor":"a","osName":"a","osVendor":"a","connectionPort":"a"}"#
        var probes = [
            "", "!", "fingerprint", "fingerprint !", String(repeating: "A", count: PassAPIv2.maximumHeaderBytes + 4),
            "fingerprint " + Data(count: PassAPIv2.DeviceIdentifier.maximumBytes + 1).base64EncodedString(), base64("[]"),
            base64(String(repeating: "[", count: PassAPIv2.maximumJSONDepth + 1)), base64("{}"), base64(#"{"a":1}"#),
            base64(#"{"frameworkPermissionInfo":1}"#),
        ]
        for key in PassAPIv2.DeviceInfo.requiredKeys {
            probes.append(base64(complete.replacingOccurrences(of: #""\#(key)":"a""#, with: #""\#(key)":"""#)))
        }
        return Set(probes.flatMap(reasons))
    }()

    /// The reasons the four decoders give for `text`.
    private static func reasons(_ text: String) -> [String] {
        var reasons: [String] = []
        do { _ = try PassAPIv2.DeviceIdentifier(header: text) } catch { reasons.append(error.reason) }
        do { _ = try PassAPIv2.DeviceInfo(header: text) } catch { reasons.append(error.reason) }
        do { _ = try PassAPIv2.PartnerFrameworkStatus(header: text) } catch { reasons.append(error.reason) }
        do { _ = try PassAPIv2.TempPassIdentity(header: text) } catch { reasons.append(error.reason) }
        return reasons
    }

    @inline(__always)
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            // Reached only when TVEPassAPIv2 (or the generated server) is wrong; the fuzzer needs a crash to report it.
            preconditionFailure("V2Fuzzing invariant broken: \(message())")
        }
    }
}
