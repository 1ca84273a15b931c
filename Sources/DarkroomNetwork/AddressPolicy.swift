import DarkroomCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which network addresses a download may connect to (SPEC §1 `--deny-private-networks`).
///
/// Link-local addresses (169.254.0.0/16, fe80::/10), where cloud metadata services live,
/// are always refused. With ``denyPrivateNetworks`` loopback, private, shared (CGNAT),
/// unique-local, unspecified, multicast and reserved addresses are refused too, so that a
/// manifest cannot make the daemon probe its own network.
///
/// The host is resolved and checked before each request, redirects included. AsyncHTTPClient
/// then resolves the name again to connect and offers no hook to connect to the checked
/// address, so a DNS server that answers differently within that instant (DNS rebinding)
/// is not stopped by this check; a firewall rule is the defence against that.
public struct AddressPolicy: Sendable, Equatable {
    /// Also refuse loopback and private addresses. Default false.
    public var denyPrivateNetworks: Bool

    /// Addresses refused besides the rules, so that tests can refuse a loopback address
    /// and still exercise the checks without sending anything off this machine.
    var alsoRefused: Set<String> = []

    public init(denyPrivateNetworks: Bool = false) {
        self.denyPrivateNetworks = denyPrivateNetworks
    }

    /// Why `address` (a numeric IPv4 or IPv6 address, without brackets) is refused, or nil
    /// when it is allowed. Text that is not a numeric address is allowed: names are resolved
    /// and their addresses checked by ``check(host:)``.
    public func refusal(of address: String) -> String? {
        guard let parsed = IPAddress(address) else { return nil }
        return self.refusal(of: parsed)
    }

    func refusal(of address: IPAddress) -> String? {
        if self.alsoRefused.contains(address.description) {
            return "\(address) is refused"
        }
        let kind = address.kind
        switch kind {
        case .linkLocal:
            return "\(address) is a link-local address"
        case .public:
            return nil
        default:
            return self.denyPrivateNetworks ? "\(address) is \(kind.phrase) (private networks are denied)" : nil
        }
    }

    /// Resolves `host` (unless it is a numeric address) and fails with
    /// ``DownloadFailure/addressNotAllowed(_:)`` if any of its addresses is refused, or
    /// ``DownloadFailure/connection(_:)`` if it cannot be resolved. Refusing when *any*
    /// address is bad, not only the first, because the client may try them all.
    ///
    /// Does nothing for a public-only policy and a name: that costs a DNS round trip, which
    /// is only worth paying when something can be refused, and link-local addresses can
    /// always be refused.
    func check(host: String) async throws {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let literal = IPAddress(bare) {
            if let reason = self.refusal(of: literal) {
                throw DownloadFailure.addressNotAllowed(reason)
            }
            return
        }
        let addresses = try await resolve(bare)
        for address in addresses {
            if let reason = self.refusal(of: address) {
                throw DownloadFailure.addressNotAllowed("\(bare) resolves to \(reason)")
            }
        }
    }
}

/// An IPv4 or IPv6 address, parsed with `inet_pton`.
struct IPAddress: Equatable, CustomStringConvertible, Sendable {
    /// 4 or 16 bytes, network order.
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16)
        self.bytes = bytes
    }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = self.bytes.count == 4 ? AF_INET : AF_INET6
        let ok = self.bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        guard ok else { return "\(self.bytes)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    enum Kind: Equatable {
        case `public`, linkLocal, loopback, privateNetwork, sharedAddressSpace, uniqueLocal, unspecified, multicast, reserved

        var phrase: String {
            switch self {
            case .public: "a public address"
            case .linkLocal: "a link-local address"
            case .loopback: "a loopback address"
            case .privateNetwork: "a private address"
            case .sharedAddressSpace: "a shared (carrier-grade NAT) address"
            case .uniqueLocal: "a unique-local address"
            case .unspecified: "an unspecified address"
            case .multicast: "a multicast address"
            case .reserved: "a reserved address"
            }
        }
    }

    var kind: Kind {
        let b = self.bytes
        if b.count == 4 {
            switch (b[0], b[1]) {
            case (0, _): return .unspecified  // 0.0.0.0/8; Linux connects 0.0.0.0 to the local host
            case (10, _): return .privateNetwork
            case (100, 64...127): return .sharedAddressSpace
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (172, 16...31): return .privateNetwork
            case (192, 168): return .privateNetwork
            case (198, 18...19): return .reserved  // benchmarking
            case (224...239, _): return .multicast
            case (240...255, _): return .reserved
            default: return .public
            }
        }
        // IPv4 embedded in IPv6: mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach
        // the IPv4 address they carry, so they are judged as that address.
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let nat64Prefix: [UInt8] = [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        if Array(b[0..<12]) == mappedPrefix || Array(b[0..<12]) == nat64Prefix {
            return IPAddress(bytes: Array(b[12..<16])).kind
        }
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .uniqueLocal }  // fec0::/10, deprecated site-local
        if b[0] & 0xFE == 0xFC { return .uniqueLocal }  // fc00::/7
        if b[0] == 0xFF { return .multicast }
        return .public
    }
}

/// `getaddrinfo` on a Dispatch worker thread, since it blocks (for seconds when a DNS server
/// is slow). Cancellation returns at once; the lookup then finishes unobserved.
private func resolve(_ host: String) async throws -> [IPAddress] {
    let once = ResumeOnce()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[IPAddress], any Error>) in
            once.install(continuation)
            DispatchQueue.global().async {
                once.resume(with: lookUp(host))
            }
        }
    } onCancel: {
        once.resume(with: .failure(CancellationError()))
    }
}

private func lookUp(_ host: String) -> Result<[IPAddress], any Error> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Darwin)
    hints.ai_socktype = SOCK_STREAM
    #else
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, nil, &hints, &list)
    guard status == 0 else {
        let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
        return .failure(DownloadFailure.connection("cannot resolve host name \(host): \(reason)"))
    }
    defer { freeaddrinfo(list) }
    var addresses: [IPAddress] = []
    var cursor = list
    while let entry = cursor {
        if let socketAddress = entry.pointee.ai_addr {
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                let raw = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(IPAddress(bytes: withUnsafeBytes(of: raw) { Array($0) }))
            case AF_INET6:
                let raw = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(IPAddress(bytes: withUnsafeBytes(of: raw) { Array($0) }))
            default:
                break
            }
        }
        cursor = entry.pointee.ai_next
    }
    return .success(addresses)
}

/// Resumes a continuation exactly once, whichever of the lookup and the cancellation
/// handler comes first (and even if cancellation comes before the continuation exists).
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<[IPAddress], any Error>?
    private var early: Result<[IPAddress], any Error>?
    private var done = false

    func install(_ continuation: CheckedContinuation<[IPAddress], any Error>) {
        self.lock.lock()
        if let early = self.early {
            self.done = true
            self.lock.unlock()
            continuation.resume(with: early)
            return
        }
        self.continuation = continuation
        self.lock.unlock()
    }

    func resume(with result: Result<[IPAddress], any Error>) {
        self.lock.lock()
        guard !self.done else {
            self.lock.unlock()
            return
        }
        guard let continuation = self.continuation else {
            if self.early == nil { self.early = result }
            self.lock.unlock()
            return
        }
        self.done = true
        self.continuation = nil
        self.lock.unlock()
        continuation.resume(with: result)
    }
}
