import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The built executable, next to the test bundle.
enum Darkroom {
    static var binary: URL {
        let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? Bundle.main.bundleURL
        return products.appendingPathComponent("darkroom")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stdout's lines.
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs `darkroom arguments` to completion. A command still running after `timeout`
    /// seconds is killed (the test then fails on its status rather than hanging).
    static func run(_ arguments: [String], timeout: Double = 30) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // stderr is drained on its own thread, so a chatty stderr cannot block the child
        // while stdout is being read.
        let stderrBox = Collected()
        let stderrDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            stderrBox.append(err.fileHandleForReading.readDataToEndOfFile())
            stderrDone.signal()
        }
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        stderrDone.wait()
        let stderr = stderrBox.data
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Starts `darkroom arguments` and returns at once; its stdout is collected as it comes.
    static func start(_ arguments: [String]) throws -> Running {
        try Running(arguments)
    }

    /// A `darkroom` process still running, e.g. `journal --follow`.
    final class Running {
        let process = Process()
        private let output = Collected()
        private let errors = Collected()

        fileprivate init(_ arguments: [String]) throws {
            process.executableURL = Darkroom.binary
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            out.fileHandleForReading.readabilityHandler = { [output] handle in output.append(handle.availableData) }
            err.fileHandleForReading.readabilityHandler = { [errors] handle in errors.append(handle.availableData) }
            try process.run()
        }

        var stdout: String { String(decoding: output.data, as: UTF8.self) }
        var stderr: String { String(decoding: errors.data, as: UTF8.self) }

        /// Polls stdout until `predicate` holds or `timeout` seconds pass.
        @discardableResult
        func waitForOutput(timeout: Double = 10, _ predicate: (String) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if predicate(stdout) { return true }
                usleep(10_000)
            }
            return predicate(stdout)
        }

        /// SIGTERM, then waits for the exit (SIGKILL after 5 s).
        func terminate() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(5_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
            (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        }

        deinit { terminate() }
    }
}

/// Bytes appended from one thread and read from another.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()

    func append(_ data: Data) {
        lock.withLock { bytes.append(data) }
    }

    var data: Data {
        lock.withLock { bytes }
    }
}

/// A scratch folder for one test, removed afterwards.
final class Scratch {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `plist` as a property list file called `name`; returns its path.
    @discardableResult
    func plist(_ name: String, _ plist: Any, format: PropertyListSerialization.PropertyListFormat = .xml) throws -> String {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
        return try file(name, data)
    }

    @discardableResult
    func file(_ name: String, _ data: Data) throws -> String {
        let target = path(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: target))
        return target
    }

    @discardableResult
    func folder(_ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
        return path(name)
    }

    func contents(_ name: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path(name))) ?? []).sorted()
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
