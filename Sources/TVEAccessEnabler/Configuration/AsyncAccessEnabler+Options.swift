extension AsyncAccessEnabler {
    /// `setOptions` keys: sent with every call to the service provider.
    public struct Options: Sendable, Hashable {
        /// The `applicationProfile` option: a query field of the REST API v1 calls (none when nil).
        public var applicationProfile: String?
        /// The `visitorID` option: a query field of REST API v1 calls, the `AP-Visitor-Identifier` header of REST API v2
        /// calls (none when nil).
        public var visitorID: String?
        /// The app presents SFSafariViewController itself: logins go through `navigateToUrl(_:useSVC:)`.
        public var handleSVC: Bool
        /// `device_info`: the client information (Base64 of a JSON object with at least `model` and `osName`).
        public var deviceInfo: String?

        /// Options; each is unset by default (`handleSVC` is false).
        public init(applicationProfile: String? = nil, visitorID: String? = nil, handleSVC: Bool = false, deviceInfo: String? = nil) {
            self.applicationProfile = applicationProfile
            self.visitorID = visitorID
            self.handleSVC = handleSVC
            self.deviceInfo = deviceInfo
        }
    }
}
