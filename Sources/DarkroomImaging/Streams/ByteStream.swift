#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A C `FILE` stream that the codecs read from or write to, closed when released.
///
/// The imaging module only moves bytes through these; naming, temporary files,
/// fsync and renames belong to the caller (see `DarkroomStorage`).
/// Not thread-safe: one user at a time.
public final class ByteStream {
    let file: UnsafeMutablePointer<FILE>
    /// The copy a memory reader reads from.
    private var retainedBytes: UnsafeMutableRawBufferPointer?
    /// Where `open_memstream` keeps the buffer and size of a memory writer.
    private var memoryBox: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>)?

    private init(file: UnsafeMutablePointer<FILE>) {
        self.file = file
        // libjpeg and libpng write in 4 KiB pieces; a larger buffer saves system calls.
        setvbuf(file, nil, _IOFBF, 1 << 16)
    }

    /// Reads the file at `path`.
    public static func reading(path: String) throws -> ByteStream {
        guard let file = fopen(path, "rb") else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return ByteStream(file: file)
    }

    /// Reads `data` from memory (a copy is kept for the stream's lifetime).
    public static func reading(data: Data) -> ByteStream {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        _ = data.copyBytes(to: copy.bindMemory(to: UInt8.self))
        // fmemopen of zero bytes fails; open one byte and read none of it.
        let file = fmemopen(copy.baseAddress, data.count, "rb") ?? fmemopen(copy.baseAddress, 1, "rb")!
        if data.isEmpty { fgetc(file) }
        let stream = ByteStream(file: file)
        stream.retainedBytes = copy
        return stream
    }

    /// Writes to a duplicate of `fileDescriptor`; the caller keeps and closes its own.
    public static func writing(fileDescriptor: Int32) throws -> ByteStream {
        let copy = dup(fileDescriptor)
        guard copy >= 0, let file = fdopen(copy, "wb") else {
            let code = errno
            if copy >= 0 { close(copy) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return ByteStream(file: file)
    }

    /// Collects what is written in memory; read it back with `writtenBytes()`.
    public static func writingToMemory() -> ByteStream {
        let box = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
        let size = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        box.initialize(to: nil)
        size.initialize(to: 0)
        let file = open_memstream(box, size)!
        let stream = ByteStream(file: file)
        stream.memoryBox = (box, size)
        return stream
    }

    /// The bytes written so far to a `writingToMemory()` stream.
    public func writtenBytes() -> Data {
        guard let (box, size) = memoryBox else { return Data() }
        fflush(file)
        guard let base = box.pointee else { return Data() }
        return Data(bytes: base, count: size.pointee)
    }

    deinit {
        fclose(file)
        if let (box, size) = memoryBox {
            free(box.pointee)
            box.deallocate()
            size.deallocate()
        }
        retainedBytes?.deallocate()
    }
}
