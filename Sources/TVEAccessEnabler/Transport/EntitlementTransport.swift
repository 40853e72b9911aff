/// How the flow layer reaches a service provider. The default, ``URLSessionTransport``, suits apps; tests inject
/// failures (a provider that is down, slow, answers 500 or malformed JSON) through their own transport.
///
/// The flow layer runs one call at a time, so a transport must bound its own time: `send` has to return or throw
/// within its deadline whatever the other side does (``URLSessionTransport`` does), and should honour task
/// cancellation.
public protocol EntitlementTransport: Sendable {
    /// Sends `request`; throws only when no complete HTTP response arrived (connection refused, timeout, a body over
    /// the transport's limit, cancellation).
    func send(_ request: EntitlementHTTPRequest) async throws -> EntitlementHTTPResponse
}
