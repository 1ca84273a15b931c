import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Delivers Unix signals as calls on a dispatch queue instead of asynchronous
/// interrupts: the signals are ignored at the process level (so their default action,
/// such as terminating, does not happen) and observed with dispatch sources.
///
/// Create it from a type, not from top-level code in `main.swift`: closures written
/// there are main-actor isolated and would trap when called on `queue`.
///
/// Every signal sent after `init` returns is observed: `init` waits until the sources
/// are registered with the system. Several watchers may exist in one process, one after
/// the other or at once (tests start several daemons); the default action of a signal
/// is restored when the last watcher of that signal is cancelled.
public final class SignalWatcher: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let signals: [Int32]
    private let cancelled: Flag

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Per signal: how many watchers are live, and the handler libdispatch installed.
    ///
    /// On Linux libdispatch reads signals from a signalfd, and installs (with
    /// `sigaction`) a handler that forwards a signal landing on a thread that does not
    /// block it; it does so only for the first source of that signal in the process.
    /// Once `cancel()` has restored `SIG_DFL`, a later watcher must put that handler
    /// back itself: with `SIG_IGN` instead, such a signal would be discarded unseen.
    private struct Registry {
        var live: [Int32: Int] = [:]
        var forwarders: [Int32: sigaction] = [:]
    }

    private static let registry = Mutex(Registry())

    /// The sources' own queue: registration is reported there (not on `queue`, which
    /// may be the caller's), and each signal is passed on to `queue`.
    private static let sourceQueue = DispatchQueue(label: "darkroom.signal-watcher")

    /// - Parameters:
    ///   - signals: e.g. `[SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]`.
    ///   - handler: called on `queue` with the signal number, once per delivery
    ///     (deliveries close together may be merged into one call).
    public init(signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        let cancelled = Flag()
        self.cancelled = cancelled
        let registered = DispatchSemaphore(value: 0)
        sources = signals.map { number in
            Self.registry.withLock { registry in
                registry.live[number, default: 0] += 1
                guard registry.live[number] == 1 else { return }  // a live watcher set it up
                if var forwarder = registry.forwarders[number] {
                    sigaction(number, &forwarder, nil)
                } else {
                    signal(number, SIG_IGN)
                }
            }
            let source = DispatchSource.makeSignalSource(signal: number, queue: Self.sourceQueue)
            source.setEventHandler {
                queue.async {
                    if !cancelled.value.load(ordering: .relaxed) { handler(number) }
                }
            }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            return source
        }
        // Registration is asynchronous: a signal sent before it completes would be lost.
        for _ in signals { _ = registered.wait(timeout: .now() + 2) }
    }

    /// Stops observing and restores the default actions (of the signals no other live
    /// watcher observes). Called on `queue`, no handler call starts after it returns.
    public func cancel() {
        guard !cancelled.value.exchange(true, ordering: .relaxed) else { return }
        for source in sources { source.cancel() }
        Self.registry.withLock { registry in
            for number in signals {
                registry.live[number, default: 1] -= 1
                guard registry.live[number] == 0 else { continue }
                var current = sigaction()
                if sigaction(number, nil, &current) == 0 {
                    let handler = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
                    if handler != 0 && handler != unsafeBitCast(SIG_IGN, to: Int.self) {
                        registry.forwarders[number] = current
                    }
                }
                signal(number, SIG_DFL)
            }
        }
    }
}
