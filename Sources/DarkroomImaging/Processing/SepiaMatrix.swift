/// The W3C Filter Effects `sepia(amount)` colour matrix
/// (https://www.w3.org/TR/filter-effects-1/#sepiaEquivalent).
///
/// `amount` is clamped to 0...1 (NaN counts as 0): 0 is the identity, 1 full sepia.
public struct SepiaMatrix: Sendable, Equatable {
    public let amount: Double
    /// Row-major 3×3: `rows[0]` gives R' from (R, G, B), and so on.
    public let rows: [[Double]]

    public init(amount: Double) {
        let a = amount.isNaN ? 0 : min(max(amount, 0), 1)
        let k = 1 - a
        self.amount = a
        self.rows = [
            [0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k],
            [0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k],
            [0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k],
        ]
    }
}
