// swift-tools-version:6.0
//
// A package as a user writes one: it depends on the `FaultlineTesting` product alone, by path,
// and uses only its public API. Scripts/test builds and runs it after the unit tests.
import PackageDescription

let package = Package(
    name: "TestingFixture",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Faultline", path: "../..")],
    targets: [
        .testTarget(
            name: "TestingFixtureTests",
            dependencies: [.product(name: "FaultlineTesting", package: "Faultline")],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")])
    ],
    swiftLanguageModes: [.v6]
)
