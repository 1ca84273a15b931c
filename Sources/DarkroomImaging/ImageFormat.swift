import CDarkroomCodecs

/// An image file format Darkroom reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png

    /// The format the bytes are in, from their signature; `nil` for anything else.
    /// The file name is never consulted: a `.jpg` full of HTML is not an image.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        switch dr_detect_format(head, head.count) {
        case DR_FORMAT_JPEG: self = .jpeg
        case DR_FORMAT_PNG: self = .png
        default: return nil
        }
    }

    /// The format a file name asks for by its extension (`jpg`, `jpeg`, `png`; any case).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        default: return nil
        }
    }

    /// The extension Darkroom gives files of this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }

    var cValue: dr_format {
        switch self {
        case .jpeg: DR_FORMAT_JPEG
        case .png: DR_FORMAT_PNG
        }
    }
}

/// The output format setting of a manifest or of `darkroom filter`.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    /// The same format as the input.
    case source

    public func resolved(input: ImageFormat) -> ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .source: input
        }
    }
}
