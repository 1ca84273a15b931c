@testable import DarkroomCore
import XCTest

final class DownloadFailureTests: XCTestCase {
    func testCodesAndMessages() {
        let cases: [(DownloadFailure, String, String)] = [
            (.http(status: 404, reason: "Not Found", retryAfter: nil), "http-404", "server answered 404 Not Found"),
            (.http(status: 599, reason: "", retryAfter: nil), "http-599", "server answered 599"),
            (.timeout("no byte received for 30 seconds"), "timeout", "no byte received for 30 seconds"),
            (.connection("connection refused"), "connection", "connection refused"),
            (.tooLarge(limit: 67_108_864), "too-large", "more than 67108864 bytes"),
            (.addressNotAllowed("169.254.169.254 is link-local"), "address-not-allowed", "169.254.169.254 is link-local"),
            (.schemeNotAllowed("redirect to ftp"), "scheme-not-allowed", "redirect to ftp"),
            (.invalidURL("bad redirect"), "invalid-url", "bad redirect"),
            (.internal("oops"), "internal", "oops"),
        ]
        for (failure, code, message) in cases {
            XCTAssertEqual(failure.code, code)
            XCTAssertEqual(failure.message, message)
            XCTAssertEqual(failure.description, "\(code): \(message)")
        }
        XCTAssertEqual(DownloadFailure.httpStatus(404).description, "http-404: server answered 404 Not Found")
        XCTAssertEqual(DownloadFailure.httpStatus(503, retryAfter: 5).retryAfter, 5)
        XCTAssertNil(DownloadFailure.timeout("t").retryAfter)
    }

    func testTransience() {
        XCTAssertTrue(DownloadFailure.connection("reset").isTransient)
        XCTAssertTrue(DownloadFailure.timeout("slow").isTransient)
        for status in [500, 502, 503, 504, 599, 429, 408] {
            XCTAssertTrue(DownloadFailure.httpStatus(status).isTransient, "\(status)")
        }
        for status in [400, 401, 403, 404, 410, 413, 451, 499, 301, 304] {
            XCTAssertFalse(DownloadFailure.httpStatus(status).isTransient, "\(status)")
        }
        XCTAssertFalse(DownloadFailure.tooLarge(limit: 1).isTransient)
        XCTAssertFalse(DownloadFailure.addressNotAllowed("x").isTransient)
        XCTAssertFalse(DownloadFailure.schemeNotAllowed("x").isTransient)
        XCTAssertFalse(DownloadFailure.invalidURL("x").isTransient)
        XCTAssertFalse(DownloadFailure.internal("x").isTransient)
    }
}
