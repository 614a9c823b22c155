import FaultlineTesting
import Foundation
import Synchronization
import Testing

/// What fifty scopes running at once cost, and that they leave nothing behind: descriptors
/// (`/proc/self/fd`) and threads (`/proc/self/task`) are counted before and after, and the
/// resident memory of fifty idle proxies is printed. Other tests open descriptors and threads
/// of their own, so this runs alone, in a process of its own:
/// `FAULTLINE_FIXTURE_RESOURCES=1 swift test --package-path Tests/TestingFixture --filter ResourceTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FAULTLINE_FIXTURE_RESOURCES"] == "1"))
struct ResourceTests {
    static let scopes = 50

    /// Entries of a `/proc/self` folder (descriptors, threads); nil off Linux. Threads of
    /// libdispatch's worker pool (named after their QoS: `-qos.overcommit`, `.background-qos`)
    /// are left out: the pool grows with any concurrent work, the URLSession clients' included,
    /// and shrinks on its own timetable, and no scope starts or owns one.
    static func count(_ folder: String) -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/\(folder)") else {
            return nil
        }
        guard folder == "task" else { return entries.count }
        return entries.filter { !threadName($0).contains("qos") }.count
    }

    /// A thread's name (`/proc/self/task/ID/comm`).
    static func threadName(_ task: String) -> String {
        ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What each descriptor points at and each thread's name, to name what a test left behind.
    static func inventory() -> [String] {
        let manager = FileManager.default
        let descriptors = ((try? manager.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).map {
            "fd \($0) -> " + ((try? manager.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "?")
        }
        var threads: [String: Int] = [:]
        for task in (try? manager.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            threads[threadName(task), default: 0] += 1
        }
        return (descriptors + threads.map { "threads \($0.key) x\($0.value)" }).sorted()
    }

    /// Resident memory in kB (`VmRSS` of `/proc/self/status`); nil off Linux.
    static func residentKB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// One scope's work: a login and a business request through the proxy.
    static func exercise(_ faultline: Faultline) async throws {
        let client = Client(baseURL: faultline.baseURL)
        let tokens = try await client.login()
        #expect(try await client.me(tokens) == 200)
    }

    /// Waits (two seconds at most) for a count to come back to `baseline`: a stopped loop's
    /// thread ends a moment after `stop` returns.
    static func settle(_ folder: String, to baseline: Int) async throws -> Int? {
        for _ in 0..<40 {
            if let now = count(folder), now <= baseline { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        return count(folder)
    }

    @Test func fiftyScopesAtOnceLeaveNoDescriptorOrThread() async throws {
        let configuration = Faultline.Configuration(rules: try FixtureRules.profileOnly(), acceptingUnchecked: [])
        // A first scope makes what lives for the whole process (the backends' shared loops,
        // URLSession's own threads), so the counts after compare with the counts before.
        // The test's own waits (`Task.sleep`) start the executor's timer, a descriptor and a
        // thread of its own, on first use: that happens here too, before the counts.
        try await Faultline.withScope(configuration) { try await Self.exercise($0) }
        try await Task.sleep(for: .milliseconds(20))
        let descriptors = try #require(Self.count("fd"))
        let threads = try #require(Self.count("task"))
        let memory = try #require(Self.residentKB())
        let before = Self.inventory()

        let started = StartedScopes()
        let gate = AsyncStream<Void>.makeStream()
        let measured = Mutex<(fd: Int, threads: Int, kB: Int)?>(nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.scopes {
                group.addTask {
                    try await Faultline.withScope(configuration) { faultline in
                        try await Self.exercise(faultline)
                        started.count.add(1, ordering: .relaxed)
                        for await _ in gate.stream {}
                    }
                }
            }
            while started.count.load(ordering: .relaxed) < Self.scopes { try await Task.sleep(for: .milliseconds(20)) }
            measured.withLock { $0 = (Self.count("fd") ?? 0, Self.count("task") ?? 0, Self.residentKB() ?? 0) }
            print("fixture resources: threads while running:", Self.inventory().filter { $0.hasPrefix("threads") })
            gate.continuation.finish()
            try await group.waitForAll()
        }
        let during = try #require(measured.withLock { $0 })
        print(
            "fixture resources: \(Self.scopes) idle scopes (proxy + reference backend each):",
            "+\((during.kB - memory) / Self.scopes) kB resident,",
            "+\(Double(during.threads - threads) / Double(Self.scopes)) threads,",
            "+\(Double(during.fd - descriptors) / Double(Self.scopes)) descriptors per scope")
        #expect(during.fd > descriptors, "the scopes were running when measured")
        // One event loop per proxy; resolver threads start only for names, and these are literals.
        #expect(during.threads - threads < 2 * Self.scopes, "more than one thread per scope")
        let descriptorsAfter = try await Self.settle("fd", to: descriptors)
        let threadsAfter = try await Self.settle("task", to: threads)
        let left = Self.inventory().filter { !before.contains($0) }
        #expect(descriptorsAfter == descriptors, "descriptors left open by the scopes: \(left)")
        #expect(threadsAfter == threads, "threads left running by the scopes: \(left)")
    }
}

/// How many of the scopes have started, shared by the scopes' tasks and the measuring one.
final class StartedScopes: Sendable {
    let count = Atomic<Int>(0)
}
