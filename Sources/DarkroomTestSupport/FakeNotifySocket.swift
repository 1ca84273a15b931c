import Foundation

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
public final class FakeNotifySocket: @unchecked Sendable {
    public let fd: Int32
    /// The value for `$NOTIFY_SOCKET`.
    public let name: String

    /// `abstract`: bind in the abstract namespace and name it with a leading `@`.
    public init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let unique = "darkroom-notify-\(getpid())-\(UUID().uuidString.prefix(8))"
        name = abstract ? "@\(unique)" : NSTemporaryDirectory() + unique
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if abstract { raw[0] = 0 }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Datagrams received until `deadline`, or until `until` holds for them.
    public func receive(timeout: Double = 5, until: ([String]) -> Bool) -> [String] {
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline && !until(messages) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { messages.append(String(decoding: buffer[..<count], as: UTF8.self)) }
        }
        return messages
    }

    deinit {
        close(fd)
        if !name.hasPrefix("@") { unlink(name) }
    }
}

