/// The one error type of `TVESpeed`: a stable code and what went wrong.
package struct SpeedError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// An operation or its baseline gave a wrong answer while being measured.
        case wrongResult
        /// `openssl speed` could not be run or read.
        case openSSLSpeed
        /// The measurement material could not be made.
        case setUp
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { reason }
}
