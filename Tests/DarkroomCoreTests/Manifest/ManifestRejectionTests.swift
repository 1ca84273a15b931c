@testable import DarkroomCore
import DarkroomTestSupport
import XCTest

final class ManifestRejectionTests: XCTestCase {
    private func rejection(_ data: Data, options: ManifestOptions = ManifestOptions(), file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            let manifest = try ManifestParser.parse(data, name: "m", options: options)
            XCTFail("parsed, with \(manifest.entries.count) entries", file: file, line: line)
            return nil
        } catch {
            return error.message
        }
    }

    func testNotAPropertyList() throws {
        let message = try XCTUnwrap(rejection(Data("this is not a plist <<<".utf8)))
        XCTAssertTrue(message.hasPrefix("not a property list: "), message)
        XCTAssertGreaterThan(message.count, "not a property list: ".count + 5)
    }

    func testZeroBytes() {
        XCTAssertEqual(rejection(Data()), "not a property list: the file is empty")
    }

    func testTruncatedXML() throws {
        let whole = plist("<dict><key>a</key><string>http://h/a</string></dict>")
        let message = try XCTUnwrap(rejection(whole.prefix(whole.count / 2)))
        XCTAssertTrue(message.hasPrefix("not a property list: "), message)
    }

    func testOldStyleTextPlistIsRejected() throws {
        let message = try XCTUnwrap(rejection(Data("{ a = \"http://h/a\"; }".utf8)))
        XCTAssertTrue(message.contains("OpenStep"), message)
    }

    func testRootTypes() {
        XCTAssertEqual(rejection(plist("<array><string>http://h/a</string></array>")), "the root is an array; a manifest is a dictionary")
        XCTAssertEqual(rejection(plist("<string>http://h/a</string>")), "the root is a string; a manifest is a dictionary")
        XCTAssertEqual(rejection(plist("<integer>4</integer>")), "the root is an integer; a manifest is a dictionary")
        XCTAssertEqual(rejection(plist("<true/>")), "the root is a boolean; a manifest is a dictionary")
    }

    func testOversizeIsRejectedBeforeParsing() {
        let options = ManifestOptions(maxBytes: 10)
        // Not even a plist: the size alone decides.
        XCTAssertEqual(rejection(Data(repeating: 0x41, count: 11), options: options), "11 bytes is more than the limit of 10")
        XCTAssertEqual(ManifestOptions().maxBytes, 16_777_216)
        XCTAssertEqual(rejection(Data(count: 16_777_217)), "16777217 bytes is more than the limit of 16777216")
    }

    func testExactlyTheLimitIsAccepted() throws {
        let data = plist("<dict/>")
        XCTAssertNoThrow(try ManifestParser.parse(data, name: "m", options: ManifestOptions(maxBytes: data.count)))
    }

    func testThousandNestedArraysIsARejectionNotACrash() throws {
        let data = plist(String(repeating: "<array>", count: 1000) + String(repeating: "</array>", count: 1000))
        let message = try XCTUnwrap(rejection(data))
        XCTAssertTrue(message.hasPrefix("not a property list: "), message)
    }

    func testThousandNestedDictionariesIsARejectionNotACrash() throws {
        let data = plist(String(repeating: "<dict><key>photos</key>", count: 1000) + "<string/>" + String(repeating: "</dict>", count: 1000))
        let message = try XCTUnwrap(rejection(data))
        XCTAssertTrue(message.hasPrefix("not a property list: "), message)
    }

    func testDeeplyNestedBinaryPlistIsARejectionNotACrash() throws {
        var nested: Any = [Any]()
        for _ in 0..<1000 { nested = [nested] }
        let data = try binaryPlist(["photos": nested])
        XCTAssertNotNil(rejection(data))
    }

    func testTooManyEntries() {
        let options = ManifestOptions(maxEntries: 3)
        let four = (1...4).map { "<key>p\($0)</key><string>http://h/\($0)</string>" }.joined()
        XCTAssertEqual(rejection(plist("<dict>\(four)</dict>"), options: options), "4 entries is more than the limit of 3")
        let array = (1...4).map { "<dict><key>name</key><string>p\($0)</string><key>url</key><string>http://h/\($0)</string></dict>" }.joined()
        XCTAssertEqual(rejection(plist("<dict><key>photos</key><array>\(array)</array></dict>"), options: options), "4 entries is more than the limit of 3")
        XCTAssertEqual(ManifestOptions().maxEntries, 200_000)
    }

    func testExactlyMaxEntriesIsAccepted() throws {
        let photos = (0..<20_000).map { ["name": "p\($0)", "url": "https://h/\($0).jpg"] }
        let data = try binaryPlist(["photos": photos])
        let manifest = try ManifestParser.parse(data, name: "m", options: ManifestOptions(maxEntries: 20_000))
        XCTAssertEqual(manifest.entries.count, 20_000)
        XCTAssertTrue(manifest.entries.allSatisfy(\.isValid))
        XCTAssertEqual(manifest.entries.last?.name, "p19999")
        XCTAssertEqual(rejection(data, options: ManifestOptions(maxEntries: 19_999)), "20000 entries is more than the limit of 19999")
    }

    func testBadManifestLevelValuesRejectNamingKeyAndValue() {
        func manifest(_ key: String, _ value: String) -> Data {
            plist("<dict><key>\(key)</key>\(value)<key>photos</key><dict><key>a</key><string>http://h/a</string></dict></dict>")
        }
        XCTAssertEqual(rejection(manifest("priority", "<string>urgent</string>")), "priority 'urgent' is not one of veryLow, low, normal, high, veryHigh")
        XCTAssertEqual(rejection(manifest("priority", "<integer>3</integer>")), "priority is an integer (3), not one of veryLow, low, normal, high, veryHigh")
        XCTAssertEqual(rejection(manifest("intensity", "<real>-0.1</real>")), "intensity -0.1 is not between 0 and 1")
        XCTAssertEqual(rejection(manifest("intensity", "<integer>2</integer>")), "intensity 2 is not between 0 and 1")
        XCTAssertEqual(rejection(manifest("intensity", "<true/>")), "intensity is a boolean (true), not a number between 0 and 1")
        XCTAssertEqual(rejection(manifest("format", "<string>webp</string>")), "format 'webp' is not one of jpeg, png, source")
        XCTAssertEqual(rejection(manifest("quality", "<integer>101</integer>")), "quality 101 is not between 1 and 100")
        XCTAssertEqual(rejection(manifest("quality", "<real>80.5</real>")), "quality is a real number (80.5), not an integer between 1 and 100")
        XCTAssertEqual(rejection(manifest("quality", "<string>90</string>")), "quality is a string ('90'), not an integer between 1 and 100")
    }

    func testBoundaryValuesAreAccepted() throws {
        let data = plist("<dict><key>intensity</key><integer>0</integer><key>quality</key><integer>100</integer><key>photos</key><dict/></dict>")
        XCTAssertNoThrow(try ManifestParser.parse(data, name: "m"))
        let data2 = plist("<dict><key>intensity</key><real>1.0</real><key>quality</key><integer>1</integer><key>photos</key><dict/></dict>")
        XCTAssertNoThrow(try ManifestParser.parse(data2, name: "m"))
    }

    func testLongValuesAreCutInMessages() throws {
        let long = String(repeating: "x", count: 5000)
        let message = try XCTUnwrap(rejection(plist("<dict><key>priority</key><string>\(long)</string><key>photos</key><dict/></dict>")))
        XCTAssertLessThan(message.count, 200)
    }

    func testRejectionDescriptionIsTheMessage() {
        XCTAssertEqual(ManifestRejection("x y").description, "x y")
        XCTAssertEqual(ManifestRejection(message: "x y"), ManifestRejection("x y"))
    }

    func testRandomBytesNeverCrash() {
        var generator = SeededGenerator(seed: 7)
        let valid = Array(plist("<dict><key>a</key><string>http://h/a</string><key>photos</key><array><dict><key>name</key><string>n</string></dict></array></dict>"))
        for round in 0..<300 {
            var bytes = valid
            for _ in 0..<(1 + round % 5) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? ManifestParser.parse(Data(bytes), name: "m")
            _ = try? ManifestParser.parse(Data(bytes.prefix(round % bytes.count)), name: "m")
        }
    }
}
