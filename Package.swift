// swift-tools-version:6.0
//
// Faultline: an HTTP fault-injecting proxy. The targets follow ARCHITECTURE.md:
// codecs, trace and proxy layers do no I/O; FaultlinePosix alone touches sockets;
// FaultlineServer drives the layers on it; `faultline` is the command line.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Faultline",
    // macOS 15: Synchronization's Atomic and Mutex need it. Linux is where it is built and tested
    // (README.md, "Platforms"). No iOS: COpenSSL links the system OpenSSL through pkg-config,
    // which an iOS SDK does not have.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "faultline", targets: ["faultline"]),
        .library(name: "FaultlineServer", targets: ["FaultlineServer"]),
        .library(name: "FaultlineTrace", targets: ["FaultlineTrace"]),
        .library(name: "FaultlineTesting", targets: ["FaultlineTesting"]),
        .library(name: "FaultlineContract", targets: ["FaultlineContract"]),
        // The reference auth backend, to start in-process (FaultlineTesting re-exports it too).
        .library(name: "FaultlineBackend", targets: ["FaultlineBackend"]),
        // Rule-file positions and values; the one module FaultlineTesting does not re-export
        // (its `SourceLocation` would clash with Swift Testing's).
        .library(name: "FaultlineConfig", targets: ["FaultlineConfig"]),
    ],
    targets: [
        // System libraries: a module map and a shim header each, no C compiled.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(
            name: "CNghttp2", path: "Sources/CNghttp2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]),

        .target(name: "FaultlineCore", swiftSettings: strictSettings),
        .target(
            name: "FaultlinePosix",
            dependencies: [
                "FaultlineCore",
                .target(name: "CLinux", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings),
        .target(name: "FaultlineHTTP1", dependencies: ["FaultlineCore"], swiftSettings: strictSettings),
        .target(name: "FaultlineConfig", dependencies: ["FaultlineCore"], swiftSettings: strictSettings),
        .target(
            name: "FaultlineRules", dependencies: ["FaultlineCore", "FaultlineConfig", "FaultlinePosix"], swiftSettings: strictSettings),
        .target(name: "FaultlineTrace", dependencies: ["FaultlineCore", "FaultlinePosix", "COpenSSL"], swiftSettings: strictSettings),
        .target(name: "FaultlineTLS", dependencies: ["FaultlineCore", "FaultlinePosix", "COpenSSL"], swiftSettings: strictSettings),
        // Sans-I/O HTTP/2 (RFC 9113) over nghttp2: bytes in, events out, frames to send out.
        .target(
            name: "FaultlineHTTP2", dependencies: ["FaultlineCore", "FaultlineHTTP1", "CNghttp2"],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineContract", dependencies: ["FaultlineCapture", "FaultlineCore", "FaultlineConfig", "FaultlineTrace"],
            swiftSettings: strictSettings),
        // Exploration, sans-I/O: schedules, strategies and the scheduler's state machine, which
        // the server drives.
        .target(
            name: "FaultlineExplore", dependencies: ["FaultlineCore"],
            swiftSettings: strictSettings),
        // The flow core: one protocol-neutral state machine per request (rules, holds, faults,
        // lineages, the flow's trace events), events in and actions out.
        .target(
            name: "FaultlineFlow",
            dependencies: ["FaultlineCore", "FaultlineConfig", "FaultlineHTTP1", "FaultlineRules", "FaultlineTrace"],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineProxy",
            dependencies: [
                "FaultlineCore", "FaultlineConfig", "FaultlineFlow", "FaultlineHTTP1", "FaultlineHTTP2", "FaultlineRules",
                "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        // Captures read back (and HAR 1.2 both ways): the model replay, export and rule
        // generation work from.
        .target(
            name: "FaultlineCapture", dependencies: ["FaultlineCore", "FaultlineHTTP1", "FaultlineTrace"],
            swiftSettings: strictSettings),
        // Server replay: answers flows from a capture (matching, fresh credentials, recorded order,
        // credential state). FaultlineRules for the lineage book the live tracker uses too (already
        // below it through FaultlineFlow, so no new edge in the build graph).
        .target(
            name: "FaultlineReplay",
            dependencies: [
                "FaultlineCapture", "FaultlineCore", "FaultlineFlow", "FaultlineHTTP1", "FaultlineRules", "FaultlineServer",
                "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineBackend",
            dependencies: ["FaultlineCore", "FaultlinePosix", "FaultlineHTTP1", "FaultlineConfig"],
            swiftSettings: strictSettings),
        // `faultline replay client`: a capture's requests sent to a server again, concurrently as
        // recorded, and the answers compared; sans-I/O pieces plus a small blocking driver.
        .target(
            name: "FaultlineReplayClient",
            dependencies: [
                "FaultlineCapture", "FaultlineCore", "FaultlineHTTP1", "FaultlinePosix", "FaultlineRules", "FaultlineTLS",
                "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineServer",
            dependencies: [
                "FaultlineConfig", "FaultlineCore", "FaultlineExplore", "FaultlineFlow", "FaultlineHTTP1", "FaultlineHTTP2", "FaultlinePosix",
                "FaultlineProxy", "FaultlineRules", "FaultlineTLS", "FaultlineTrace",
            ],
            // The web UI's files, kept as .html, .css and .js (readable, diffable, lintable) and
            // compiled into the binary: no bundle to install beside it.
            resources: [
                .embedInCode("UI/index.html"), .embedInCode("UI/app.css"), .embedInCode("UI/app-core.js"),
                .embedInCode("UI/app-flows.js"), .embedInCode("UI/app-panels.js"), .embedInCode("UI/app-lanes.js"),
                .embedInCode("UI/app-start.js"),
            ],
            swiftSettings: strictSettings),
        // The proxy-in-a-test core: no test framework, so the demo (and `faultline`) can use it
        // without linking XCTest or Swift Testing.
        // Running an exploration: schedules one after another, each judged by the contract checker,
        // failing ones shrunk, the report in four formats. How a run starts its proxy and client
        // is the caller's (the command line, the testing library).
        .target(
            name: "FaultlineExplorer",
            dependencies: ["FaultlineContract", "FaultlineCore", "FaultlineExplore", "FaultlineTrace"],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineTestProxy",
            dependencies: [
                "FaultlineBackend", "FaultlineCapture", "FaultlineExplore", "FaultlineExplorer", "FaultlineReplay", "FaultlineConfig", "FaultlineContract", "FaultlineCore", "FaultlinePosix", "FaultlineFlow", "FaultlineProxy",
                "FaultlineRules", "FaultlineServer", "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        // The test-framework glue (Swift Testing and XCTest expectations) over the core; it
        // re-exports every module its API reaches (Sources/FaultlineTesting/Exports.swift).
        .target(
            name: "FaultlineTesting",
            dependencies: [
                "FaultlineBackend", "FaultlineCapture", "FaultlineExplore", "FaultlineExplorer", "FaultlineReplay", "FaultlineContract", "FaultlineCore", "FaultlineHTTP1", "FaultlinePosix", "FaultlineProxy",
                "FaultlineRules", "FaultlineServer", "FaultlineTLS", "FaultlineTestProxy", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "FaultlineDemo",
            dependencies: [
                "FaultlineBackend", "FaultlineContract", "FaultlineCore", "FaultlineExplore", "FaultlineExplorer", "FaultlineHTTP1", "FaultlineHTTP2", "FaultlinePosix",
                "FaultlineReplay", "FaultlineTestProxy", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "faultline",
            dependencies: [
                "FaultlineBackend", "FaultlineCapture", "FaultlineConfig", "FaultlineContract", "FaultlineCore", "FaultlineDemo",
                "FaultlineExplore", "FaultlineExplorer",
                "FaultlinePosix", "FaultlineFlow", "FaultlineProxy", "FaultlineReplay", "FaultlineReplayClient", "FaultlineRules",
                "FaultlineServer", "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        // A tiny URLSession client the integration tests run as a child process with http_proxy set.
        .executableTarget(
            name: "faultline-urlsession-client", path: "Tests/URLSessionClient", swiftSettings: strictSettings),
        // The microbenchmark (Benchmarks/micro runs it): time and allocations per request of the
        // sans-I/O pieces. AllocationCounter interposes malloc and friends; only it links that.
        .target(name: "AllocationCounter", path: "Benchmarks/Micro/AllocationCounter"),
        .executableTarget(
            name: "faultline-microbench",
            dependencies: [
                "AllocationCounter", "FaultlineCore", "FaultlineFlow", "FaultlineHTTP1", "FaultlineProxy", "FaultlineRules",
                "FaultlineTrace",
            ],
            path: "Benchmarks/Micro/Microbench", swiftSettings: strictSettings),
        // What the strict playbooks of the flow and session tests share (a line diff, action text).
        .target(
            name: "PlaybookSupport", dependencies: ["FaultlineRules"], path: "Tests/PlaybookSupport",
            swiftSettings: strictSettings),

        .testTarget(
            name: "FaultlineDemoTests",
            dependencies: ["FaultlineDemo", "FaultlineBackend", "FaultlineCapture", "FaultlineContract", "FaultlineExplore", "FaultlineExplorer", "FaultlineServer", "FaultlineHTTP1", "FaultlinePosix", "FaultlineReplay", "FaultlineTestProxy", "FaultlineTrace"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineTestingTests",
            dependencies: [
                "FaultlineTesting", "FaultlineTestProxy", "FaultlineContract", "FaultlinePosix", "FaultlineFlow", "FaultlineProxy", "FaultlineRules",
                "FaultlineServer", "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .testTarget(name: "FaultlineCoreTests", dependencies: ["FaultlineCore"], swiftSettings: strictSettings),
        // The command line's own pieces (the option tables), tested through `@testable import faultline`.
        .testTarget(name: "FaultlineCommandTests", dependencies: ["faultline"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineExploreTests", dependencies: ["FaultlineExplore", "FaultlineCore"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineExplorerTests", dependencies: ["FaultlineExplorer", "FaultlineExplore", "FaultlineContract"],
            swiftSettings: strictSettings),
        .testTarget(name: "FaultlinePosixTests", dependencies: ["FaultlinePosix"], swiftSettings: strictSettings),
        .testTarget(name: "FaultlineHTTP1Tests", dependencies: ["FaultlineCore", "FaultlineHTTP1"], swiftSettings: strictSettings),
        .testTarget(name: "FaultlineConfigTests", dependencies: ["FaultlineConfig", "FaultlineCore"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineRulesTests", dependencies: ["FaultlineRules", "FaultlineConfig", "FaultlineCore"], swiftSettings: strictSettings),
        .testTarget(name: "FaultlineTraceTests", dependencies: ["FaultlineTrace", "FaultlineCore"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineReplayTests",
            dependencies: [
                "FaultlineReplay", "FaultlineCapture", "FaultlineCore", "FaultlineFlow", "FaultlineHTTP1", "FaultlineRules",
                "FaultlineServer", "FaultlineTLS", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineCaptureTests", dependencies: ["FaultlineCapture", "FaultlineCore", "FaultlineHTTP1", "FaultlineTrace"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineReplayClientTests",
            dependencies: [
                "FaultlineReplayClient", "FaultlineBackend", "FaultlineCapture", "FaultlineCore", "FaultlineFlow", "FaultlineHTTP1",
                "FaultlinePosix", "FaultlineRules", "FaultlineTrace",
            ],
            swiftSettings: strictSettings),
        .testTarget(name: "FaultlineTLSTests", dependencies: ["FaultlineTLS", "COpenSSL"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineHTTP2Tests", dependencies: ["FaultlineCore", "FaultlineHTTP2", "FaultlineHTTP1"], swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineContractTests", dependencies: ["FaultlineContract", "FaultlineConfig", "FaultlineCore", "FaultlineTrace"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineFlowTests",
            dependencies: [
                "FaultlineCore", "FaultlineConfig", "FaultlineFlow", "FaultlineHTTP1", "FaultlineRules", "FaultlineTrace",
                "PlaybookSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineProxyTests",
            dependencies: [
                "FaultlineCore", "FaultlineFlow", "FaultlineProxy", "FaultlineHTTP1", "FaultlineHTTP2", "FaultlineRules",
                "FaultlineTLS", "FaultlineTrace", "PlaybookSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineBackendTests",
            dependencies: ["FaultlineBackend", "FaultlineCore", "FaultlinePosix", "FaultlineHTTP1", "FaultlineConfig"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultlineServerTests",
            dependencies: [
                "FaultlineCore", "FaultlineServer", "FaultlinePosix", "FaultlineFlow", "FaultlineProxy", "FaultlineHTTP1", "FaultlineTrace",
                "FaultlineRules", "FaultlineConfig",
            ],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer entry points (Fuzz/README.md), only when Scripts/fuzz builds them
// (FAULTLINE_FUZZ=1, `--sanitize=fuzzer --sanitize=address`, scratch path .build/fuzz). The
// binary has no `main` of its own (libFuzzer's is linked in), so an ordinary `swift build` could
// not link it: outside that build the target does not exist, and the `faultline` binary, the
// tests and the module graph never see it.
if Context.environment["FAULTLINE_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "faultline-fuzz",
            dependencies: [
                "FaultlineCapture", "FaultlineConfig", "FaultlineContract", "FaultlineCore", "FaultlineHTTP1",
                "FaultlineHTTP2", "FaultlinePosix", "FaultlineRules", "FaultlineServer", "FaultlineTLS", "FaultlineTrace",
            ],
            path: "Fuzz/Targets", swiftSettings: strictSettings))
}
