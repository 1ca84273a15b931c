import CDarkroomCodecs

/// Why an image could not be developed.
///
/// `code` is one of the stable journal error codes of SPEC §4 and `message` is the
/// codec library's own sentence, so `"\(error)"` reads like
/// `decode: Premature end of JPEG file`.
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case notAnImage = "not-an-image"
        case decode
        case tooManyPixels = "too-many-pixels"
        case write
        case `internal`
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    init(_ error: dr_error) {
        var error = error
        let message = withUnsafeBytes(of: &error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let code: Code =
            switch error.status {
            case DR_NOT_AN_IMAGE: .notAnImage
            case DR_DECODE: .decode
            case DR_TOO_MANY_PIXELS: .tooManyPixels
            case DR_WRITE: .write
            default: .internal
            }
        self.init(code, message.isEmpty ? "unknown codec error" : message)
    }
}
