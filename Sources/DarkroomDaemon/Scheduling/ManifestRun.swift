import DarkroomCore
import DarkroomStorage

/// A claimed manifest while the daemon works on it. Mutated only under the pipeline's lock.
final class ManifestRun: @unchecked Sendable {
    let name: String
    let claim: ClaimedManifest?
    /// Entries still in the backlog, not yet admitted.
    var waiting = 0
    /// Filter operations admitted and not yet reported, for the completion's dependencies.
    var inFlight: [EntryKey: FilterOperation] = [:]
    /// Final state of every entry that has one.
    var results: [String: EntryResult] = [:]
    var isCancelled = false
    var completionScheduled = false

    init(name: String, claim: ClaimedManifest?) {
        self.name = name
        self.claim = claim
    }
}
