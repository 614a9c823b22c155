import Dispatch
import FaultlineBackend
import FaultlinePosix
import Foundation
import Testing

/// Starts a backend on 127.0.0.1:0, runs `body` with it and its port, and stops it.
func withBackend<T>(_ body: (ReferenceBackend, Int) throws -> T) throws -> T {
    try withBackend(BackendConfiguration(), body)
}

/// Starts a backend with `configuration`, runs `body` with it and its port, and stops it.
func withBackend<T>(_ configuration: BackendConfiguration, _ body: (ReferenceBackend, Int) throws -> T) throws -> T {
    let backend = ReferenceBackend(configuration: configuration)
    let address = try backend.start()
    defer { backend.stop() }
    return try body(backend, address.port)
}

/// Logs `account` in on `client` and returns its credentials.
func login(_ client: BackendClient, _ account: String = "alice") throws -> Credentials {
    let response = try client.token("grant_type=password&username=\(account)&password=secret")
    try #require(response.status == 200, "login failed: \(response.status) \(response.text)")
    return try Credentials(response)
}

/// Runs `body(index)` on `count` threads released together; false when they did not all finish
/// within `deadline` seconds.
func runConcurrently(_ count: Int, deadline: Int = 30, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let gate = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        let thread = Thread {
            gate.wait()
            body(index)
            finished.leave()
        }
        thread.start()
    }
    for _ in 0..<count { gate.signal() }
    return finished.wait(timeout: .now() + .seconds(deadline)) == .success
}

/// Results gathered from several threads.
///
/// `@unchecked Sendable`: `items` is only touched while `lock` (an NSLock, which ThreadSanitizer
/// understands, unlike `Synchronization.Mutex` on Linux) is held.
final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
}
