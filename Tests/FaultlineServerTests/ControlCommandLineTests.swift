import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import FaultlineServer
import Foundation
import Testing

/// The built `faultline` binary: `run` publishes its control file, and `holds`, `release`,
/// `rules`, `mark` and `state` drive the running proxy through it.
@Suite(.serialized) struct ControlCommandLineTests {
    /// `faultline` sits next to the test runner in the build folder (`swift test` builds it).
    static var binary: String {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // On Linux the runner is `<build>/FaultlinePackageTests.xctest`; on macOS a bundle inside it.
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("faultline").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return "faultline-binary-not-found"
    }

    struct Finished {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the binary to completion (at most 20 s) with `FAULTLINE_HOME` set to `home`.
    static func faultline(_ arguments: [String], home: String) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["FAULTLINE_HOME"] = home
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = MonotonicInstant.now().advanced(by: .seconds(20))
        // The commands write little; reading to EOF ends when the process exits.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning && MonotonicInstant.now() < deadline { usleep(1_000) }
        if process.isRunning {
            process.terminate()
            throw HarnessError("faultline \(arguments) did not finish in 20 s")
        }
        return Finished(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            errors: String(decoding: errData, as: UTF8.self))
    }

    /// A `faultline run` child process with rules and a control file in `folder`.
    final class RunningProxy {
        let process = Process()
        let folder: TemporaryFolder
        let home: String
        let controlFile: String
        let log: String

        init(folder: TemporaryFolder, extraArguments: [String] = []) throws {
            self.folder = folder
            home = folder.path + "/home"
            controlFile = home + "/control.json"
            log = folder.path + "/run.log"
            try FileManager.default.createDirectory(atPath: folder.path + "/rules", withIntermediateDirectories: false)
            try folder.write("rules/demo.json5", ControlHarness.scenario)
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = URL(fileURLWithPath: ControlCommandLineTests.binary)
            process.arguments =
                [
                    "run", "--listen", "127.0.0.1:0", "--rules", folder.path + "/rules", "--trace",
                    folder.path + "/trace.jsonl",
                ]
                + extraArguments
            var environment = ProcessInfo.processInfo.environment
            environment["FAULTLINE_HOME"] = home
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
        }

        /// Waits until the banner is out (the control file is written before it).
        func waitForBanner() throws -> String {
            let deadline = MonotonicInstant.now().advanced(by: .seconds(10))
            while MonotonicInstant.now() < deadline {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains("Ctrl-C stops") { return text }
                guard process.isRunning else { throw HarnessError("faultline run exited: \(text)") }
                usleep(5_000)
            }
            throw HarnessError("no banner within 10 s")
        }

        /// Sends SIGTERM and waits (10 s at most) for the exit status.
        func stop() -> Int32? {
            guard process.isRunning else { return process.terminationStatus }
            process.terminate()
            let deadline = MonotonicInstant.now().advanced(by: .seconds(10))
            while process.isRunning && MonotonicInstant.now() < deadline { usleep(2_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            return process.terminationStatus
        }

        func faultline(_ arguments: String...) throws -> Finished {
            try ControlCommandLineTests.faultline(arguments, home: home)
        }
    }

    @Test func theCommandsDriveARunningProxyThroughItsControlFile() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the faultline product first")
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let proxy = try RunningProxy(folder: folder)
        defer { _ = proxy.stop() }
        let banner = try proxy.waitForBanner()

        // The control file: URL, token and pid, readable by the owner only.
        let attributes = try FileManager.default.attributesOfItem(atPath: proxy.controlFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: proxy.home)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let contents = try #require(
            JSONValue.parseJSON(Array(try Data(contentsOf: URL(fileURLWithPath: proxy.controlFile)))))
        let url = try #require(contents.string("/url"))
        let token = try #require(contents.string("/token"))
        #expect(contents.int("/pid") == Int(proxy.process.processIdentifier))
        #expect(token.count == 64)
        #expect(banner.contains("control on \(url.dropFirst("http://".count))"))
        #expect(!banner.contains(token), "the token is never printed")

        let control = try ControlClient(url: url, token: token)
        let health = try #require(try control.call("GET", "/v1/health").json)
        let proxyAddress = try #require(health.string("/listeners/0/address"))
        let proxyPort = try #require(Int(proxyAddress.split(separator: ":").last ?? ""))

        #expect(try proxy.faultline("holds").output == "no flows are held\n")

        let client = try BlockingClient(port: proxyPort)
        client.send("GET http://127.0.0.1:\(origin.port)/held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let waited = try proxy.faultline("holds", "wait", "gate", "--timeout", "5")
        #expect(waited.status == 0, "\(waited.errors)")
        #expect(waited.output.contains("gate"))
        let table = try proxy.faultline("holds")
        #expect(table.output.hasPrefix("ID "))
        #expect(table.output.contains("GET http://127.0.0.1:\(origin.port)/held"))
        let json = try proxy.faultline("holds", "--json")
        #expect(JSONValue.parseJSON(Array(json.output.utf8))?.string("/0/name") == "gate")

        let released = try proxy.faultline(
            "release", "gate", "--status", "503", "--header", "Retry-After: 2", "--body", "later")
        #expect(released.status == 0, "\(released.errors)")
        #expect(released.output.contains("answered with 503: gate #1"))
        let response = try client.readResponse()
        #expect(response.status == 503)
        #expect(response.headers.first(name: "retry-after") == "2")
        #expect(response.body == "later")

        let missing = try proxy.faultline("release", "gaet")
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no hold named 'gaet'"))

        #expect(try proxy.faultline("rules", "disable", "demo/teapot").output == "disabled rule demo/teapot\n")
        #expect(try control.call("GET", "/v1/rules").json?.bool("/2/enabled") == false)
        let typo = try proxy.faultline("rules", "enable", "demo/teapto")
        #expect(typo.status == 1)
        #expect(typo.errors.contains("did you mean 'demo/teapot'"))
        #expect(try proxy.faultline("rules", "enable", "demo").status == 0)

        #expect(try proxy.faultline("state", "set", "demo", "loggedOut").output.contains("loggedOut"))
        #expect(try proxy.faultline("state").output.contains("demo      loggedOut  global"))
        #expect(try proxy.faultline("state", "reset").output.contains("started"))
        #expect(try proxy.faultline("mark", "go", "step=2").output == "marked 'go'\n")

        #expect(proxy.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: proxy.controlFile), "a clean stop removes the control file")
        let trace = try String(contentsOfFile: folder.path + "/trace.jsonl", encoding: .utf8)
        #expect(trace.contains("\"label\":\"go\",\"step\":\"2\""))
        #expect(!trace.contains(token), "the token is never traced")

        let gone = try ControlCommandLineTests.faultline(["holds"], home: proxy.home)
        #expect(gone.status == 1)
        #expect(gone.errors.contains("no running faultline found (looked for \(proxy.controlFile))"))
    }

    @Test func controlOffWritesNoFileAndUsageErrorsExit2() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the faultline product first")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let proxy = try RunningProxy(folder: folder, extraArguments: ["--control", "off"])
        defer { _ = proxy.stop() }
        let banner = try proxy.waitForBanner()
        #expect(!banner.contains("control on"))
        #expect(!FileManager.default.fileExists(atPath: proxy.controlFile))
        #expect(try proxy.faultline("holds").status == 1)

        for arguments in [
            ["release"], ["holds", "wait"], ["mark"], ["state", "set", "demo"], ["holds", "--timeout", "3"],
            ["release", "x", "--body", "b"], ["mark", "x", "novalue"], ["holds", "--control", "http://127.0.0.1:1"],
        ] {
            let finished = try ControlCommandLineTests.faultline(arguments, home: proxy.home)
            #expect(finished.status == 2, "\(arguments): \(finished.errors)")
        }
        let help = try ControlCommandLineTests.faultline(["holds", "--help"], home: proxy.home)
        #expect(help.status == 0)
        #expect(help.output.contains("usage: faultline holds"))
    }
}
