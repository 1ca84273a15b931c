@testable import DarkroomCore
import DarkroomTestSupport
import XCTest

final class PhotoFileNameTests: XCTestCase {
    private func hash(_ name: String) -> String {
        String(SHA256.hex(name.utf8).prefix(10))
    }

    /// The invariants SPEC §3 asks of every file name.
    private func assertSafe(_ base: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(base.isEmpty, file: file, line: line)
        XCTAssertNotEqual(base, ".", file: file, line: line)
        XCTAssertNotEqual(base, "..", file: file, line: line)
        XCTAssertFalse(base.hasPrefix("."), base, file: file, line: line)
        XCTAssertFalse(base.utf8.contains(UInt8(ascii: "/")), base, file: file, line: line)
        XCTAssertFalse(base.utf8.contains(UInt8(ascii: "\\")), base, file: file, line: line)
        XCTAssertFalse(base.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, base.debugDescription, file: file, line: line)
        XCTAssertLessThanOrEqual(base.utf8.count, PhotoFileName.maxBaseBytes + 11, file: file, line: line)
    }

    func testOrdinaryNamesAreKept() {
        for name in ["Pumpkins", "Bridge in Kent", "IMG_0001", "fête de la musique", "写真", "a_b", "a.b.c", "x~y", "😀"] {
            XCTAssertEqual(PhotoFileName.baseName(for: name), name)
        }
    }

    func testPathTraversalStaysInside() {
        let base = PhotoFileName.baseName(for: "../../etc/passwd")
        XCTAssertEqual(base, "_._.._etc_passwd~" + hash("../../etc/passwd"))
        assertSafe(base)
        XCTAssertEqual(PhotoFileName.baseName(for: "/abs"), "_abs~" + hash("/abs"))
        XCTAssertEqual(PhotoFileName.baseName(for: "a\\b"), "a_b~" + hash("a\\b"))
    }

    func testLeadingDot() {
        XCTAssertEqual(PhotoFileName.baseName(for: ".hidden"), "_hidden~" + hash(".hidden"))
        XCTAssertEqual(PhotoFileName.baseName(for: "."), "_~" + hash("."))
        XCTAssertEqual(PhotoFileName.baseName(for: ".."), "_.~" + hash(".."))
        XCTAssertEqual(PhotoFileName.baseName(for: "a.."), "a..", "only a leading dot matters")
    }

    func testEmpty() {
        XCTAssertEqual(PhotoFileName.baseName(for: ""), "_~" + hash(""))
        XCTAssertNotEqual(PhotoFileName.baseName(for: ""), PhotoFileName.baseName(for: "."))
        XCTAssertNotEqual(PhotoFileName.baseName(for: ""), PhotoFileName.baseName(for: "_"))
    }

    func testSeparatorsNeverCollideWithGenuineUnderscores() {
        XCTAssertEqual(PhotoFileName.baseName(for: "a_b"), "a_b")
        XCTAssertEqual(PhotoFileName.baseName(for: "a/b"), "a_b~" + hash("a/b"))
        XCTAssertNotEqual(PhotoFileName.baseName(for: "a/b"), PhotoFileName.baseName(for: "a\\b"))
    }

    func testForgedHashSuffixIsHashedToo() {
        let forged = PhotoFileName.baseName(for: "a/b")
        XCTAssertEqual(PhotoFileName.baseName(for: forged), forged + "~" + hash(forged))
        XCTAssertNotEqual(PhotoFileName.baseName(for: forged), forged)
        XCTAssertEqual(PhotoFileName.baseName(for: "x~0123456789"), "x~0123456789~" + hash("x~0123456789"))
        XCTAssertEqual(PhotoFileName.baseName(for: "x~ABCDEF0123"), "x~ABCDEF0123~" + hash("x~ABCDEF0123"))
        XCTAssertEqual(PhotoFileName.baseName(for: "x~012345678"), "x~012345678", "9 digits is not the pattern")
        XCTAssertEqual(PhotoFileName.baseName(for: "x~012345678g"), "x~012345678g")
    }

    func testControlCharacters() {
        let name = "a\u{0}b\u{1}c\nd\te\u{7F}f\u{85}g\u{9F}h"
        let base = PhotoFileName.baseName(for: name)
        XCTAssertEqual(base, "a_b_c_d_e_f_g_h~" + hash(name))
        assertSafe(base)
    }

    func testLongASCIIIsCut() {
        let name = String(repeating: "x", count: 300)
        let base = PhotoFileName.baseName(for: name)
        XCTAssertEqual(base, String(repeating: "x", count: 120) + "~" + hash(name))
        XCTAssertEqual(base.utf8.count, 131)
        XCTAssertEqual(PhotoFileName.baseName(for: String(repeating: "x", count: 120)), String(repeating: "x", count: 120), "exactly the limit is kept")
        XCTAssertNotEqual(PhotoFileName.baseName(for: String(repeating: "x", count: 301)), base, "same prefix, different hash")
    }

    func testLongMultiByteNamesAreCutOnCharacterBoundaries() {
        // 1,000 bytes of 3-byte characters and 4-byte emoji, offset by one ASCII byte so
        // a byte cut at 120 would land inside a character.
        let name = "x" + String(repeating: "写😀", count: 143)
        XCTAssertGreaterThanOrEqual(name.utf8.count, 1000)
        let base = PhotoFileName.baseName(for: name)
        assertSafe(base)
        let text = String(base.dropLast(11))
        XCTAssertLessThanOrEqual(text.utf8.count, 120)
        XCTAssertGreaterThan(text.utf8.count, 120 - 4)
        XCTAssertTrue(name.hasPrefix(text), "a whole-character prefix of the name")
        XCTAssertFalse(text.unicodeScalars.contains("\u{FFFD}"))

        let accents = String(repeating: "e\u{301}", count: 200) // 3 bytes per character
        let cut = String(PhotoFileName.baseName(for: accents).dropLast(11))
        XCTAssertEqual(cut.utf8.count, 120)
        XCTAssertEqual(cut.unicodeScalars.last, "\u{301}", "no accent separated from its letter")
    }

    func testOneHugeCharacterIsCutBetweenScalars() {
        let name = "a" + String(repeating: "\u{301}", count: 500)
        XCTAssertEqual(name.count, 1)
        let base = PhotoFileName.baseName(for: name)
        assertSafe(base)
        XCTAssertEqual(base.utf8.count, 119 + 11)
    }

    func testDeterministic() {
        for name in ["a/b", "../../etc/passwd", String(repeating: "é", count: 500), ""] {
            XCTAssertEqual(PhotoFileName.baseName(for: name), PhotoFileName.baseName(for: name))
        }
        // Fixed expectation, so a change of algorithm is noticed: outputs on disk depend on it.
        XCTAssertEqual(PhotoFileName.baseName(for: "abc/"), "abc_~" + "ee08f01097")
    }

    func testFuzzInvariantsAndInjectivity() {
        var generator = SeededGenerator(seed: 2026)
        let alphabet: [Unicode.Scalar] = ["a", "b", "_", ".", "/", "\\", "~", "0", "f", " ", "\u{0}", "\u{1}", "\n", "\u{7F}", "\u{85}", "é", "写", "😀", "\u{301}", "-"]
        var byBytes: [[UInt8]: [UInt8]] = [:]
        var outputs: Set<[UInt8]> = []
        var rounds = 0
        while rounds < 2000 {
            let length: Int
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: length = Int.random(in: 100...400, using: &generator)
            case 1: length = Int.random(in: 0...2, using: &generator)
            default: length = Int.random(in: 1...16, using: &generator)
            }
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(alphabet.randomElement(using: &generator)!) }
            if Int.random(in: 0..<8, using: &generator) == 0 {
                // Sometimes a real output, to try to collide with it.
                scalars = PhotoFileName.baseName(for: String(scalars)).unicodeScalars
            }
            let name = String(scalars)
            let input = Array(name.utf8)
            if byBytes[input] != nil { continue }
            rounds += 1
            let base = PhotoFileName.baseName(for: name)
            assertSafe(base)
            let output = Array(base.utf8)
            XCTAssertFalse(outputs.contains(output), "two names map to \(base.debugDescription)")
            outputs.insert(output)
            byBytes[input] = output
        }
        XCTAssertEqual(outputs.count, 2000)
    }
}
