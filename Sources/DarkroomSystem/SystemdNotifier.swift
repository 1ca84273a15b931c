import CDarkroomSystem
import Foundation

/// Talks to systemd through `$NOTIFY_SOCKET` (sd_notify(3)) without libsystemd: each
/// state is one datagram on an AF_UNIX socket (a leading `@` names an abstract socket).
///
/// Thread-safe; sending never blocks (datagrams to systemd are dropped if its queue is full).
public struct SystemdNotifier: Sendable {
    public let socketPath: String
    /// How often to send `WATCHDOG=1`: half of `$WATCHDOG_USEC`, when the watchdog is
    /// enabled for this process (`$WATCHDOG_PID` unset or equal to our pid); nil otherwise.
    public let watchdogInterval: Double?

    /// nil when not started by systemd with `Type=notify` (no `$NOTIFY_SOCKET`).
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        guard let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty else { return nil }
        socketPath = socket
        if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0,
            environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == pid }) ?? true
        {
            watchdogInterval = Double(usec) / 2_000_000
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` (e.g. `READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`; several may be
    /// joined with newlines). Returns the failure's errno, or nil.
    @discardableResult
    public func send(_ state: String) -> Int32? {
        let result = dr_notify_send(socketPath, state)
        return result == 0 ? nil : -result
    }
}
