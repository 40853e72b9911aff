extension AsyncAccessEnabler {
    /// `setOptions` keys: sent with every call to the service provider.
    public struct Options: Sendable, Hashable {
        public var applicationProfile: String?
        public var visitorID: String?
        /// The app presents SFSafariViewController itself: logins go through `navigateToUrl(_:useSVC:)`.
        public var handleSVC: Bool
        /// `device_info`: the client information (Base64 of a JSON object with at least `model` and `osName`).
        public var deviceInfo: String?

        public init(applicationProfile: String? = nil, visitorID: String? = nil, handleSVC: Bool = false, deviceInfo: String? = nil) {
            self.applicationProfile = applicationProfile
            self.visitorID = visitorID
            self.handleSVC = handleSVC
            self.deviceInfo = deviceInfo
        }
    }
}
