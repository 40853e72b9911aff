import Foundation
import TVECrypto

/// The requestor and its service providers: how the app identifies itself, the `setOptions` values, one client per
/// service provider and the merged MVPD list of the last `setRequestor`. Owned by one ``AsyncAccessEnabler`` and used
/// on its executor only.
final class RequestorSetup {
    private let configuration: AsyncAccessEnabler.Configuration
    private let session: SessionStore
    /// How the app identifies itself (nil until the deprecated `setRequestor(_:signedRequestorID:...)` gives it).
    var identity: ClientIdentity?
    private(set) var options = AsyncAccessEnabler.Options()
    /// The requestor of `clients` and `mvpds`.
    private(set) var requestorID: String?
    private var clients: [URL: ServiceProviderClient] = [:]
    /// What the clients were built with (a change of credentials rebuilds them).
    private var clientsIdentity: String?
    /// The merged MVPD list of the last `setRequestor`.
    private(set) var mvpds: [MVPD] = []

    init(configuration: AsyncAccessEnabler.Configuration, identity: ClientIdentity?, session: SessionStore) {
        self.configuration = configuration
        self.identity = identity
        self.session = session
    }

    // MARK: Options

    /// `setOptions`: applies to every later call.
    nonisolated(nonsending) func setOptions(_ options: AsyncAccessEnabler.Options) async {
        self.options = options
        for client in clients.values { await client.setExtras(extraFields, deviceInfo: deviceInfoValue) }
    }

    var deviceInfoValue: String {
        let platform = configuration.platform.rawValue
        return options.deviceInfo
            ?? Data(#"{"model":"\#(platform)","osName":"\#(platform)","applicationId":"tvekit"}"#.utf8).base64EncodedString()
    }

    var extraFields: [(String, String)] {
        var fields: [(String, String)] = []
        if let profile = options.applicationProfile { fields.append(("applicationProfile", profile)) }
        if let visitor = options.visitorID { fields.append(("visitorID", visitor)) }
        return fields
    }

    // MARK: Service providers

    /// The client of the service provider that offers `mvpdID`, and the MVPD.
    func client(for mvpdID: String) throws(AccessEnablerError) -> (ServiceProviderClient, MVPD) {
        guard let mvpd = mvpds.first(where: { $0.id == mvpdID }), let client = clients[mvpd.serviceProvider] else {
            throw AccessEnablerError(.providerNotAvailable, "the MVPD \(mvpdID) is not offered to this requestor")
        }
        return (client, mvpd)
    }

    /// The MVPDs the platform picker may show: boarded (`SUPPORTED`) or picker-only (`PICKER`), with a platform ID.
    var platformMVPDs: [MVPD] {
        mvpds.filter { $0.platformMappingID != nil && ($0.boardingStatus == "SUPPORTED" || $0.boardingStatus == "PICKER") }
    }

    /// `setRequestor` (the caller holds the serial queue): asks every service provider for the requestor's
    /// configuration at once and merges the MVPD lists in the order they answer; an MVPD stays with the first provider
    /// that answered with it. Succeeds when at least one provider answered. Then makes the requestor's session current
    /// and re-syncs it with its service provider.
    nonisolated(nonsending) func configure(
        _ requestorID: String, identity: ClientIdentity,
        serviceProviders: [URL]?
    ) async throws(AccessEnablerError) -> [MVPD] {
        guard !requestorID.isEmpty, requestorID.utf8.count <= 256 else {
            throw AccessEnablerError(.invalidRequestor, "the requestor ID is empty or too long")
        }
        let urls = serviceProviders ?? [AsyncAccessEnabler.defaultServiceProvider].compactMap { $0 }
        guard !urls.isEmpty, urls.count <= 16 else { throw AccessEnablerError(.invalidRequestor, "give 1 to 16 service-provider URLs") }
        let key = Self.identityKey(identity)
        // Clients are reused (with their access tokens) only for the same requestor and credentials.
        let reusable = requestorID == self.requestorID && key == clientsIdentity ? clients : [:]
        // The stored registrations only: the tokens are read again after the network calls, so that a write made
        // meanwhile is not overwritten with an older copy.
        let registrations = (try? await session.read(requestorID).get())?.clientRegistrations ?? [:]
        var newClients: [URL: ServiceProviderClient] = [:]
        for url in urls {
            newClients[url] =
                reusable[url]
                ?? ServiceProviderClient(
                    baseURL: url, requestor: requestorID, identity: identity,
                    transport: configuration.transport, deviceInfo: deviceInfoValue,
                    extraFields: extraFields, clock: configuration.clock, sleep: configuration.sleep,
                    registration: registrations[Self.registrationKey(key, url)])
        }
        let merged = try await Self.mergedMVPDs(Array(newClients.values))
        let stored = await session.read(requestorID)
        // Committed only now: a failed setRequestor leaves the previous requestor in place.
        self.requestorID = requestorID
        clients = newClients
        clientsIdentity = key
        mvpds = merged
        session.activate(requestorID, stored: stored)
        try await resync(keepingRegistrationsOf: key)
        return merged
    }

    /// Every provider at once; the MVPDs merged in the order the providers answer.
    private static func mergedMVPDs(_ clients: [ServiceProviderClient]) async throws(AccessEnablerError) -> [MVPD] {
        var merged: [MVPD] = []
        var failures: [AccessEnablerError] = []
        await withTaskGroup(of: Result<[MVPD], AccessEnablerError>.self) { group in
            for client in clients {
                group.addTask {
                    do throws(AccessEnablerError) { return .success(try await client.mvpds()) } catch { return .failure(error) }
                }
            }
            for await result in group {
                switch result {
                case .success(let list):
                    for mvpd in list where !merged.contains(where: { $0.id == mvpd.id }) { merged.append(mvpd) }
                case .failure(let error):
                    failures.append(error)
                }
            }
        }
        guard failures.count < clients.count else {
            throw failures.first ?? AccessEnablerError(.configurationUnavailable, "no service provider answered")
        }
        return merged
    }

    /// Drops a stored authentication that is void: its MVPD is no longer offered, or (a re-sync: an app calls
    /// setRequestor again when it returns to the foreground) the service provider no longer has it (a logout
    /// elsewhere, an expiry). A provider that cannot be asked leaves it as it is.
    private nonisolated(nonsending) func resync(keepingRegistrationsOf key: String) async throws(AccessEnablerError) {
        var entitlements = try session.current()
        // The clients' registrations, kept across launches (a new one replaces the one it was given).
        var registrations = entitlements.clientRegistrations ?? [:]
        for (url, client) in clients {
            if let registration = await client.registration { registrations[Self.registrationKey(key, url)] = registration }
        }
        entitlements.clientRegistrations = registrations.isEmpty ? nil : registrations
        if let authentication = entitlements.authentication, !mvpds.contains(where: { $0.id == authentication.mvpd }) {
            entitlements.forgetAuthentication()
        }
        if let authentication = entitlements.authentication, let (client, _) = try? client(for: authentication.mvpd) {
            do {
                if try await client.authenticationToken(deviceID: entitlements.deviceID) == nil { entitlements.forgetAuthentication() }
            } catch {}
        }
        try await session.save(entitlements)
    }

    /// The key of a client registration in the token store: the credentials' key and the service provider.
    static func registrationKey(_ identityKey: String, _ url: URL) -> String { identityKey + " " + url.absoluteString }

    /// A SHA-256 fingerprint of the credentials: never the credentials themselves (the token store keeps the client
    /// registrations under it, never shows it).
    private static func identityKey(_ identity: ClientIdentity) -> String {
        let text: String
        switch identity {
        case .softwareStatement(let statement, let redirect): text = "s\u{0}" + statement + "\u{0}" + (redirect ?? "")
        case .signedRequestorID(let signature): text = "r\u{0}" + signature
        case .clientless(let publicKey, let secret): text = "c\u{0}" + publicKey + "\u{0}" + Base64.encode(secret)
        }
        return ((try? HashFunction.sha256.hash(Array(text.utf8))) ?? []).map { String(format: "%02x", $0) }.joined()
    }
}
