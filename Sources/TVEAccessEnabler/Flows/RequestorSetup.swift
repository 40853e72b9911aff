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
    private var clients: [URL: any EntitlementService] = [:]
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
        for client in clients.values { await client.apply(options, extraFields: extraFields, deviceInfo: deviceInfoValue) }
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
    func client(for mvpdID: String) throws(AccessEnablerError) -> (any EntitlementService, MVPD) {
        guard let mvpd = mvpds.first(where: { $0.id == mvpdID }), let client = clients[mvpd.serviceProvider] else {
            throw AccessEnablerError(.providerNotAvailable, "the MVPD \(mvpdID) is not offered to this requestor")
        }
        return (client, mvpd)
    }

    /// The MVPDs the platform picker may show: boarded (`SUPPORTED`) or picker-only (`PICKER`), with a platform ID.
    var platformMVPDs: [MVPD] {
        mvpds.filter {
            $0.platformMappingID != nil && $0.displayInPlatformPicker && ($0.boardingStatus == "SUPPORTED" || $0.boardingStatus == "PICKER")
        }
    }

    /// `setRequestor` (the caller holds the serial queue): asks every service provider for the requestor's
    /// configuration at once and merges the MVPD lists in the order they answer; an MVPD stays with the first provider
    /// that answered with it. Succeeds when at least one provider answered. Then makes the requestor's session current
    /// and re-syncs it with its service provider; a re-sync that cannot ask the service provider about the device's
    /// profile fails the call with that error (the requestor, its MVPDs and the stored authentication stay in place).
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
        var newClients: [URL: any EntitlementService] = [:]
        for url in urls {
            newClients[url] =
                reusable[url]
                ?? makeClient(
                    url, requestorID: requestorID, identity: identity, registration: registrations[Self.registrationKey(key, url)])
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

    /// `restoreRequestor` (the caller holds the serial queue): `requestorID` becomes current with what the token store
    /// holds, and no request is made. Another requestor's service providers and MVPDs are let go: `setRequestor` brings
    /// them back.
    nonisolated(nonsending) func restore(_ requestorID: String) async throws(AccessEnablerError) {
        guard !requestorID.isEmpty, requestorID.utf8.count <= 256 else {
            throw AccessEnablerError(.invalidRequestor, "the requestor ID is empty or too long")
        }
        let stored = await session.read(requestorID)
        if requestorID != self.requestorID {
            clients = [:]
            clientsIdentity = nil
            mvpds = []
        }
        self.requestorID = requestorID
        session.activate(requestorID, stored: stored)
        _ = try session.current()
    }

    /// The client of one service provider, in the REST API configured (v1 for the deprecated identities: REST API v2
    /// admits only Dynamic Client Registration).
    private func makeClient(_ url: URL, requestorID: String, identity: ClientIdentity, registration: ClientRegistration?)
        -> any EntitlementService
    {
        guard configuration.api == .v2, case .softwareStatement(let statement, let redirectURI) = identity else {
            return ServiceProviderClient(
                baseURL: url, requestor: requestorID, identity: identity, transport: configuration.transport, deviceInfo: deviceInfoValue,
                extraFields: extraFields, clock: configuration.clock, sleep: configuration.sleep, registration: registration)
        }
        let credentials = ClientCredentials(
            baseURL: url, softwareStatement: statement, redirectURI: redirectURI, transport: configuration.transport,
            clock: configuration.clock, sleep: configuration.sleep,
            deviceInfo: options.deviceInfo ?? V2DeviceHeaders.defaultDeviceInfoHeader(for: configuration.platform), stored: registration)
        return V2ServiceProviderClient(
            credentials: credentials, serviceProviderURL: url, requestor: requestorID, transport: configuration.transport,
            deviceInfo: options.deviceInfo, platform: configuration.platform, visitorID: options.visitorID,
            metadataDecryptor: configuration.metadataDecryptor, clock: configuration.clock, sleep: configuration.sleep,
            platformAccount: configuration.tvProviderAccount, singleSignOnCredential: configuration.singleSignOnCredential)
    }

    /// Every provider at once; the MVPDs merged in the order the providers answer.
    private static func mergedMVPDs(_ clients: [any EntitlementService]) async throws(AccessEnablerError) -> [MVPD] {
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
        // A logout the service provider was not told of (offline): tell it now, before anything else.
        if let owed = entitlements.pendingLogout {
            if let (client, _) = try? client(for: owed) {
                let step = await client.logout(
                    deviceID: entitlements.deviceID, mvpd: owed, redirectURL: configuration.redirectURL, platform: configuration.platform)
                if step.error == nil { entitlements.pendingLogout = nil }
            } else {
                entitlements.pendingLogout = nil  // its MVPD is no longer offered: nothing to end
            }
        }
        if let authentication = entitlements.authentication, let (client, _) = try? client(for: authentication.mvpd) {
            await client.restore(tempPassIdentity: entitlements.tempPassIdentity, mvpd: authentication.mvpd)
        }
        // A profile the service provider could not be asked about (throttled past the retries, unreachable, a broken
        // answer): the stored authentication stays as it is, and setRequestor reports the failure.
        var failure: AccessEnablerError?
        if let authentication = entitlements.authentication, let (client, mvpd) = try? client(for: authentication.mvpd) {
            do {
                if let refreshed = try await client.refreshedAuthentication(
                    deviceID: entitlements.deviceID, stored: authentication, offered: [mvpd])
                {
                    // REST API v2: the profile's notAfter as it stands now.
                    entitlements.authentication = refreshed
                } else {
                    entitlements.forgetAuthentication()
                }
            } catch {
                failure = error
            }
        } else if entitlements.authentication == nil, entitlements.pendingLogout == nil {
            // REST API v2: a profile the device holds (a login finished on a second screen after the app stopped
            // waiting, single sign-on from another app) is the device's authentication.
            for (url, client) in clients where client.api == .v2 {
                let offered = mvpds.filter { $0.serviceProvider == url }
                guard !offered.isEmpty else { continue }  // a provider that did not answer the configuration offers none
                let token: AuthenticationToken?
                do {
                    token = try await client.refreshedAuthentication(deviceID: entitlements.deviceID, stored: nil, offered: offered)
                } catch {
                    failure = failure ?? error
                    continue
                }
                guard let token, let mvpd = offered.first(where: { $0.id == token.mvpd }) else { continue }
                entitlements.authentication = token
                entitlements.selectedMVPD = mvpd
                break
            }
        }
        try await session.save(entitlements)
        if let failure { throw failure }
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
