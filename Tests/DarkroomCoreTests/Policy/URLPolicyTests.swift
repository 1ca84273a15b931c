@testable import DarkroomCore
import XCTest

final class URLPolicyTests: XCTestCase {
    private func problem(_ text: String, allowFileURLs: Bool = false, file: StaticString = #filePath, line: UInt = #line) -> EntryProblem? {
        switch URLPolicy.check(text, allowFileURLs: allowFileURLs) {
        case .success: return nil
        case .failure(let problem): return problem
        }
    }

    private func accepted(_ text: String, allowFileURLs: Bool = false, file: StaticString = #filePath, line: UInt = #line) -> URL? {
        switch URLPolicy.check(text, allowFileURLs: allowFileURLs) {
        case .success(let url): return url
        case .failure(let problem):
            XCTFail("\(text): \(problem)", file: file, line: line)
            return nil
        }
    }

    func testPlainHTTPAndHTTPS() {
        XCTAssertEqual(accepted("http://example.com/a.jpg")?.absoluteString, "http://example.com/a.jpg")
        XCTAssertEqual(accepted("https://example.com:8443/p/a.png?x=1#f")?.port, 8443)
        XCTAssertEqual(accepted("http://[::1]:8080/x.jpg")?.port, 8080)
        XCTAssertNotNil(accepted("http://127.0.0.1:65535/a"))
        XCTAssertNotNil(accepted("http://h:1/a"))
    }

    func testUppercaseSchemeIsAccepted() {
        XCTAssertNotNil(accepted("HTTP://EXAMPLE.COM/A.JPG"))
        XCTAssertNotNil(accepted("HtTpS://example.com/"))
    }

    func testNoURLMarkerAndEmpty() {
        XCTAssertEqual(problem(""), .invalidURL("no URL"))
        XCTAssertEqual(problem("NO URL")?.code, "invalid-url")
        XCTAssertEqual(problem("no url")?.code, "invalid-url")
    }

    func testWhiteSpaceIsNotTrimmed() {
        XCTAssertEqual(problem(" http://h/a.jpg")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h/a.jpg ")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h/a.jpg\n")?.code, "invalid-url")
        XCTAssertEqual(problem("   ")?.code, "invalid-url")
    }

    func testControlCharactersAndBackslashes() {
        XCTAssertEqual(problem("http://h/a\r\nHost: evil")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h/a\u{0}b")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h/a\u{85}b")?.code, "invalid-url")
        XCTAssertEqual(problem("http://evil\\@good/")?.code, "invalid-url")
        XCTAssertEqual(problem("http://good\\evil.com/")?.code, "invalid-url")
    }

    func testRelativeURLs() {
        XCTAssertEqual(problem("photos/a.jpg")?.code, "invalid-url")
        XCTAssertEqual(problem("/abs/a.jpg")?.code, "invalid-url")
        XCTAssertEqual(problem("//host/a.jpg")?.code, "invalid-url")
        XCTAssertEqual(problem("a.jpg")?.code, "invalid-url")
    }

    func testOtherSchemesAreNotAllowed() throws {
        for text in ["javascript:alert(1)", "ftp://h/a.jpg", "data:image/png;base64,AAAA", "gopher://h/", "mailto:a@b"] {
            XCTAssertEqual(problem(text)?.code, "scheme-not-allowed", text)
            XCTAssertEqual(problem(text, allowFileURLs: true)?.code, "scheme-not-allowed", text)
        }
        let message = try XCTUnwrap(problem("ftp://h/a.jpg")).message
        XCTAssertTrue(message.contains("'ftp'"), message)
    }

    func testFileURLsNeedTheFlag() throws {
        XCTAssertEqual(problem("file:///srv/a.jpg")?.code, "scheme-not-allowed")
        XCTAssertEqual(problem("FILE:///srv/a.jpg")?.code, "scheme-not-allowed")
        XCTAssertTrue(try XCTUnwrap(problem("file:///srv/a.jpg")).message.contains("'file'"))
        XCTAssertEqual(accepted("file:///srv/a.jpg", allowFileURLs: true)?.path, "/srv/a.jpg")
        XCTAssertNotNil(accepted("file://localhost/srv/a.jpg", allowFileURLs: true))
        XCTAssertNotNil(accepted("file:/srv/a.jpg", allowFileURLs: true))
        XCTAssertEqual(problem("file://otherhost/srv/a.jpg", allowFileURLs: true)?.code, "invalid-url")
        XCTAssertEqual(problem("file:relative.jpg", allowFileURLs: true)?.code, "invalid-url")
    }

    func testHTTPNeedsAHost() {
        XCTAssertEqual(problem("http:///path")?.code, "invalid-url")
        XCTAssertEqual(problem("http:foo")?.code, "invalid-url")
        XCTAssertEqual(problem("https://")?.code, "invalid-url")
        XCTAssertEqual(problem("http://%31%32%37.0.0.1/")?.code, "invalid-url")
    }

    func testCredentialsAreRefused() {
        XCTAssertEqual(problem("http://127.0.0.1@evil/"), .invalidURL("credentials in URLs are not accepted"))
        XCTAssertEqual(problem("https://user:pass@h/a.jpg"), .invalidURL("credentials in URLs are not accepted"))
        XCTAssertEqual(problem("http://@h/")?.code, "invalid-url")
    }

    func testPorts() {
        XCTAssertEqual(problem("http://h:0/")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h:99999/")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h:-1/")?.code, "invalid-url")
        XCTAssertEqual(problem("http://h:80x/")?.code, "invalid-url")
        XCTAssertNotNil(accepted("http://h:/a"), "an empty port means the default")
    }

    func testLength() {
        let long = "http://example.com/" + String(repeating: "a", count: 10_000)
        let result = problem(long)
        XCTAssertEqual(result?.code, "invalid-url")
        XCTAssertTrue(result?.message.contains("8192") ?? false)
        let exact = "http://example.com/" + String(repeating: "a", count: URLPolicy.maxLength - 19)
        XCTAssertEqual(exact.utf8.count, URLPolicy.maxLength)
        XCTAssertNotNil(accepted(exact))
        XCTAssertEqual(problem(exact + "a")?.code, "invalid-url")
    }

    func testInternationalHostNames() {
        XCTAssertEqual(accepted("http://bücher.example/a.jpg")?.host, "xn--bcher-kva.example")
        XCTAssertNotNil(accepted("https://例え.テスト/写真.jpg"))
        XCTAssertEqual(problem("http://exa mple.com/")?.code, "invalid-url")
    }

    func testNonASCIIPathsAreEncoded() {
        XCTAssertEqual(accepted("https://example.com/é.jpg")?.absoluteString, "https://example.com/%C3%A9.jpg")
    }
}
