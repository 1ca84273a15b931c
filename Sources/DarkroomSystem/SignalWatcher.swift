import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Delivers Unix signals as calls on a dispatch queue instead of asynchronous
/// interrupts: the signals are ignored at the process level (so their default action,
/// such as terminating, does not happen) and observed with dispatch sources.
///
/// Create it from a type, not from top-level code in `main.swift`: closures written
/// there are main-actor isolated and would trap when called on `queue`.
public final class SignalWatcher: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]

    /// - Parameters:
    ///   - signals: e.g. `[SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]`.
    ///   - handler: called on `queue` with the signal number, once per delivery
    ///     (deliveries close together may be merged into one call).
    public init(signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops observing and restores the default actions.
    public func cancel() {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }
}
