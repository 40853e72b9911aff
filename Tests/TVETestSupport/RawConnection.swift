import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The connection could not be made.
package struct RawConnectionError: Error {}

/// A TCP connection to loopback that sends what the test says and waits for the server.
/// Its reads block a thread, so the async forms run them off Swift's cooperative pool (which the server under test
/// needs: on two cores, a blocked pool thread starves it).
package final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    package init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw RawConnectionError() }
    }

    deinit { close(descriptor) }

    package func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(descriptor, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// ``isClosed(afterMilliseconds:)`` on a thread of its own.
    package func closed(afterMilliseconds milliseconds: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.isClosed(afterMilliseconds: milliseconds)) }
        }
    }

    /// ``readUntilClosed(seconds:)`` on a thread of its own.
    package func untilClosed(seconds: Int) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.readUntilClosed(seconds: seconds)) }
        }
    }

    /// Whether the server has closed the connection within `milliseconds` (what it sent is read and dropped).
    package func isClosed(afterMilliseconds milliseconds: Int) -> Bool {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    /// Everything the server sends until it closes the connection, or nil when it is still open after `seconds`.
    package func readUntilClosed(seconds: Int) -> String? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            if count < 0 { return nil }
            received += buffer[0..<count]
        }
    }
}
