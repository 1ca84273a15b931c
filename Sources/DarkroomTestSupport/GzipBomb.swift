/// Builds a gzip member whose payload inflates to `size` zero bytes, with a compression
/// ratio of about 1030:1 (100 MiB of zeros → about 100 KB), without zlib.
///
/// There is no zlib module in this package, and embedding a precomputed bomb would fix its
/// size. A run of zeros compresses to a trivially regular DEFLATE stream, so it is written
/// by hand: one dynamic-Huffman block whose literal/length alphabet has only three symbols
/// (literal 0 → `10`, end of block → `11`, length 258 → `0`) and whose distance alphabet has
/// one (distance 1 → `0`). After a first literal zero, every further 258 zeros cost two bits:
/// "copy 258 bytes from 1 byte back". This is the same stream zlib -9 produces for zeros.
enum GzipBomb {
    static func make(decompressedSize size: Int) -> [UInt8] {
        precondition(size >= 0, "a size cannot be negative")
        var writer = BitWriter()
        writer.reserve(size / 258 / 4 + 64)

        // Block header: final block, dynamic Huffman (BTYPE 2).
        writer.bits(1, count: 1)
        writer.bits(2, count: 2)
        writer.bits(29, count: 5)  // HLIT: 286 literal/length codes, up to symbol 285 (length 258)
        writer.bits(0, count: 5)  // HDIST: 1 distance code
        writer.bits(14, count: 4)  // HCLEN: 18 code-length code lengths follow

        // The code-length alphabet uses three symbols: 18 (run of zeros) → `0`, 1 → `10`, 2 → `11`.
        let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        let codeLengthLengths: [Int: UInt32] = [18: 1, 1: 2, 2: 2]
        for symbol in codeLengthOrder.prefix(18) {
            writer.bits(codeLengthLengths[symbol] ?? 0, count: 3)
        }
        let lengthOne: (UInt32, Int) = (0b10, 2)
        let lengthTwo: (UInt32, Int) = (0b11, 2)
        let zeroRun: (UInt32, Int) = (0b0, 1)

        // Code lengths of the 286 literal/length symbols, then of the one distance symbol.
        writer.code(lengthTwo)  // literal 0: 2 bits
        writer.code(zeroRun)
        writer.bits(138 - 11, count: 7)  // symbols 1...138 unused
        writer.code(zeroRun)
        writer.bits(117 - 11, count: 7)  // symbols 139...255 unused
        writer.code(lengthTwo)  // 256, end of block: 2 bits
        writer.code(zeroRun)
        writer.bits(28 - 11, count: 7)  // symbols 257...284 unused
        writer.code(lengthOne)  // 285, length 258: 1 bit
        writer.code(lengthOne)  // distance code 0 (distance 1): 1 bit

        let literalZero: (UInt32, Int) = (0b10, 2)
        let endOfBlock: (UInt32, Int) = (0b11, 2)
        if size > 0 {
            writer.code(literalZero)
            var remaining = size - 1
            while remaining >= 258 {
                writer.bits(0, count: 2)  // length 258 (`0`), distance 1 (`0`)
                remaining -= 258
            }
            for _ in 0..<remaining {
                writer.code(literalZero)
            }
        }
        writer.code(endOfBlock)
        writer.flush()

        var member: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]  // deflate, no flags, no mtime, unknown OS
        member.reserveCapacity(member.count + writer.bytes.count + 8)
        member.append(contentsOf: writer.bytes)
        member.appendLittleEndian(crc32OfZeros(count: size))
        member.appendLittleEndian(UInt32(truncatingIfNeeded: size))
        return member
    }

    /// CRC-32 (IEEE) of `count` zero bytes in O(log count): with a zero input the CRC register
    /// evolves linearly, so `count` bytes are the one-bit step matrix raised to `8 × count`
    /// over GF(2) (the technique of zlib's `crc32_combine`).
    static func crc32OfZeros(count: Int) -> UInt32 {
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var result: UInt32 = 0
            var vector = vector
            var index = 0
            while vector != 0 {
                if vector & 1 != 0 { result ^= matrix[index] }
                vector >>= 1
                index += 1
            }
            return result
        }
        var step: [UInt32] = [0xEDB8_8320] + (1..<32).map { UInt32(1) << UInt32($0 - 1) }
        var register: UInt32 = 0xFFFF_FFFF
        var exponent = UInt64(count) * 8
        while exponent != 0 {
            if exponent & 1 != 0 { register = times(step, register) }
            step = step.map { times(step, $0) }
            exponent >>= 1
        }
        return register ^ 0xFFFF_FFFF
    }
}

/// DEFLATE's bit order: integers are packed least significant bit first, Huffman codes most
/// significant bit first.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0

    mutating func reserve(_ capacity: Int) {
        self.bytes.reserveCapacity(capacity)
    }

    mutating func bits(_ value: UInt32, count: Int) {
        self.accumulator |= UInt64(value) << UInt64(self.pending)
        self.pending += count
        while self.pending >= 8 {
            self.bytes.append(UInt8(truncatingIfNeeded: self.accumulator))
            self.accumulator >>= 8
            self.pending -= 8
        }
    }

    mutating func code(_ code: (UInt32, Int)) {
        var reversed: UInt32 = 0
        for index in 0..<code.1 {
            reversed = (reversed << 1) | ((code.0 >> UInt32(index)) & 1)
        }
        self.bits(reversed, count: code.1)
    }

    mutating func flush() {
        if self.pending > 0 {
            self.bytes.append(UInt8(truncatingIfNeeded: self.accumulator))
            self.accumulator = 0
            self.pending = 0
        }
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            self.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }
}
