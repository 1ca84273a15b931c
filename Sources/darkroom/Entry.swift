import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `darkroom`: develops photographs from a hot folder. See SPEC §1 for the commands.
struct Darkroom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "darkroom",
        abstract: "Develops photographs: download → sepia filter → outbox.",
        version: darkroomVersion,
        subcommands: [RunCommand.self, FilterCommand.self, SubmitCommand.self, ValidateCommand.self, StatusCommand.self, JournalCommand.self]
    )
}

/// Exit codes of SPEC §1: 0 success, 1 runtime failure, 2 bad command line or configuration.
@main
enum Entry {
    static func main() async {
        do {
            var command = try Darkroom.parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Darkroom.exitCode(for: error)
            if code == .validationFailure {
                // ArgumentParser says EX_USAGE (64); the contract says 2, with one line.
                let message = Darkroom.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
                FileHandle.standardError.write(Data("darkroom: \(message) (see 'darkroom --help')\n".utf8))
                exit(2)
            }
            Darkroom.exit(withError: error)
        }
    }
}
