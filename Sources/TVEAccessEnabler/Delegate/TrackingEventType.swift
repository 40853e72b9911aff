/// `sendTrackingData` event types.
public enum TrackingEventType: String, Sendable, Hashable {
    /// `TRACKING_AUTHENTICATION` ("authenticationDetection"): every authentication check.
    case authentication = "authenticationDetection"
    /// `TRACKING_AUTHORIZATION` ("authorizationDetection"): every authorization token request that returns.
    case authorization = "authorizationDetection"
    /// `TRACKING_GET_SELECTED_PROVIDER` ("mvpdSelection"): the user picked an MVPD.
    case getSelectedProvider = "mvpdSelection"
}
