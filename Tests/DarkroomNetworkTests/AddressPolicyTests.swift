import DarkroomCore
@testable import DarkroomNetwork
import DarkroomTestSupport
import Foundation
import XCTest

final class AddressPolicyTests: XCTestCase {
    func testLinkLocalIsAlwaysRefused() {
        let open = AddressPolicy(denyPrivateNetworks: false)
        for address in ["169.254.169.254", "169.254.0.1", "fe80::1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe"] {
            XCTAssertNotNil(open.refusal(of: address), address)
        }
        XCTAssertEqual(open.refusal(of: "169.254.169.254"), "169.254.169.254 is a link-local address")
    }

    func testPrivateAddressesAreRefusedOnlyWhenDenied() {
        let open = AddressPolicy(denyPrivateNetworks: false)
        let closed = AddressPolicy(denyPrivateNetworks: true)
        let privateAddresses = [
            "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1",
            "0.0.0.0", "::1", "::", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "224.0.0.1", "ff02::1",
        ]
        for address in privateAddresses {
            XCTAssertNil(open.refusal(of: address), address)
            XCTAssertNotNil(closed.refusal(of: address), address)
        }
        XCTAssertEqual(closed.refusal(of: "10.1.2.3"), "10.1.2.3 is a private address (private networks are denied)")
    }

    func testPublicAddressesAreAllowed() {
        let closed = AddressPolicy(denyPrivateNetworks: true)
        for address in ["93.184.216.34", "8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:2800:220:1::1", "::ffff:8.8.8.8"] {
            XCTAssertNil(closed.refusal(of: address), address)
        }
        XCTAssertNil(closed.refusal(of: "photos.example.com"), "names are judged by their addresses")
    }

    func testDownloaderRefusesADeniedAddressBeforeConnecting() async throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        server.route("/photo.jpg", .bytes(Data([1, 2, 3])))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloader = HTTPDownloader(configuration: .init(addressPolicy: AddressPolicy(denyPrivateNetworks: true)))

        let literal = await downloadFailure(
            downloader,
            DownloadRequest(url: URL(string: server.url("/photo.jpg"))!, destination: directory.file("a"), maxBytes: 100)
        )
        XCTAssertEqual(literal?.code, "address-not-allowed")
        XCTAssertEqual(literal?.isTransient, false)

        let name = await downloadFailure(
            downloader,
            DownloadRequest(url: URL(string: "http://localhost:\(server.port)/photo.jpg")!, destination: directory.file("b"), maxBytes: 100)
        )
        XCTAssertEqual(name?.code, "address-not-allowed")
        XCTAssertTrue(name?.message.hasPrefix("localhost resolves to ") ?? false, "\(String(describing: name))")
        XCTAssertEqual(server.requestCount("/photo.jpg"), 0)
        try await downloader.shutdown()
    }

    func testEveryRedirectIsChecked() async throws {
        let server = try FaultServer.start()
        defer { server.shutdown() }
        // Only loopback addresses, so nothing leaves this machine even if the check failed.
        server.route("/start", .redirect(to: "http://127.0.0.2:\(server.port)/photo.jpg"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var policy = AddressPolicy()
        policy.alsoRefused = ["127.0.0.2"]
        let downloader = HTTPDownloader(configuration: .init(addressPolicy: policy))

        let failure = await downloadFailure(
            downloader,
            DownloadRequest(url: URL(string: server.url("/start"))!, destination: directory.file("a"), maxBytes: 100)
        )

        XCTAssertEqual(failure, DownloadFailure.addressNotAllowed("127.0.0.2 is refused"))
        XCTAssertEqual(server.requestCount("/start"), 1)
        try await downloader.shutdown()
    }

    func testRetryAfterParsing() {
        XCTAssertEqual(parseRetryAfter("120"), 120)
        XCTAssertEqual(parseRetryAfter(" 0 "), 0)
        XCTAssertNil(parseRetryAfter("-5"))
        XCTAssertNil(parseRetryAfter("soon"))
        let inAMinute = Date().addingTimeInterval(60)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let seconds = parseRetryAfter(formatter.string(from: inAMinute))
        XCTAssertEqual(seconds ?? -1, 60, accuracy: 2)
        XCTAssertEqual(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), 0, "a date in the past means now")
    }
}
