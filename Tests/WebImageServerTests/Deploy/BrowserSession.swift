import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Debian's headless Chromium, driven through chromedriver's WebDriver HTTP API on a
/// loopback port. The browser gets a throwaway profile and every flag that keeps it off
/// the network (no background, component, sync or update traffic; host names other than
/// localhost do not resolve), so the only pages it reaches are the test's own on 127.0.0.1.
struct BrowserSession: Sendable {
    static let chromium: URL? = ChildProcess.find(["chromium", "chromium-browser"])
    static let chromedriver: URL? = ChildProcess.find(["chromedriver"])
    /// Why the browser tests cannot run here, or `nil` when they can.
    static let unavailableReason: String? = chromium == nil || chromedriver == nil
        ? "Chromium or chromedriver is not installed: `make test-deps` installs Debian's chromium and chromium-driver"
        : nil

    let driver: ChildProcess
    let session: String
    let client: HTTPClient

    /// Starts chromedriver and a browser session whose device pixel ratio is `scale`.
    static func start(work: URL, scale: Int, client: HTTPClient) async throws -> BrowserSession {
        guard let chromium, let chromedriver else { throw DeployTestError(unavailableReason ?? "no browser") }
        let port = try ChildProcess.freePort()
        let profile = work.appendingPathComponent("profile-\(scale)x")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let driver = try ChildProcess(
            "chromedriver :\(port)", executable: chromedriver,
            arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-level=WARNING"],
            log: work.appendingPathComponent("chromedriver-\(scale)x.log"))
        let base = "http://127.0.0.1:\(port)"
        do {
            try await ServeInstance.waitUntilHealthy(base + "/status", process: driver, client: client, timeout: .seconds(30))
            let arguments = [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--user-data-dir=\(profile.path)", "--window-size=1280,1600", "--force-device-scale-factor=\(scale)",
                "--hide-scrollbars", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--disable-breakpad",
                "--metrics-recording-only", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
            ]
            let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
                "browserName": "chrome",
                "goog:chromeOptions": ["binary": chromium.path, "args": arguments],
            ]]]
            let created = try await request(client, .POST, base + "/session", capabilities)
            guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
                throw DeployTestError("chromedriver made no session: \(created)\n\(driver.logTail)")
            }
            let session = BrowserSession(driver: driver, session: base + "/session/" + id, client: client)
            _ = try await session.command(.POST, "/timeouts", ["script": 60_000, "pageLoad": 60_000])
            return session
        } catch {
            await driver.stop()
            throw error
        }
    }

    /// Opens `url` and waits for its load event.
    func open(_ url: String) async throws {
        _ = try await command(.POST, "/url", ["url": url])
    }

    /// Runs `script` as an asynchronous WebDriver script (it calls its last argument with
    /// the result) and returns that result.
    func executeAsync(_ script: String) async throws -> Any? {
        try await command(.POST, "/execute/async", ["script": script, "args": [Any]()])["value"]
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        guard let text = try await command(.GET, "/screenshot", nil)["value"] as? String,
              let png = Data(base64Encoded: text) else { throw DeployTestError("no screenshot") }
        return png
    }

    /// Ends the session (chromedriver quits the browser), then chromedriver.
    func close() async {
        _ = try? await command(.DELETE, "", nil)
        await driver.stop()
    }

    private func command(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        let reply = try await Self.request(client, method, session + path, body)
        if let value = reply["value"] as? [String: Any], let error = value["error"] as? String {
            throw DeployTestError("WebDriver \(path): \(error): \(value["message"] ?? "")")
        }
        return reply
    }

    private static func request(
        _ client: HTTPClient, _ method: HTTPMethod, _ url: String, _ body: [String: Any]?
    ) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: body))))
        }
        let response = try await client.execute(request, timeout: .seconds(90))
        let data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DeployTestError("WebDriver answered no JSON object (HTTP \(response.status.code))")
        }
        return object
    }
}
