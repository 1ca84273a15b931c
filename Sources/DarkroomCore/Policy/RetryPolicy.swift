/// When a failed download is tried again, and after how long (`--retries`, SPEC §1).
public struct RetryPolicy: Sendable, Equatable {
    /// Extra attempts after the first, for transient failures. Default 3.
    public var retries: Int
    /// The delay before the first retry, in seconds, before jitter. Default 0.5.
    public var baseDelay: Double
    /// No delay is longer, in seconds, whatever the attempt or the server's
    /// `Retry-After`. Default 30: a daemon that sleeps longer looks hung.
    public var maxDelay: Double

    public init(retries: Int = 3, baseDelay: Double = 0.5, maxDelay: Double = 30) {
        self.retries = retries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The most attempts one entry gets: 1 + ``retries``.
    public var maxAttempts: Int { 1 + max(0, retries) }

    /// Seconds to wait before attempt number `attempt` (2 is the first retry).
    ///
    /// Without `retryAfter`: `d = min(baseDelay · 2^(attempt−2), maxDelay)`, then a
    /// uniform random value in `[d/2, d]`, so that many entries failing together against
    /// one server do not all come back at the same instant, while the back-off still
    /// grows. With a server's `retryAfter` (seconds, finite, ≥ 0): that value, capped at
    /// `maxDelay`, without jitter — the server said when.
    public func delay(beforeAttempt attempt: Int, retryAfter: Double?, using generator: inout some RandomNumberGenerator) -> Double {
        let cap = max(0, maxDelay.isFinite ? maxDelay : 0)
        if let retryAfter, retryAfter.isFinite, retryAfter >= 0 {
            return min(retryAfter, cap)
        }
        guard baseDelay > 0, baseDelay.isFinite else { return 0 }
        // 2^1000 is finite, so the product cannot be NaN; min() then caps it.
        let exponent = Double(attempt <= 2 ? 0 : min(attempt - 2, 1000))
        let ceiling = min(baseDelay * Double.pow2(exponent), cap)
        return Double.random(in: (ceiling / 2)...ceiling, using: &generator)
    }

    /// Whether to try again after attempt number `attempt` (1-based) failed with
    /// `failure`: only transient failures, and at most ``retries`` times.
    public func shouldRetry(after failure: DownloadFailure, attempt: Int) -> Bool {
        failure.isTransient && attempt >= 1 && attempt <= retries
    }
}

extension Double {
    fileprivate static func pow2(_ exponent: Double) -> Double {
        Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
