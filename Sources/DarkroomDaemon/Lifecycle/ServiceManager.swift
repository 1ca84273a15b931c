import DarkroomSystem
import Foundation

/// What systemd hears from the daemon (SPEC §5), through `SystemdNotifier`.
///
/// - `READY=1` once the inbox is watched and resumed work is queued.
/// - `STATUS=` with live counts, at most once a second, only when something changed
///   (an idle daemon sends nothing).
/// - `WATCHDOG=1` every half `WATCHDOG_USEC`, sent by a probe that goes through the parts
///   that can wedge: the control queue schedules it, a worker thread of the dispatch pool
///   runs it, and it takes the pipeline's lock to read the counts. A deadlocked pipeline,
///   a blocked control queue or an exhausted thread pool stops the pings, and systemd
///   restarts the daemon; a plain timer would keep pinging through all of those.
/// - `STOPPING=1` when a stop begins.
///
/// All methods are called on the daemon's control queue.
final class ServiceManager: @unchecked Sendable {
    private let notifier: SystemdNotifier?
    private let control: DispatchQueue
    private let status: @Sendable () -> String
    private var lastStatus: String?
    private var lastSent = DispatchTime(uptimeNanoseconds: 0)
    private var statusPending = false
    private var watchdog: DispatchSourceTimer?
    /// Set by `markChanged()` from any thread, cleared by `changed()` on the control queue.
    private let dirtyLock = NSLock()
    private var dirty = false

    static let statusInterval = 1.0

    init(notifier: SystemdNotifier?, control: DispatchQueue, status: @escaping @Sendable () -> String) {
        self.notifier = notifier
        self.control = control
        self.status = status
    }

    func ready() {
        guard let notifier else { return }
        let line = status()
        lastStatus = line
        lastSent = .now()
        notifier.send("READY=1\nSTATUS=\(line)")
        startWatchdog(notifier)
    }

    /// Called from any thread for every journal record: true when the caller should
    /// schedule `changed()`, i.e. only for the first change since the last one was taken
    /// in — a burst of records costs one dispatch to the control queue, not one each.
    func markChanged() -> Bool {
        guard notifier != nil else { return false }
        return dirtyLock.withLock {
            defer { dirty = true }
            return !dirty
        }
    }

    /// Something changed: send the status now, or once the rate limit allows.
    func changed() {
        dirtyLock.withLock { dirty = false }
        guard notifier != nil, !statusPending else { return }
        let next = lastSent + Self.statusInterval
        if DispatchTime.now() >= next {
            sendStatus()
        } else {
            statusPending = true
            control.asyncAfter(deadline: next) { [self] in
                statusPending = false
                sendStatus()
            }
        }
    }

    private func sendStatus() {
        guard let notifier else { return }
        let line = status()
        guard line != lastStatus else { return }
        lastStatus = line
        lastSent = .now()
        notifier.send("STATUS=\(line)")
    }

    private func startWatchdog(_ notifier: SystemdNotifier) {
        guard let interval = notifier.watchdogInterval else { return }
        let timer = DispatchSource.makeTimerSource(queue: control)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(interval * 50)))
        timer.setEventHandler { [status] in
            DispatchQueue.global().async {
                _ = status()
                notifier.send("WATCHDOG=1")
            }
        }
        timer.resume()
        watchdog = timer
    }

    func stopping() {
        watchdog?.cancel()
        watchdog = nil
        notifier?.send("STOPPING=1\nSTATUS=stopping")
    }
}
