import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import TVECrypto
import TVEPassAPI
import TVEPassAPIv2
import TVESandbox
import TVETestSupport
import TVETokens
@testable import TVEServiceProvider

/// Adobe's own request and response samples of the REST API v2 and DCR documentation pages
/// (`TestVectors/adobe-samples/`, see its `SOURCE.md`), each replayed over HTTP against the local service provider:
/// the answer must have the status and the shape Adobe documents.
// One sample at a time: each starts a sandbox of its own, and 78 at once on two cores would starve the suite's
// timing-sensitive tests.
@Suite("Local service provider: Adobe's documented REST API v2 and DCR samples", .serialized)
struct AdobeSampleCorpusTests {
    @Test("a documented sample answers with Adobe's status and shape", arguments: AdobeSampleCorpus.samples)
    func replay(_ sample: AdobeSample) async throws {
        if let divergence = sample.knownDivergence {
            print("known divergence: \(sample.testDescription): \(divergence.reason)")
        }
        try await withSandbox(AdobeSampleReplay.configuration(for: sample)) { sandbox in
            let problems = await AdobeSampleReplay(sandbox: sandbox, sample: sample).run()
            if !problems.isEmpty {
                let report = problems.joined(separator: "\n  - ")
                Issue.record("\(sample.testDescription)\n  page: \(sample.page)\n  - \(report)")
            }
        }
    }

    @Test("the corpus: every page has samples, every placeholder and name is known, and Adobe's X-Device-Info is re-typed exactly")
    func corpus() throws {
        #expect(AdobeSampleCorpus.loadProblems.isEmpty, "\(AdobeSampleCorpus.loadProblems)")
        #expect(Set(AdobeSampleCorpus.samples.map(\.page)).count == 15)
        #expect(Set(AdobeSampleCorpus.samples.map(\.testDescription)).count == AdobeSampleCorpus.samples.count)
        let features = Set(AdobeSampleCorpus.samples.compactMap(\.feature))
        #expect(features.isSuperset(of: ["platformSSO", "serviceTokenSSO", "degraded"]))
        // The samples the provider answers otherwise by a written decision (SOURCE.md), each with its reason.
        let divergences = AdobeSampleCorpus.samples.filter { $0.knownDivergence != nil }
        print("known divergences: \(divergences.count) of \(AdobeSampleCorpus.samples.count) samples")
        for sample in divergences { print("  - \(sample.testDescription): \(sample.knownDivergence?.reason ?? "")") }
        #expect(divergences.allSatisfy { !($0.knownDivergence?.reason ?? "").isEmpty })
        // The value every Adobe sample sends, as Adobe prints it.
        #expect(
            AdobeSampleCorpus.values["adobeDeviceInfo"]
                == "ewoJInByaW1hcnlIYXJkd2FyZVR5cGUiOiAiU2V0VG9wQm94IiwKCSJtb2RlbCI6ICJUViA1dGggR2VuIiwKCSJtYW51ZmFjdHVyZXIiOiAiQXBwbGUiLAoJIm9zTmFtZSI6ICJ0dk9TIgoJIm9zVmVuZG9yIjogIkFwcGxlIiwKCSJvc1ZlcnNpb24iOiAiMTEuMCIKfQ=="
        )
    }
}

// MARK: The corpus

/// A JSON value of the corpus or of an answer.
enum SampleJSON: Codable, Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SampleJSON])
    case object([String: SampleJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SampleJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SampleJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    /// The same value with `transform` applied to every string.
    func mapStrings(_ transform: (String) -> String) -> SampleJSON {
        switch self {
        case .string(let text): return .string(transform(text))
        case .array(let items): return .array(items.map { $0.mapStrings(transform) })
        case .object(let fields): return .object(fields.mapValues { $0.mapStrings(transform) })
        default: return self
        }
    }
}

/// One step of state a sample needs before its request.
struct SampleStep: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The harness's second-screen login with this MVPD (its session's code becomes `{code}`).
    var login: String?
    /// `POST sessions` with this form (an earlier sample's), with the harness's device headers; its code becomes `{code}`.
    var session: [String: String]?
    /// `POST sessions/{code}` with this form.
    var resume: [String: String]?
    /// Headers added to `session` or `resume`.
    var headers: [String: String]?
    /// Moves the sandbox's clock.
    var advanceClock: Int64?
    /// A partner (Apple) session with this `AP-Partner-Framework-Status` value, and the partner IdP's SAML response
    /// to it as `{samlResponse}`.
    var partnerSession: String?
    /// The same, and the partner profile made with it.
    var partnerProfile: String?
    /// A DCR registration with the sandbox's software statement: `{clientId}`, `{clientSecret}`.
    var register: Bool?

    var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}

/// A sample's request, as the corpus types it.
struct SampleRequest: Codable, Sendable, Hashable {
    var method: String
    var path: String
    var headers: [String: String]?
    var query: [String: String]?
    var form: [String: String]?
    var json: SampleJSON?
    /// The request line of Adobe's sample when it differs from the documented path.
    var samplePath: String?
}

/// The answer Adobe documents: its status, headers and body shape (path → matcher).
struct SampleAnswer: Codable, Sendable, Hashable {
    var status: Int
    var headers: [String: SampleJSON]?
    var body: [String: SampleJSON]?
}

/// Where the provider answers a sample otherwise than Adobe's sample, by a decision written in `SOURCE.md`: the reason,
/// and the status the provider answers instead (the rest of the sample is checked as Adobe documents it).
struct KnownDivergence: Codable, Sendable, Hashable {
    var reason: String
    var status: Int?
}

/// One documented sample, with the names it is replayed under.
struct AdobeSample: Sendable, Hashable, CustomTestStringConvertible {
    let file: String
    let page: String
    let title: String
    let name: String
    let feature: String?
    let variant: String?
    /// Adobe's names → the sandbox's: the sample's own over the page's over the corpus's.
    let names: [String: String]
    /// Adobe's resources → the sandbox's, in `resources` and the answers' `resource`.
    let resourceNames: [String: String]
    let given: [SampleStep]
    let request: SampleRequest
    let answer: SampleAnswer
    let knownDivergence: KnownDivergence?

    var testDescription: String { "\(title) › \(name)" + (feature.map { " [feature: \($0)]" } ?? "") }

    /// `text` with Adobe's names replaced by the sandbox's (whole names only, the longest first).
    func mapped(_ text: String) -> String { AdobeSampleCorpus.replacingNames(names, in: text) }
}

/// The corpus of `TestVectors/adobe-samples/`.
enum AdobeSampleCorpus {
    struct Page: Codable {
        var page: String
        var title: String
        var note: String?
        var names: [String: String]?
        var samples: [Entry]
    }

    struct Entry: Codable {
        var name: String
        var feature: String?
        var variant: String?
        var note: String?
        var names: [String: String]?
        var resourceNames: [String: String]?
        var given: [SampleStep]?
        var request: SampleRequest
        var answer: SampleAnswer
        var knownDivergence: KnownDivergence?
    }

    struct Value: Codable {
        var base64: String
        var names: [String: String]?
        var note: String?
    }

    struct Names: Codable {
        var names: [String: String]
        var values: [String: Value]
    }

    static let folder = Fixtures.testVectors.appendingPathComponent("adobe-samples")

    static let loaded: (samples: [AdobeSample], values: [String: String], problems: [String]) = load()
    static var samples: [AdobeSample] { loaded.samples }
    /// The corpus's own header values (`{adobeDeviceInfo}`, …), encoded.
    static var values: [String: String] { loaded.values }
    static var loadProblems: [String] { loaded.problems }

    static func load() -> ([AdobeSample], [String: String], [String]) {
        var problems: [String] = []
        let decoder = JSONDecoder()
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("names.json")),
            let table = try? decoder.decode(Names.self, from: data)
        else { return ([], [:], ["names.json is missing or malformed"]) }
        var values: [String: String] = [:]
        for (key, value) in table.values {
            values[key] = Base64.encode(Array(replacingNames(value.names ?? [:], in: value.base64).utf8))
        }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".json") && $0 != "names.json"
        }
        var samples: [AdobeSample] = []
        for file in files.sorted() {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(file)) else {
                problems.append("\(file) cannot be read")
                continue
            }
            let page: Page
            do {
                page = try decoder.decode(Page.self, from: data)
            } catch {
                problems.append("\(file): \(error)")
                continue
            }
            if page.samples.isEmpty { problems.append("\(file) has no sample") }
            for entry in page.samples {
                let names = table.names.merging(page.names ?? [:]) { $1 }.merging(entry.names ?? [:]) { $1 }
                samples.append(
                    AdobeSample(
                        file: file, page: page.page, title: page.title, name: entry.name, feature: entry.feature, variant: entry.variant,
                        names: names, resourceNames: entry.resourceNames ?? [:], given: entry.given ?? [], request: entry.request,
                        answer: entry.answer, knownDivergence: entry.knownDivergence))
            }
        }
        let known = Set(values.keys).union(AdobeSampleReplay.harnessPlaceholders)
        for sample in samples {
            let texts =
                [sample.request.path] + Array((sample.request.headers ?? [:]).values) + Array((sample.request.form ?? [:]).values)
                + Array((sample.request.query ?? [:]).values)
            for text in texts {
                for placeholder in HTTPResult.capture(#"(?<!\$)\{([A-Za-z]+)\}"#, in: text) where !known.contains(placeholder) {
                    problems.append("\(sample.testDescription): unknown placeholder {\(placeholder)}")
                }
            }
        }
        return (samples, values, problems)
    }

    /// `text` with each of `names` replaced where it stands as a whole name (not inside a longer identifier).
    static func replacingNames(_ names: [String: String], in text: String) -> String {
        var result = text
        for (from, to) in names.sorted(by: { $0.key.count > $1.key.count }) where !from.isEmpty {
            var output = ""
            var rest = result[...]
            while let range = rest.range(of: from) {
                let before = range.lowerBound == rest.startIndex ? output.last : rest[rest.index(before: range.lowerBound)]
                let after = range.upperBound == rest.endIndex ? nil : rest[range.upperBound]
                let whole = !isNameCharacter(before) && !isNameCharacter(after)
                output += rest[rest.startIndex..<range.lowerBound] + (whole ? to : from)
                rest = rest[range.upperBound...]
            }
            result = output + rest
        }
        return result
    }

    static func isNameCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_"
    }
}

// MARK: The replay

/// Replays one sample in a fresh sandbox: its state first, then its request, then the comparison.
struct AdobeSampleReplay {
    /// The placeholders the harness fills.
    static let harnessPlaceholders: Set<String> = [
        "bearer", "deviceIdentifier", "code", "softwareStatement", "clientId", "clientSecret", "samlResponse", "platformIdentityToken",
        "serviceToken",
    ]

    let sandbox: ProviderHarness
    let sample: AdobeSample
    let device: V2Device

    init(sandbox: ProviderHarness, sample: AdobeSample) {
        self.sandbox = sandbox
        self.sample = sample
        device = V2Device(sandbox, name: "adobe-sample-device")
    }

    /// What differs from Adobe's documentation, in words; empty when the answer is as documented.
    func run() async -> [String] {
        var values = AdobeSampleCorpus.values
        values["bearer"] = sandbox.bearer
        values["deviceIdentifier"] = device.device.header
        do {
            values["softwareStatement"] =
                try SoftwareStatement.issue(
                    subject: "app", issuedAt: sandbox.clock.nowMilliseconds / 1000, signingKey: sandbox.keys.softwareStatementKey
                ).compact
        } catch {
            return ["the sandbox's software statement could not be issued: \(error)"]
        }
        for step in sample.given {
            do {
                try await perform(step, values: &values)
            } catch {
                return ["state \(step) could not be made: \(error)"]
            }
        }
        do {
            try await prepareFeature(values: &values)
        } catch {
            return ["the sample's feature could not be set up: \(error)"]
        }
        let result: HTTPResult
        do {
            result = try await send(sample.request, values: values)
        } catch {
            return ["the request could not be sent: \(error)"]
        }
        return compare(result)
    }

    // MARK: State

    struct StepFailure: Error, CustomStringConvertible {
        let description: String
        init(_ what: String, _ result: HTTPResult) {
            description = "\(what) answered \(result.status) \(AdobeSampleReplay.why(result))"
        }
        init(_ description: String) { self.description = description }
    }

    func substitute(_ text: String, _ values: [String: String]) -> String {
        var result = sample.mapped(text)
        for (key, value) in values { result = result.replacingOccurrences(of: "{\(key)}", with: value) }
        return result
    }

    func substitute(_ fields: [String: String]?, _ values: [String: String]) -> [(String, String)] {
        (fields ?? [:]).sorted { $0.key < $1.key }.map { (substitute($0.key, values), substitute($0.value, values)) }
    }

    func perform(_ step: SampleStep, values: inout [String: String]) async throws {
        let requestor = ProviderHarness.requestor
        var headers = device.headers
        for (name, value) in substitute(step.headers, values) { headers[name] = value }
        if let mvpd = step.login {
            let code = try await login(mvpd: sample.mapped(mvpd))
            values["code"] = code
        }
        if let form = step.session {
            let answer = try await device.raw("POST", "\(requestor)/sessions", form: substitute(form, values), headers: headers)
            guard answer.status == 200 else { throw StepFailure("POST sessions", answer) }
            if let code = answer.json["code"] as? String { values["code"] = code }
        }
        if let form = step.resume {
            let code = values["code"] ?? ""
            var resumeHeaders = ["Authorization": sandbox.bearer]
            for (name, value) in substitute(step.headers, values) { resumeHeaders[name] = value }
            let answer = try await device.raw(
                "POST", "\(requestor)/sessions/\(code)", form: substitute(form, values), headers: resumeHeaders)
            guard answer.status == 200 else { throw StepFailure("POST sessions/{code}", answer) }
        }
        if let seconds = step.advanceClock { sandbox.clock.advance(seconds: seconds) }
        if let status = step.partnerSession ?? step.partnerProfile {
            headers["AP-Partner-Framework-Status"] = values[status]
            let session = try await device.raw(
                "POST", "\(requestor)/sessions/sso/Apple", form: V2PartnerSSOTests.sessionForm, headers: headers)
            guard session.status == 200, session.json["actionName"] as? String == "partner_profile" else {
                throw StepFailure("POST sessions/sso/Apple", session)
            }
            let response = try await V2PartnerSSOTests.partnerResponse(sandbox, session: session.json)
            values["samlResponse"] = response
            if step.partnerProfile != nil {
                let profile = try await device.raw(
                    "POST", "\(requestor)/profiles/sso/Apple", form: [("SAMLResponse", response)], headers: headers)
                guard profile.status == 200 || profile.status == 201 else { throw StepFailure("POST profiles/sso/Apple", profile) }
            }
        }
        if step.register == true {
            var request = URLRequest(url: sandbox.http.base.appendingPathComponent("o/client/register"))
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: ["software_statement": values["softwareStatement"] ?? ""])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("e30=", forHTTPHeaderField: "X-Device-Info")
            let answer = try await Self.send(request, session: sandbox.http.session)
            guard answer.status == 201, let id = answer.json["client_id"] as? String, let secret = answer.json["client_secret"] as? String
            else { throw StepFailure("POST /o/client/register", answer) }
            values["clientId"] = id
            values["clientSecret"] = secret
        }
    }

    /// The harness's second-screen login: a session without an MVPD, resumed with `mvpd`, the browser's login as the
    /// sandbox's viewer. Returns the session's code.
    func login(mvpd: String) async throws -> String {
        let requestor = ProviderHarness.requestor
        let created = try await device.raw(
            "POST", "\(requestor)/sessions", form: [("domainName", "tvekit.test"), ("redirectUrl", "adobepass://ios.app")])
        guard created.status == 200, let code = created.json["code"] as? String else { throw StepFailure("POST sessions", created) }
        let resumed = try await device.raw(
            "POST", "\(requestor)/sessions/\(code)", form: [("mvpd", mvpd)], headers: ["Authorization": sandbox.bearer])
        guard resumed.status == 200 else { throw StepFailure("POST sessions/{code}", resumed) }
        let (location, pages) = try await device.browserLogin(code: code)
        guard location == "adobepass://ios.app" else {
            throw StepFailure("the browser login with \(mvpd) ended at \(location ?? "no redirect") after \(pages.map(\.status))")
        }
        return code
    }

    // MARK: The request

    func send(_ request: SampleRequest, values: [String: String]) async throws -> HTTPResult {
        var text = sandbox.http.base.absoluteString + substitute(request.path, values)
        let query = substitute(request.query, values)
        if !query.isEmpty { text += "?" + FormCodec.encode(query) }
        guard let url = URL(string: text) else { throw StepFailure("the path \(text) is not a URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for (name, value) in substitute(request.headers, values) { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let form = request.form {
            urlRequest.httpBody = Data(FormCodec.encode(substitute(form, values)).utf8)
        } else if let json = request.json {
            let body = resourcesMapped(json).mapStrings { substitute($0, values) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            urlRequest.httpBody = try encoder.encode(body)
        }
        return try await Self.send(urlRequest, session: sandbox.http.session)
    }

    /// `json` with its `resources` renamed by the sample's resource names.
    func resourcesMapped(_ json: SampleJSON) -> SampleJSON {
        guard case .object(var fields) = json, case .array(let resources)? = fields["resources"] else { return json }
        fields["resources"] = .array(
            resources.map { item in
                if case .string(let name) = item, let renamed = sample.resourceNames[name] { return .string(renamed) }
                return item
            })
        return .object(fields)
    }

    /// An error answer's code and details (Enhanced Error or OAuth), or the start of its body.
    static func why(_ result: HTTPResult) -> String {
        let json = result.json
        let parts = ["code", "error", "details", "error_description"].compactMap { json[$0] as? String }
        let text = result.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return parts.isEmpty ? String(text.prefix(160)) : "(" + parts.joined(separator: ": ") + ")"
    }

    static func send(_ request: URLRequest, session: URLSession) async throws -> HTTPResult {
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)"] = "\(value)" }
        return HTTPResult(status: http?.statusCode ?? 0, headers: fields, body: data)
    }

    // MARK: The comparison

    func compare(_ result: HTTPResult) -> [String] {
        var problems: [String] = []
        let body = try? JSONDecoder().decode(SampleJSON.self, from: result.body)
        let status = sample.knownDivergence?.status ?? sample.answer.status
        if result.status != status {
            let documented =
                status == sample.answer.status
                ? "Adobe documents \(status)" : "Adobe documents \(sample.answer.status), TVEKit decided \(status)"
            problems.append("HTTP status: \(documented), got \(result.status) \(Self.why(result))")
            // A success where Adobe documents an error, or the other way round: the body's shape would only repeat it.
            if (result.status >= 400) != (status >= 400) { return problems }
        }
        for (name, matcher) in (sample.answer.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            let value = result.header(name).map(SampleJSON.string)
            if let problem = check(matcher, against: [value]) { problems.append("header \(name): \(problem)") }
        }
        let checks = (sample.answer.body ?? [:]).sorted { $0.key < $1.key }
        guard !checks.isEmpty else { return problems }
        guard let body else {
            problems.append("body: Adobe documents JSON, got \(String(result.text.prefix(200)))")
            return problems
        }
        for (path, matcher) in checks {
            let mappedPath = sample.mapped(path)
            var expected = matcher.mapStrings { sample.mapped($0) }
            if path.hasSuffix(".resource"), case .string(let name) = matcher {
                expected = .string(sample.resourceNames[name] ?? sample.mapped(name))
            }
            if let problem = check(expected, against: Self.values(at: mappedPath, in: body)) {
                problems.append("body \(mappedPath): \(problem)")
            }
        }
        return problems
    }

    /// The values at `path` (`a.b[0].c`, `[*]` for every element); nil where there is none.
    static func values(at path: String, in root: SampleJSON) -> [SampleJSON?] {
        var current: [SampleJSON?] = [root]
        var segments: [String] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            var text = Substring(part)
            if let bracket = text.firstIndex(of: "[") {
                if bracket != text.startIndex { segments.append(String(text[..<bracket])) }
                text = text[bracket...]
                while let close = text.firstIndex(of: "]") {
                    segments.append(String(text[...close]))
                    text = text[text.index(after: close)...]
                }
            } else {
                segments.append(String(text))
            }
        }
        for segment in segments {
            current = current.flatMap { value -> [SampleJSON?] in
                switch (segment, value) {
                case ("[*]", .array(let items)?): return items.isEmpty ? [nil] : items.map { Optional($0) }
                case (_, .array(let items)?) where segment.hasPrefix("["):
                    let index = Int(segment.dropFirst().dropLast()) ?? -1
                    return [items.indices.contains(index) ? items[index] : nil]
                case (_, .object(let fields)?): return [fields[segment]]
                default: return [nil]
                }
            }
        }
        return current
    }

    /// nil when one of `candidates` satisfies `matcher` (all of them must be absent for `absent`), else the mismatch.
    func check(_ matcher: SampleJSON, against candidates: [SampleJSON?]) -> String? {
        let shown = candidates.map { $0?.description ?? "nothing" }.joined(separator: " | ")
        if case .object(let rules) = matcher, !rules.isEmpty, Set(rules.keys).isSubset(of: Self.ruleNames) {
            if rules["absent"] == .bool(true) {
                return candidates.allSatisfy({ $0 == nil }) ? nil : "Adobe documents no such key, got \(shown)"
            }
            if rules["absentOrEmpty"] == .bool(true) {
                return candidates.allSatisfy({ $0 == nil || $0 == .array([]) }) ? nil : "Adobe documents none, got \(shown)"
            }
            return candidates.contains { Self.satisfies($0, rules) } ? nil : "Adobe documents \(matcher), got \(shown)"
        }
        return candidates.contains { Self.equal($0, matcher) } ? nil : "Adobe documents \(matcher), got \(shown)"
    }

    static let ruleNames: Set<String> = ["type", "prefix", "includes", "count", "absent", "absentOrEmpty"]

    static func satisfies(_ value: SampleJSON?, _ rules: [String: SampleJSON]) -> Bool {
        guard let value else { return false }
        if case .string(let type)? = rules["type"] {
            switch (type, value) {
            case ("string", .string), ("number", .number), ("boolean", .bool), ("array", .array), ("object", .object): break
            default: return false
            }
        }
        if case .string(let prefix)? = rules["prefix"] {
            guard case .string(let text) = value, text.hasPrefix(prefix) else { return false }
        }
        if case .array(let wanted)? = rules["includes"] {
            guard case .array(let items) = value, wanted.allSatisfy({ item in items.contains { equal($0, item) } }) else { return false }
        }
        if case .number(let count)? = rules["count"] {
            guard case .array(let items) = value, Double(items.count) == count else { return false }
        }
        return true
    }

    static func equal(_ value: SampleJSON?, _ expected: SampleJSON) -> Bool {
        guard let value else { return false }
        switch (value, expected) {
        case (.array(let items), .array(let wanted)):
            return items.count == wanted.count && zip(items, wanted).allSatisfy { equal($0, $1) }
        default: return value == expected
        }
    }
}
