import CDarkroomSystem
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Tells when files appear in a folder: inotify `IN_CLOSE_WRITE` (a writer closed a
/// file) and `IN_MOVED_TO` (a file was renamed in), read from a dispatch source, so an
/// idle daemon uses no CPU.
///
/// Network file systems send no inotify events for changes made on other machines;
/// the daemon backs this up with a periodic full scan.
///
/// `onChange` is called on `queue` with the name of the file, or with `nil` when the
/// kernel's event queue overflowed (then the caller should rescan everything).
public final class DirectoryWatcher: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let source: DispatchSourceRead

    public init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable (String?) -> Void) throws {
        let fd = dr_inotify_init()
        guard fd >= 0 else { throw SystemError("inotify_init1", errno: errno) }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_ONLYDIR)
        guard dr_inotify_add_watch(fd, path, mask) >= 0 else {
            let code = errno
            close(fd)
            throw SystemError("watch \(path)", errno: code)
        }
        self.path = path
        self.fd = fd
        self.source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [fd] in
            var buffer = [CChar](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if count <= 0 { break }
                var names: [String?] = []
                buffer.withUnsafeBufferPointer { raw in
                    withUnsafeMutablePointer(to: &names) { context in
                        dr_inotify_each_event(raw.baseAddress!, count, context) { context, name, mask in
                            let names = context!.assumingMemoryBound(to: [String?].self)
                            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                                names.pointee.append(nil)
                            } else if let name, name.pointee != 0 {
                                names.pointee.append(String(cString: name))
                            }
                        }
                    }
                }
                for name in names { onChange(name) }
            }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    /// Stops watching; no `onChange` call starts after this returns on `queue`.
    public func cancel() {
        source.cancel()
    }

    deinit {
        // A watcher dropped without cancel() must still close its inotify descriptor.
        source.cancel()
    }
}

/// A failed system call.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}
