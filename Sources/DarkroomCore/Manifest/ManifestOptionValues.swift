import DarkroomImaging

/// The checks of the optional keys `priority`, `intensity`, `format` and `quality`,
/// shared by the manifest level (where a bad value rejects the manifest) and the entry
/// level (where it fails the entry): one sentence for both, naming the key and value.
enum ManifestOptionValues {
    static func priority(_ value: Any) -> Result<Priority, OptionError> {
        let typed = PropertyListValue(value)
        guard case .string(let text) = typed else {
            return .failure(OptionError("priority is \(typed.typeAndValue), not one of \(Priority.namesList)"))
        }
        guard let priority = Priority(name: text) else {
            return .failure(OptionError("priority \(quoted(text)) is not one of \(Priority.namesList)"))
        }
        return .success(priority)
    }

    /// Integer and real plist numbers are both accepted: `<integer>1</integer>` is as
    /// clear an intensity as `<real>1.0</real>`.
    static func intensity(_ value: Any) -> Result<Double, OptionError> {
        let typed = PropertyListValue(value)
        let number: Double
        let written: String
        switch typed {
        case .integer(let integer): (number, written) = (Double(integer), String(integer))
        case .real(let real): (number, written) = (real, String(real))
        default: return .failure(OptionError("intensity is \(typed.typeAndValue), not a number between 0 and 1"))
        }
        guard (0...1).contains(number) else {
            return .failure(OptionError("intensity \(written) is not between 0 and 1"))
        }
        return .success(number)
    }

    static func format(_ value: Any) -> Result<OutputFormat, OptionError> {
        let names = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let typed = PropertyListValue(value)
        guard case .string(let text) = typed else {
            return .failure(OptionError("format is \(typed.typeAndValue), not one of \(names)"))
        }
        guard let format = OutputFormat(rawValue: text.lowercased()) else {
            return .failure(OptionError("format \(quoted(text)) is not one of \(names)"))
        }
        return .success(format)
    }

    /// Integers only: a quality of 90.5 would have to be rounded one way or the other,
    /// and guessing is worse than saying so.
    static func quality(_ value: Any) -> Result<Int, OptionError> {
        let typed = PropertyListValue(value)
        guard case .integer(let quality) = typed else {
            return .failure(OptionError("quality is \(typed.typeAndValue), not an integer between 1 and 100"))
        }
        guard (1...100).contains(quality) else {
            return .failure(OptionError("quality \(quality) is not between 1 and 100"))
        }
        return .success(quality)
    }

    struct OptionError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The four optional keys of `dictionary`, each checked; `nil` where absent.
    struct Overrides {
        var priority: Priority?
        var intensity: Double?
        var format: OutputFormat?
        var quality: Int?

        /// Reads the keys in a fixed order so that the first problem reported is
        /// always the same one.
        init(_ dictionary: PropertyListDictionary) throws(OptionError) {
            if let value = dictionary["priority"] { priority = try ManifestOptionValues.priority(value).get() }
            if let value = dictionary["intensity"] { intensity = try ManifestOptionValues.intensity(value).get() }
            if let value = dictionary["format"] { format = try ManifestOptionValues.format(value).get() }
            if let value = dictionary["quality"] { quality = try ManifestOptionValues.quality(value).get() }
        }

        init() {}

        func applied(to settings: EntrySettings) -> EntrySettings {
            var settings = settings
            if let intensity { settings.intensity = intensity }
            if let format { settings.format = format }
            if let quality { settings.quality = quality }
            return settings
        }
    }
}
