import FaultlineCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves host names without blocking event loops: `getaddrinfo` runs on worker threads and
/// the answers come back on the asking loop.
///
/// `getaddrinfo` honours /etc/hosts and nsswitch like every other program on the machine.
/// Positive answers are cached for `cacheTTL`; concurrent lookups of one name share one
/// `getaddrinfo` call. IP literals never reach a worker. Workers start on demand, when a lookup
/// finds none idle, up to `workerThreads`: a proxy whose origins are all IP literals (a test's
/// `127.0.0.1` backend) runs none. Call `shutdown()` when done: the workers keep the resolver
/// alive until then.
public final class HostResolver: Sendable {
    private struct Waiter: Sendable {
        let port: Int
        let completion: LoopBound<([SocketAddress]) -> Void>
        let failure: LoopBound<(ResolveError) -> Void>
    }

    private struct Jobs {
        var queue: [String] = []
        var waiters: [String: [Waiter]] = [:]
        var stopped = false
        /// Workers started, and those waiting for a job.
        var started = 0
        var idle = 0
    }

    private struct CacheEntry {
        let addresses: [SocketAddress]
        let expires: MonotonicInstant
    }

    private let cacheTTL: Duration
    private let cache = ConditionLock<[String: CacheEntry]>([:])
    private let jobs = ConditionLock(Jobs())
    private let workers = ConditionLock<[ThreadSpawner.Handle]>([])
    private let workerLimit: Int
    /// `getaddrinfo` calls made so far (tests check coalescing and caching with it).
    let lookupCount = Atomic<Int>(0)
    /// Called on the worker thread before each `getaddrinfo` (tests use it to hold a lookup).
    private let lookupHook: (@Sendable (String) -> Void)?

    /// Most names a cache keeps before expired entries are purged (and, if that is not enough,
    /// all of them): a bound for a proxy that sees many distinct hosts.
    static let cacheLimit = 4096

    /// A resolver that starts up to `workerThreads` worker threads, as lookups need them.
    public convenience init(cacheTTL: Duration = .seconds(60), workerThreads: Int = 2) {
        self.init(cacheTTL: cacheTTL, workerThreads: workerThreads, lookupHook: nil)
    }

    init(cacheTTL: Duration, workerThreads: Int, lookupHook: (@Sendable (String) -> Void)?) {
        precondition(workerThreads > 0, "a HostResolver needs at least one worker thread")
        self.cacheTTL = cacheTTL
        self.lookupHook = lookupHook
        self.workerLimit = workerThreads
    }

    /// Worker threads running now (tests check that literals start none).
    var workerCount: Int { workers.withLock { $0.count } }

    /// Addresses for `host` with `port` applied, if known now: an IP literal (`"127.0.0.1"`,
    /// `"::1"`, `"[::1]"`) always, a name when a fresh cached answer exists; nil otherwise (and
    /// for a port outside 0–65535).
    /// Any thread; never blocks on DNS.
    public func cachedAddresses(host: String, port: Int) -> [SocketAddress]? {
        guard (0...65535).contains(port) else { return nil }
        if let literal = SocketAddress.literal(host, port: port) { return [literal] }
        let key = Self.key(host)
        let now = MonotonicInstant.now()
        let cached: [SocketAddress]? = cache.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.addresses
        }
        return cached?.map { $0.withPort(port) }
    }

    /// Resolves `host` (IPv4 and IPv6, in `getaddrinfo`'s preference order) and calls
    /// `completion` with the addresses, `port` applied, or `failure`: once, on `loop`'s thread,
    /// never from inside this call. Call on `loop`'s thread. Cached answers and literals skip the
    /// workers; a lookup already running for the same name is joined rather than repeated.
    /// A port outside 0–65535 fails with `.failed`.
    public func resolve(
        host: String, port: Int, on loop: EventLoop,
        completion: @escaping ([SocketAddress]) -> Void, failure: @escaping (ResolveError) -> Void
    ) {
        loop.preconditionInEventLoop()
        guard (0...65535).contains(port) else {
            // The port may come from a peer (a Host header): a bad one is an answer, not a crash.
            let error = ResolveError(
                host: host, reason: .failed, code: 0, message: "port \(port) is out of range 0-65535")
            loop.executeLocal { failure(error) }
            return
        }
        if let addresses = cachedAddresses(host: host, port: port) {
            loop.executeLocal { completion(addresses) }
            return
        }
        let key = Self.key(host)
        let waiter = Waiter(
            port: port, completion: LoopBound(completion, on: loop), failure: LoopBound(failure, on: loop))
        let outcome: (accepted: Bool, queued: Bool, needsWorker: Bool) = jobs.withLock { jobs in
            guard !jobs.stopped else { return (false, false, false) }
            if jobs.waiters[key] != nil {
                jobs.waiters[key]!.append(waiter)
                return (true, false, false)
            }
            jobs.waiters[key] = [waiter]
            jobs.queue.append(key)
            let needsWorker = jobs.idle < jobs.queue.count && jobs.started < workerLimit
            if needsWorker { jobs.started += 1 }
            return (true, true, needsWorker)
        }
        if outcome.needsWorker { startWorker() }
        if outcome.queued { jobs.broadcast() }
        if !outcome.accepted {
            let error = ResolveError(host: host, reason: .shutdown, code: 0, message: "HostResolver was shut down")
            loop.executeLocal { failure(error) }
        }
    }

    /// Stops the workers and waits for them (a lookup in progress finishes first, which can take
    /// as long as the system resolver's timeout). Queued lookups fail with `.shutdown`.
    /// Idempotent. Not from a worker thread.
    public func shutdown() {
        let orphans: [(String, [Waiter])] = jobs.withLock { jobs in
            jobs.stopped = true
            let orphans = jobs.queue.map { ($0, jobs.waiters.removeValue(forKey: $0) ?? []) }
            jobs.queue.removeAll()
            return orphans
        }
        jobs.broadcast()
        // Tell the orphans first: joining may wait for a slow lookup in progress.
        for (host, waiters) in orphans {
            let error = ResolveError(host: host, reason: .shutdown, code: 0, message: "HostResolver was shut down")
            Self.deliver(.failure(error), to: waiters)
        }
        let handles = workers.withLock { handles in
            defer { handles.removeAll() }
            return handles
        }
        for handle in handles { ThreadSpawner.join(handle) }
    }

    // MARK: - Workers

    /// Starts one more worker (its place in `started` is already taken). Under the workers' lock,
    /// so `shutdown` joins every thread started before it stopped the jobs. A thread that cannot
    /// be started gives its place back; with no worker at all, the lookups waiting fail.
    private func startWorker() {
        let started: Bool = workers.withLock { handles in
            guard !jobs.withLock({ $0.stopped }) else { return false }
            do {
                handles.append(
                    try ThreadSpawner.spawn(name: "faultline-dns-\(handles.count)") { [self] in workerLoop() })
                return true
            } catch {
                return false
            }
        }
        guard !started else { return }
        let orphans: [(String, [Waiter])] = jobs.withLock { jobs in
            jobs.started -= 1
            guard jobs.started == 0 else { return [] }
            defer { jobs.queue.removeAll() }
            return jobs.queue.map { ($0, jobs.waiters.removeValue(forKey: $0) ?? []) }
        }
        for (host, waiters) in orphans {
            let error = ResolveError(
                host: host, reason: .failed, code: 0, message: "no resolver thread could be started")
            Self.deliver(.failure(error), to: waiters)
        }
    }

    /// Counts this worker idle and, in the same step, takes the waiters of the lookup it just
    /// finished: a resolve that arrives once an answer is out finds the worker idle and queues for
    /// it instead of starting another thread while this one is still delivering.
    private func becomeIdle(answering key: String?) -> [Waiter] {
        jobs.withLock { jobs in
            jobs.idle += 1
            guard let key else { return [] }
            return jobs.waiters.removeValue(forKey: key) ?? []
        }
    }

    /// Waits for a queued lookup, once counted idle by `becomeIdle`; nil once the resolver stops.
    private func nextJob() -> String? {
        jobs.wait(
            until: { $0.stopped || !$0.queue.isEmpty },
            then: { jobs in
                jobs.idle -= 1
                return jobs.stopped ? nil : jobs.queue.removeFirst()
            })
    }

    private func workerLoop() {
        _ = becomeIdle(answering: nil)
        while let key = nextJob() {
            lookupHook?(key)
            lookupCount.add(1, ordering: .relaxed)
            let outcome = Self.lookup(key)
            if case .success(let addresses) = outcome {
                // Cache before releasing the waiters, so a resolve arriving in between finds it.
                let expires = MonotonicInstant.now().advanced(by: cacheTTL)
                cache.withLock { entries in
                    if entries.count >= Self.cacheLimit {
                        let now = MonotonicInstant.now()
                        entries = entries.filter { $0.value.expires > now }
                        if entries.count >= Self.cacheLimit { entries.removeAll() }
                    }
                    entries[key] = CacheEntry(addresses: addresses, expires: expires)
                }
            }
            Self.deliver(outcome, to: becomeIdle(answering: key))
        }
    }

    private static func deliver(_ outcome: Result<[SocketAddress], ResolveError>, to waiters: [Waiter]) {
        for waiter in waiters {
            switch outcome {
            case .success(let addresses):
                let withPort = addresses.map { $0.withPort(waiter.port) }
                waiter.completion.loop.execute { waiter.completion.value(withPort) }
            case .failure(let error):
                waiter.failure.loop.execute { waiter.failure.value(error) }
            }
        }
    }

    private static func key(_ host: String) -> String {
        host.lowercased()
    }

    /// One blocking `getaddrinfo` for TCP addresses of any family, duplicates removed.
    static func lookup(_ host: String) -> Result<[SocketAddress], ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Posix.streamSocketType
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else {
            return .failure(ResolveError.fromGetaddrinfo(host: host, code: code, errno: errno))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let info = cursor {
            if let raw = info.pointee.ai_addr,
                let address = SocketAddress(addrinfoAddress: raw, length: info.pointee.ai_addrlen),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            cursor = info.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(ResolveError(host: host, reason: .notFound, code: 0, message: "no IPv4 or IPv6 address"))
        }
        return .success(addresses)
    }
}
