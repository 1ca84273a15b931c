import Foundation

/// Finds sets in binary property lists, which Foundation on Linux cannot read safely.
///
/// swift-corelibs-foundation (Swift 6.3) crashes the process — a null pointer in the
/// runtime's cast to `AnyHashable` — when `PropertyListSerialization` bridges a non-empty
/// set (`bplist` object marker 0xC_) to Swift; a 48-byte file does it (found by fuzzing,
/// Fuzz/Regressions/manifest). Manifests never hold sets (XML cannot even write one), so
/// the parser refuses any binary plist whose offset table points at a set object, before
/// Foundation sees it. Every object Foundation can reach is listed in that table, so
/// looking at each listed offset is enough; a malformed table is left to Foundation.
enum BinaryPropertyListScreen {
    static func containsSet(_ data: Data) -> Bool {
        let trailerSize = 32
        guard data.count > 8 + trailerSize, data.starts(with: Array("bplist0".utf8)) else { return false }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            let trailer = bytes.count - trailerSize
            func bigEndian(at offset: Int, size: Int) -> UInt64 {
                (0..<size).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
            }
            let offsetSize = Int(bytes[trailer + 6])
            let count = bigEndian(at: trailer + 8, size: 8)
            let table = bigEndian(at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), table < UInt64(trailer) else { return false }
            // Only the entries that lie inside the file: Foundation cannot read the others either.
            let entries = min(count, UInt64((trailer - Int(table)) / offsetSize))
            for index in 0..<Int(entries) {
                let object = bigEndian(at: Int(table) + index * offsetSize, size: offsetSize)
                if object < UInt64(bytes.count), bytes[Int(object)] & 0xF0 == 0xC0 { return true }
            }
            return false
        }
    }
}
